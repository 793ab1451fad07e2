"""SQL for game tables."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

import asyncpg
import msgspec

from audit.chain import GENESIS
from service.db import Conn
from service.db.audit import AuditHead


class TableRow(msgspec.Struct, frozen=True, kw_only=True):
    table_id: UUID
    operator_id: str
    name: str
    paytable_id: str
    paytable_sha256: str
    decks: int
    shoe_policy: str
    penetration: int | None
    currency: str
    min_ante: int
    max_ante: int
    max_bets: int
    raise_window_seconds: int
    mode: str
    status: str
    created_at: datetime
    closed_at: datetime | None = None
    active_round_id: UUID | None = None


_COLUMNS = (
    "table_id, operator_id, name, paytable_id, paytable_sha256, decks, shoe_policy, penetration, currency,"
    " min_ante, max_ante, max_bets, raise_window_seconds, mode, status, created_at, closed_at, active_round_id"
)


def _row(record: asyncpg.Record) -> TableRow:
    return TableRow(**dict(record))


async def insert_table(conn: Conn, table: TableRow, shoe: bytes | None) -> None:
    await conn.execute(
        "INSERT INTO game_tables (table_id, operator_id, name, paytable_id, paytable_sha256, decks, shoe_policy,"
        " penetration, currency, min_ante, max_ante, max_bets, raise_window_seconds, mode, status, created_at,"
        " shoe, audit_hash)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)",
        table.table_id,
        table.operator_id,
        table.name,
        table.paytable_id,
        table.paytable_sha256,
        table.decks,
        table.shoe_policy,
        table.penetration,
        table.currency,
        table.min_ante,
        table.max_ante,
        table.max_bets,
        table.raise_window_seconds,
        table.mode,
        table.status,
        table.created_at,
        shoe,
        GENESIS,
    )


async def select_table(conn: Conn, operator_id: str, table_id: UUID) -> TableRow | None:
    """One of the operator's tables, not locked (reads)."""
    record = await conn.fetchrow(
        f"SELECT {_COLUMNS} FROM game_tables WHERE table_id = $1 AND operator_id = $2",  # noqa: S608
        table_id,
        operator_id,
    )
    return None if record is None else _row(record)


async def lock_table(conn: Conn, operator_id: str, table_id: UUID) -> tuple[TableRow, AuditHead] | None:
    """One of the operator's tables, locked for this transaction, with its audit chain head."""
    record = await conn.fetchrow(
        f"SELECT {_COLUMNS}, audit_seq, audit_hash FROM game_tables"  # noqa: S608
        " WHERE table_id = $1 AND operator_id = $2 FOR UPDATE",
        table_id,
        operator_id,
    )
    if record is None:
        return None
    fields = dict(record)
    head = AuditHead(seq=fields.pop("audit_seq"), hash=fields.pop("audit_hash"))
    return TableRow(**fields), head


async def select_tables(conn: Conn, operator_id: str) -> list[TableRow]:
    records = await conn.fetch(
        f"SELECT {_COLUMNS} FROM game_tables WHERE operator_id = $1"  # noqa: S608
        " ORDER BY created_at DESC, table_id DESC",
        operator_id,
    )
    return [_row(r) for r in records]


async def select_table_shoe(conn: Conn, table_id: UUID) -> bytes | None:
    value: bytes | None = await conn.fetchval("SELECT shoe FROM game_tables WHERE table_id = $1", table_id)
    return value


async def update_table_shoe(conn: Conn, table_id: UUID, shoe: bytes | None, active_round_id: UUID | None) -> None:
    await conn.execute(
        "UPDATE game_tables SET shoe = $2, active_round_id = $3 WHERE table_id = $1", table_id, shoe, active_round_id
    )


async def update_table_closed(conn: Conn, table_id: UUID, closed_at: datetime) -> None:
    await conn.execute(
        "UPDATE game_tables SET status = 'closed', closed_at = $2 WHERE table_id = $1", table_id, closed_at
    )


async def lock_table_status(conn: Conn, table_id: UUID) -> str:
    status: str = await conn.fetchval("SELECT status FROM game_tables WHERE table_id = $1 FOR UPDATE", table_id)
    return status
