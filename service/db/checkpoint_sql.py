"""SQL for signed checkpoints, the heads they sign, and the record hashes proofs are built from.

A "chain" here is a game table's, an In Between game's or the system chain (`system_chain`, under the nil UUID);
`owner` narrows a read to one operator's tables (None: an auditor, who reads every chain).
"""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

import asyncpg
import msgspec

from audit.system_events import SYSTEM_CHAIN_ID
from service.db import Conn, Statement
from service.db.audit_sql import AuditHead, head_of

SYSTEM_CHAIN = UUID(SYSTEM_CHAIN_ID)
# Every checkpointed chain's head. A game's operator is left out (NULL, as the system chain's): the checkpoint
# notifications tell an operator of its tables' chains, and a game's checkpoints reach auditors by the export.
_TABLE_HEADS = "SELECT table_id, audit_seq, audit_hash, audit_at, audit_tree, operator_id FROM game_tables"
_GAME_HEADS = " UNION ALL SELECT game_id, audit_seq, audit_hash, audit_at, audit_tree, NULL FROM inbetween_games"
_SYSTEM_HEAD = " UNION ALL SELECT table_id, audit_seq, audit_hash, audit_at, audit_tree, NULL FROM system_chain"
_HEADS = _TABLE_HEADS + _GAME_HEADS + _SYSTEM_HEAD


class StoredCheckpoint(msgspec.Struct, frozen=True, kw_only=True):
    table_id: UUID
    tree_size: int
    root: bytes
    note: str  # the C2SP signed note exactly as signed and published
    created_at: datetime


class ChainHead(msgspec.Struct, frozen=True, kw_only=True):
    table_id: UUID
    head: AuditHead
    operator_id: str | None = None  # a game table's operator; None: the system chain


def insert_checkpoint(table_id: UUID, tree_size: int, root: bytes, note: str, now: datetime) -> Statement:
    """One checkpoint; a replica that signed the same head first wins (the note is the same: Ed25519 is
    deterministic, and the tree at a size never changes)."""
    return Statement(
        sql="INSERT INTO audit_checkpoints (table_id, tree_size, root, note, created_at) VALUES ($1, $2, $3, $4, $5)"
        " ON CONFLICT (table_id, tree_size) DO NOTHING",
        args=(table_id, tree_size, root, note, now),
    )


def _checkpoint(record: asyncpg.Record) -> StoredCheckpoint:
    return StoredCheckpoint(
        table_id=record["table_id"],
        tree_size=record["tree_size"],
        root=record["root"],
        note=record["note"],
        created_at=record["created_at"],
    )


_CHECKPOINT = "SELECT table_id, tree_size, root, note, created_at FROM audit_checkpoints"


async def select_latest_checkpoint(conn: Conn, table_id: UUID) -> StoredCheckpoint | None:
    record = await conn.fetchrow(f"{_CHECKPOINT} WHERE table_id = $1 ORDER BY tree_size DESC LIMIT 1", table_id)
    return None if record is None else _checkpoint(record)


async def select_checkpoint(conn: Conn, table_id: UUID, tree_size: int) -> StoredCheckpoint | None:
    record = await conn.fetchrow(f"{_CHECKPOINT} WHERE table_id = $1 AND tree_size = $2", table_id, tree_size)
    return None if record is None else _checkpoint(record)


async def select_checkpoints(conn: Conn, table_id: UUID) -> list[StoredCheckpoint]:
    """Every checkpoint of a chain, smallest first."""
    return [_checkpoint(r) for r in await conn.fetch(f"{_CHECKPOINT} WHERE table_id = $1 ORDER BY tree_size", table_id)]


async def chain_visible(conn: Conn, table_id: UUID, owner: str | None) -> bool:
    """Whether the caller may read this chain: an auditor every one, an operator only its own tables' and games'."""
    if owner is None:
        return table_id == SYSTEM_CHAIN or bool(
            await conn.fetchval(
                "SELECT true FROM game_tables WHERE table_id = $1"
                " UNION ALL SELECT true FROM inbetween_games WHERE game_id = $1",
                table_id,
            )
        )
    return bool(
        await conn.fetchval(
            "SELECT true FROM game_tables WHERE table_id = $1 AND operator_id = $2"
            " UNION ALL SELECT true FROM inbetween_games WHERE game_id = $1 AND operator_id = $2",
            table_id,
            owner,
        )
    )


