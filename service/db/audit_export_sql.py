"""SQL the audit export reads: the tables a caller may export, their heads and checkpoints, records in seq order."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime
from uuid import UUID

import asyncpg
import msgspec

from service.db import Conn
from service.db.audit_sql import seqs_between

# Migration 004 (the service's checkpoints) makes the checkpoint table and the system chain's head; until it exists
# there are no checkpoints and no system chain to export.
CHECKPOINT_TABLE = "audit_checkpoints"
SYSTEM_CHAIN_TABLE = "system_chain"
SYSTEM_OPERATOR = "system"  # the system chain belongs to no operator: only auditors export it


class ExportTable(msgspec.Struct, frozen=True, kw_only=True):
    table_id: UUID
    operator_id: str
    seq: int  # the chain head: its last seq and hash
    hash: bytes


class StoredRecord(msgspec.Struct, frozen=True, kw_only=True):
    """An audit_log row as it is stored."""

    seq: int
    prev_hash: bytes
    hash: bytes
    recorded_at: datetime
    kind: str
    round_id: UUID | None
    bet_id: str | None
    test: bool
    body: bytes


_RECORD_COLUMNS = "seq, prev_hash, hash, recorded_at, kind, round_id, bet_id, test, body"


async def select_export_tables(
    conn: Conn, *, operator_id: str | None, table_id: UUID | None = None, after: UUID | None = None
) -> list[ExportTable]:
    """The chains to export in table_id order (the one order of an export, which `verify` checks): one operator's
    tables and In Between games, or (None) every operator's and the system chain, for an auditor."""
    system = [] if operator_id is not None else await _system_chain(conn, table_id, after)
    rows = await conn.fetch(
        "SELECT table_id, operator_id, audit_seq, audit_hash FROM game_tables"
        " WHERE ($1::text IS NULL OR operator_id = $1) AND ($2::uuid IS NULL OR table_id = $2)"
        " AND ($3::uuid IS NULL OR table_id >= $3)"
        " UNION ALL SELECT game_id, operator_id, audit_seq, audit_hash FROM inbetween_games"
        " WHERE ($1::text IS NULL OR operator_id = $1) AND ($2::uuid IS NULL OR game_id = $2)"
        " AND ($3::uuid IS NULL OR game_id >= $3)"
        " ORDER BY 1",
        operator_id,
        table_id,
        after,
    )
    return sorted(
        system
        + [
            ExportTable(table_id=r["table_id"], operator_id=r["operator_id"], seq=r["audit_seq"], hash=r["audit_hash"])
            for r in rows
        ],
        key=lambda t: t.table_id,
    )


async def select_game_heads(conn: Conn) -> list[ExportTable]:
    """Every In Between game's chain and its head, in game_id order: `audit verify --db` folds these into games."""
    rows = await conn.fetch("SELECT game_id, operator_id, audit_seq, audit_hash FROM inbetween_games ORDER BY game_id")
    return [
        ExportTable(table_id=r["game_id"], operator_id=r["operator_id"], seq=r["audit_seq"], hash=r["audit_hash"])
        for r in rows
    ]


async def _system_chain(conn: Conn, table_id: UUID | None, after: UUID | None) -> list[ExportTable]:
    if await conn.fetchval("SELECT to_regclass($1)", SYSTEM_CHAIN_TABLE) is None:
        return []
    rows = await conn.fetch(
        f"SELECT table_id, audit_seq, audit_hash FROM {SYSTEM_CHAIN_TABLE}"  # noqa: S608 - a constant name
        " WHERE ($1::uuid IS NULL OR table_id = $1) AND ($2::uuid IS NULL OR table_id >= $2)",
        table_id,
        after,
    )
    return [
        ExportTable(table_id=r["table_id"], operator_id=SYSTEM_OPERATOR, seq=r["audit_seq"], hash=r["audit_hash"])
        for r in rows
    ]


async def select_checkpoints(conn: Conn, table_ids: list[UUID]) -> list[tuple[UUID, int, str]]:
    """Every checkpoint of these tables as (table_id, size, signed note text), smallest first: the one place the
    export reads checkpoints, so the checkpoint table's shape is known here only."""
    if await conn.fetchval("SELECT to_regclass($1)", CHECKPOINT_TABLE) is None:
        return []
    rows = await conn.fetch(
        f"SELECT table_id, tree_size, note FROM {CHECKPOINT_TABLE}"  # noqa: S608 - a constant name
        " WHERE table_id = ANY($1::uuid[]) ORDER BY table_id, tree_size",
        table_ids,
    )
    return [(r["table_id"], r["tree_size"], r["note"]) for r in rows]


async def select_records(conn: Conn, table_id: UUID, after_seq: int, last_seq: int, limit: int) -> list[StoredRecord]:
    """Records after `after_seq` up to `last_seq` (the head read first, so a page never passes it), in seq order."""
    rows = await conn.fetch(
        f"SELECT {_RECORD_COLUMNS} FROM audit_log"  # noqa: S608 - our columns
        " WHERE table_id = $1 AND seq > $2 AND seq <= $3"
        f" AND {seqs_between('$2', upto='$3')} ORDER BY seq LIMIT $4",
        table_id,
        after_seq,
        last_seq,
        limit,
    )
    return [_stored(r) for r in rows]


async def stream_records(conn: Conn, table_id: UUID, after_seq: int, last_seq: int) -> AsyncIterator[StoredRecord]:
    """The same, through a cursor: the caller holds a transaction, and memory stays flat however long the chain."""
    cursor = conn.cursor(
        f"SELECT {_RECORD_COLUMNS} FROM audit_log"  # noqa: S608 - our columns
        " WHERE table_id = $1 AND seq > $2 AND seq <= $3"
        f" AND {seqs_between('$2', upto='$3')} ORDER BY seq",
        table_id,
        after_seq,
        last_seq,
        prefetch=2000,
    )
    async for row in cursor:
        yield _stored(row)


async def select_hashes(conn: Conn, table_id: UUID, after_seq: int, before_seq: int) -> list[tuple[int, bytes]]:
    """(seq, hash) of the records strictly between two seqs: what an export `--since` keeps of older records."""
    rows = await conn.fetch(
        f"SELECT seq, hash FROM audit_log WHERE {seqs_between('$2', below='$3')}"  # noqa: S608 - our bounds
        " AND table_id = $1 AND seq > $2 AND seq < $3 ORDER BY seq",
        table_id,
        after_seq,
        before_seq,
    )
    return [(r["seq"], r["hash"]) for r in rows]


async def first_seq_since(conn: Conn, table_id: UUID, since: datetime) -> int | None:
    """The first seq recorded at or after `since` (recorded_at never goes back along a chain)."""
    value: int | None = await conn.fetchval(
        "SELECT min(seq) FROM audit_log WHERE table_id = $1 AND recorded_at >= $2", table_id, since
    )
    return value


def _stored(row: asyncpg.Record) -> StoredRecord:
    return StoredRecord(
        seq=row["seq"],
        prev_hash=row["prev_hash"],
        hash=row["hash"],
        recorded_at=row["recorded_at"],
        kind=row["kind"],
        round_id=row["round_id"],
        bet_id=row["bet_id"],
        test=row["test"],
        body=row["body"],
    )
