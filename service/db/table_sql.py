"""SQL for game tables: the settings as columns, the cut-card shoe between rounds, the audit chain's head."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

import asyncpg
import msgspec

from paytables.red_dog.table import TableSettings, TableStatus
from service.db import Conn, Statement
from service.db.audit_sql import AuditHead, TableLock, head_columns, table_lock_of, tree_bytes
from service.db.row_reads import Found, Missing, Mode, OneRow, Replay, read_one, select_one

SETTINGS = TableSettings.__struct_fields__  # one column per setting, named alike


class TableRow(msgspec.Struct, frozen=True, kw_only=True):
    table_id: UUID
    operator_id: str
    settings: TableSettings
    status: TableStatus
    created_at: datetime
    closed_at: datetime | None = None
    active_round_id: UUID | None = None  # cut-card tables: the one round in progress


class Unset(msgspec.Struct, frozen=True):
    """A column an update leaves alone."""


UNSET = Unset()
_OTHER = ("table_id", "operator_id", "status", "created_at", "closed_at", "active_round_id")


def _columns(prefix: str = "") -> str:
    """The columns a TableRow is read from, for a SELECT list (`prefix` an alias such as "t.")."""
    return ", ".join(prefix + name for name in (*_OTHER, *SETTINGS))


_COLUMNS = _columns()
ONE_TABLE = OneRow(
    columns=f"{_columns('t.')}, t.shoe, {head_columns('t.')}",
    source="game_tables t",
    owner="t",
    id_column="table_id",
    locks="t",
)
# A read that changes nothing needs the table's settings only: not its secret shoe, nor the head and the checkpoint
# size, which cost a subquery.
TABLE_SETTINGS = msgspec.structs.replace(ONE_TABLE, columns=_columns("t."))


def _row(record: asyncpg.Record) -> TableRow:
    fields = {name: record[name] for name in _OTHER}
    return msgspec.convert({**fields, "settings": {name: record[name] for name in SETTINGS}}, TableRow)


async def insert_table(conn: Conn, table: TableRow, shoe: bytes | None, head: AuditHead) -> None:
    """A new table, with its audit chain's head already past the records of its creation."""
    values: dict[str, Any] = {
        **{name: getattr(table, name) for name in _OTHER},
        **msgspec.structs.asdict(table.settings),
        "shoe": shoe,
        "audit_seq": head.seq,
        "audit_hash": head.hash,
        "audit_at": head.recorded_at,
        "audit_tree": tree_bytes(head.merkle()),
    }
    placeholders = ", ".join(f"${i}" for i in range(1, len(values) + 1))
    await conn.execute(
        f"INSERT INTO game_tables ({', '.join(values)}) VALUES ({placeholders})",  # noqa: S608 - column names are ours
        *values.values(),
    )


async def select_table(conn: Conn, operator_id: str, table_id: UUID) -> TableRow | None:
    """One of the operator's tables, not locked (reads)."""
    record = await select_one(conn, TABLE_SETTINGS, table_id, operator_id)
    return None if record is None else _row(record)


class LockedTable(msgspec.Struct, frozen=True, kw_only=True):
    """A table row this transaction has locked: its settings, its audit chain's head, and its cut-card shoe."""

    table: TableRow
    lock: TableLock
    shoe: bytes | None  # a cut-card table's shoe between rounds (secret: never shown); None for per-round shoes


async def lock_table(conn: Conn, operator_id: str, table_id: UUID, mode: Mode) -> Found[LockedTable] | Replay | Missing:
    """One of the operator's tables with its audit chain head and shoe, read as the unit's mode says: locked for this
    transaction (claiming the request's key in the same statement), or unlocked with the key looked up."""
    read = await read_one(conn, ONE_TABLE, table_id, operator_id, mode)
    if not isinstance(read, Found):
        return read
    record = read.value
    return Found(LockedTable(table=_row(record), lock=table_lock_of(record), shoe=record["shoe"]))


async def select_tables(conn: Conn, operator_id: str) -> list[TableRow]:
    records = await conn.fetch(
        f"SELECT {_COLUMNS} FROM game_tables WHERE operator_id = $1"  # noqa: S608 - column names are ours
        " ORDER BY created_at DESC, table_id DESC",
        operator_id,
    )
    return [_row(r) for r in records]


def update_table(
    table_id: UUID,
    head: AuditHead,
    *,
    replaces: int,
    shoe: bytes | Unset | None = UNSET,
    active_round_id: UUID | Unset | None = UNSET,
    closed_at: datetime | Unset = UNSET,
    checkpoint_size: int | None = None,
) -> Statement:
    """Every change a transaction makes to a table row, in one statement: its audit head always, and the others
    it names (deferred writes run together as CTEs, which must never touch one row twice).

    `replaces` is the audit sequence number of the head the change was computed from: the update fails the whole
    statement with a serialization failure (migration 011) if the row holds another, so a request that read the
    row without locking it never writes over a change it did not see. It leads the writes it is combined with.

    `checkpoint_size`, when given, must still be the size of the table's latest checkpoint, which a background pass
    or a proof request may sign without moving the head: a request that started from a remembered row, not a read
    (recent_rows), fails the same way when one was signed since."""
    changes: dict[str, Any] = {
        "audit_seq": head.seq,
        "audit_hash": head.hash,
        "audit_at": head.recorded_at,
        "audit_tree": tree_bytes(head.merkle()),
    }
    if not isinstance(shoe, Unset):
        changes["shoe"] = shoe
    if not isinstance(active_round_id, Unset):
        changes["active_round_id"] = active_round_id
    if not isinstance(closed_at, Unset):
        changes.update(status=TableStatus.CLOSED.value, closed_at=closed_at)
    assignments = ", ".join(f"{name} = ${i}" for i, name in enumerate(changes, start=2))
    guard = f"reddog_expect_head(audit_seq, ${len(changes) + 2})"
    expected: tuple[int, ...] = (replaces,)
    if checkpoint_size is not None:  # the same check: any two sizes that differ fail the statement (40001)
        guard += f" AND reddog_expect_head({LATEST_CHECKPOINT}, ${len(changes) + 3})"
        expected += (checkpoint_size,)
    return Statement(
        sql=f"UPDATE game_tables SET {assignments} WHERE table_id = $1 AND {guard} RETURNING 1",  # noqa: S608 - ours
        args=(table_id, *changes.values(), *expected),
        leads=True,
    )


LATEST_CHECKPOINT = "(SELECT coalesce(max(c.tree_size), 0) FROM audit_checkpoints c WHERE c.table_id = $1)"
