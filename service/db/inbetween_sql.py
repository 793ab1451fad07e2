"""SQL for In Between games: the `Game` as jsonb, its secret pack, and the game's own audit chain (chain id = game id).

A game is its own audit chain: its records go to audit_log under `table_id = game_id` (both are uuid4s, so a game's
chain never meets a Red Dog table's), and the chain's head lives in the game row, read and moved under its row lock.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from uuid import UUID

import asyncpg
import msgspec

from audit.chain import Link, Record, extend
from paytables.inbetween.inbetween_events import InBetweenEvent
from paytables.inbetween.inbetween_state import Game
from service.db import Conn, Statement
from service.db.audit_sql import AuditHead
from shoe.shoe import Shoe, decode_shoe, encode_shoe

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
        " ended_at, state, shoe, audit_seq, audit_hash, audit_at)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
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
            encode_shoe(shoe),
            head.seq,
            head.hash,
            head.recorded_at,
        ),
    )


def update_game(game_id: UUID, game: Game, shoe: Shoe, head: AuditHead) -> Statement:
    """The game, its pack and its chain's head, in one statement (the audit records go beside it)."""
    return Statement(
        sql="UPDATE inbetween_games SET status = $2, ended_at = $3, state = $4, shoe = $5, audit_seq = $6,"
        " audit_hash = $7, audit_at = $8 WHERE game_id = $1",
        args=(
            game_id,
            game.status.value,
            game.ended_at,
            _encode(game).decode(),
            encode_shoe(shoe),
            head.seq,
            head.hash,
            head.recorded_at,
        ),
    )


_SELECT = (
    "SELECT state, shoe, audit_seq, audit_hash, audit_at FROM inbetween_games WHERE game_id = $1 AND operator_id = $2"
)
_SELECT_LOCKED = f"{_SELECT} FOR UPDATE"


async def select_game(conn: Conn, operator_id: str, game_id: UUID, *, lock: bool = False) -> StoredGame | None:
    """One of the operator's games; `lock` holds its row (and so its chain's head) until the transaction ends."""
    record = await conn.fetchrow(_SELECT_LOCKED if lock else _SELECT, game_id, operator_id)
    return None if record is None else _stored(record)


def _stored(record: asyncpg.Record) -> StoredGame:
    head = AuditHead(seq=record["audit_seq"], hash=record["audit_hash"], recorded_at=record["audit_at"])
    return StoredGame(game=_decode(record["state"]), shoe=decode_shoe(record["shoe"]), head=head)


def append(
    game_id: UUID, head: AuditHead, events: Sequence[InBetweenEvent], *, test: bool, now: datetime
) -> tuple[list[Statement], AuditHead]:
    """The writes that append events to the game's chain and the head after them; the caller holds the game row."""
    if not events:
        return [], head
    # Never before the previous record, as on a table's chain: a replica's clock may be behind the last writer's.
    stamp = now if head.recorded_at is None else max(now, head.recorded_at)
    records = [
        Record(table_id=str(game_id), seq=head.seq + i + 1, recorded_at=stamp, test=test, event=event)
        for i, event in enumerate(events)
    ]
    links = extend(head.hash, records)
    insert = Statement(
        sql="INSERT INTO audit_log (table_id, seq, prev_hash, hash, recorded_at, kind, test, body)"
        " SELECT $1, * FROM unnest($2::bigint[], $3::bytea[], $4::bytea[], $5::timestamptz[], $6::text[],"
        "  $7::boolean[], $8::bytea[])",
        args=(
            game_id,
            [link.seq for link in links],
            [link.prev_hash for link in links],
            [link.hash for link in links],
            [stamp] * len(links),
            [kind_of(e) for e in events],
            [test] * len(links),
            [link.body for link in links],
        ),
    )
    return [insert], AuditHead(seq=links[-1].seq, hash=links[-1].hash, recorded_at=stamp)


def kind_of(event: InBetweenEvent) -> str:
    """The event's tag (`ib_…`), for the audit_log's kind column."""
    tag = type(event).__struct_config__.tag
    assert isinstance(tag, str)
    return tag


async def select_records(conn: Conn, game_id: UUID, *, after: int = 0, limit: int | None = None) -> list[Link]:
    """The game's audit records after seq `after`, in order (the caller has checked whose game it is)."""
    records = await conn.fetch(
        "SELECT seq, prev_hash, hash, body FROM audit_log WHERE table_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
        game_id,
        after,
        limit,
    )
    return [Link(seq=r["seq"], prev_hash=r["prev_hash"], hash=r["hash"], body=r["body"]) for r in records]
