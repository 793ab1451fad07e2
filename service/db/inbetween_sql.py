"""SQL for In Between games: the `Game` as jsonb, its secret pack, and the game's own audit chain (chain id = game id).

A game is its own audit chain: its records go to audit_log under `table_id = game_id` (both are uuid4s, so a game's
chain never meets a Red Dog table's), and the chain's head lives in the game row, read and moved under its row lock.
"""

from __future__ import annotations

from uuid import UUID

import asyncpg
import msgspec

from audit.chain import Link
from paytables.inbetween.inbetween_state import Game
from service.db import Conn, Statement
from service.db.audit_sql import AuditHead, head_of, seqs_between, tree_bytes
from service.db.row_reads import Found, Missing, Mode, OneRow, Replay, read_one, select_one
from service.db.storage_forms import shoe_bytes
from shoe.shoe import Shoe, decode_shoe

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(Game).decode


class StoredGame(msgspec.Struct, frozen=True, kw_only=True):
    """A game row: the public game, its secret pack, and the head of its audit chain."""

    game: Game
    shoe: Shoe
    head: AuditHead


def insert_game(game_id: UUID, operator_id: str, game: Game, shoe: Shoe, head: AuditHead) -> Statement:
    return Statement(
        sql="INSERT INTO inbetween_games (game_id, operator_id, ruleset, ruleset_sha256, status, test, started_at,"
        " ended_at, state, shoe, audit_seq, audit_hash, audit_at, audit_tree)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
        args=(
            game_id,
            operator_id,
            game.ruleset,
            game.ruleset_sha256,
            game.status.value,
            game.test,
            game.started_at,
            game.ended_at,
            _encode(game).decode(),
            shoe_bytes(shoe),
            head.seq,
            head.hash,
            head.recorded_at,
            tree_bytes(head.merkle()),
        ),
    )


def update_game(game_id: UUID, game: Game, shoe: Shoe, head: AuditHead, *, replaces: int) -> Statement:
    """The game, its pack and its chain's head, in one statement (the audit records go beside it).

    `replaces` is the seq of the head the move was computed from: if the row holds another, the statement fails
    whole (40001, migration 011), so a move read without a lock never lands on a turn it did not see. It leads."""
    return Statement(
        sql="UPDATE inbetween_games SET status = $2, ended_at = $3, state = $4, shoe = $5, audit_seq = $6,"
        " audit_hash = $7, audit_at = $8, audit_tree = $10"
        " WHERE game_id = $1 AND reddog_expect_head(audit_seq, $9) RETURNING 1",
        args=(
            game_id,
            game.status.value,
            game.ended_at,
            _encode(game).decode(),
            shoe_bytes(shoe),
            head.seq,
            head.hash,
            head.recorded_at,
            replaces,
            tree_bytes(head.merkle()),
        ),
        leads=True,
    )


ONE_GAME = OneRow(
    columns="g.state, g.shoe, g.audit_seq, g.audit_hash, g.audit_at, g.audit_tree",
    source="inbetween_games g",
    owner="g",
    id_column="game_id",
    locks="g",
)


async def select_game(conn: Conn, operator_id: str, game_id: UUID) -> StoredGame | None:
    """One of the operator's games, unlocked (reads)."""
    record = await select_one(conn, ONE_GAME, game_id, operator_id)
    return None if record is None else _stored(record)


async def read_game(conn: Conn, operator_id: str, game_id: UUID, mode: Mode) -> Found[StoredGame] | Replay | Missing:
    """The game a move changes, read as the unit's mode says (row_reads.read_one): its row, and so its chain's head."""
    read = await read_one(conn, ONE_GAME, game_id, operator_id, mode)
    return Found(_stored(read.value)) if isinstance(read, Found) else read


def _stored(record: asyncpg.Record) -> StoredGame:
    return StoredGame(game=_decode(record["state"]), shoe=decode_shoe(record["shoe"]), head=head_of(record))


async def select_records(conn: Conn, game_id: UUID, *, after: int = 0, limit: int | None = None) -> list[Link]:
    """The game's audit records after seq `after`, in order (the caller has checked whose game it is)."""
    records = await conn.fetch(
        f"SELECT seq, prev_hash, hash, body FROM audit_log WHERE table_id = $1 AND seq > $2 AND {seqs_between('$2')}"  # noqa: S608
        " ORDER BY seq LIMIT $3",
        game_id,
        after,
        limit,
    )
    return [Link(seq=r["seq"], prev_hash=r["prev_hash"], hash=r["hash"], body=r["body"]) for r in records]