async def select_operator(conn: Conn, table_id: UUID) -> str | None:
    """A game table's operator; None for the system chain (or no such table)."""
    operator_id: str | None = await conn.fetchval("SELECT operator_id FROM game_tables WHERE table_id = $1", table_id)
    return operator_id


async def select_head(conn: Conn, table_id: UUID) -> AuditHead | None:
    """A chain's committed head and tree, read as one row (no lock: a checkpoint of it is true whatever comes next)."""
    record = await conn.fetchrow(f"SELECT * FROM ({_HEADS}) AS h WHERE table_id = $1", table_id)  # noqa: S608 - ours
    return None if record is None else head_of(record)


async def lock_table_head(conn: Conn, table_id: UUID) -> AuditHead | None:
    """A game table's or an In Between game's head, locked to the transaction's end: nothing extends the chain
    meanwhile."""
    record = await conn.fetchrow(
        "SELECT audit_seq, audit_hash, audit_at, audit_tree FROM game_tables WHERE table_id = $1 FOR UPDATE", table_id
    ) or await conn.fetchrow(
        "SELECT audit_seq, audit_hash, audit_at, audit_tree FROM inbetween_games WHERE game_id = $1 FOR UPDATE",
        table_id,
    )
    return None if record is None else head_of(record)


# What the background pass looks at: the tables, the games still being played (one that ended was signed in the
# append that ended it, and ended games pile up), the system chain.
_PASS_HEADS = _TABLE_HEADS + _GAME_HEADS + " WHERE ended_at IS NULL" + _SYSTEM_HEAD


async def select_unanchored_heads(conn: Conn, older_than: datetime, *, ended_games: bool = False) -> list[ChainHead]:
    """Chains with records past their latest checkpoint, when that checkpoint was signed before `older_than` (or
    there is none): what the background pass anchors. `ended_games` reads the ended games too (a replica's first
    pass: games that ended before migration 023, or while no key signed)."""
    records = await conn.fetch(
        f"SELECT h.* FROM ({_HEADS if ended_games else _PASS_HEADS}) AS h"  # noqa: S608 - ours
        " LEFT JOIN LATERAL (SELECT c.tree_size, c.created_at FROM audit_checkpoints c"
        "  WHERE c.table_id = h.table_id ORDER BY c.tree_size DESC LIMIT 1) AS c ON true"
        " WHERE h.audit_seq > coalesce(c.tree_size, 0) AND coalesce(c.created_at, '-infinity') <= $1",
        older_than,
    )
    return [ChainHead(table_id=r["table_id"], head=head_of(r), operator_id=r["operator_id"]) for r in records]


async def select_record_hashes(conn: Conn, table_id: UUID, size: int) -> list[bytes]:
    """The chain hashes of records 1..size, in seq order: a proof's leaves."""
    records = await conn.fetch(
        "SELECT hash FROM audit_log WHERE table_id = $1 AND seq <= $2 AND batch_seq <= $2 ORDER BY seq", table_id, size
    )
    return [r["hash"] for r in records]


class StoredRecord(msgspec.Struct, frozen=True, kw_only=True):
    seq: int
    prev_hash: bytes
    hash: bytes
    body: bytes


class RoundChain(msgspec.Struct, frozen=True, kw_only=True):
    """A round's table and its records in that table's chain."""

    table_id: UUID
    records: list[StoredRecord]


async def select_round_chain(conn: Conn, round_id: UUID, owner: str | None) -> RoundChain | None:
    """The round's records (seq order) if the caller may read the round; None when it may not or there is none."""
    table_id = await conn.fetchval(
        "SELECT table_id FROM rounds WHERE round_id = $1 AND ($2::text IS NULL OR operator_id = $2)", round_id, owner
    )
    if table_id is None:
        return None
    records = await conn.fetch(
        "SELECT seq, prev_hash, hash, body FROM audit_log WHERE table_id = $1 AND round_id = $2 ORDER BY seq",
        table_id,
        round_id,
    )
    found = [StoredRecord(seq=r["seq"], prev_hash=r["prev_hash"], hash=r["hash"], body=r["body"]) for r in records]
    return RoundChain(table_id=table_id, records=found)
