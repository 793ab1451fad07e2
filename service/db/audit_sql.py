"""SQL for the audit log: append events to a table's chain under its row lock, read chains back."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from uuid import UUID

import asyncpg
import msgspec

from audit.chain import GENESIS, Link, Record, extend
from paytables.events import Event, bet_id_of, kind_of, round_id_of
from service.db import Conn, Statement


class AuditHead(msgspec.Struct, frozen=True, kw_only=True):
    """The last record of a table's chain, read under the table row's lock."""

    seq: int
    hash: bytes
    recorded_at: datetime | None  # None before the first record written with this column


GENESIS_HEAD = AuditHead(seq=0, hash=GENESIS, recorded_at=None)  # a new table's chain, before its first record


class TableLock(msgspec.Struct, frozen=True, kw_only=True):
    """What a transaction holding a table row's lock knows of it: the chain head and whether it has closed."""

    head: AuditHead
    closed: bool


_HEAD_COLUMNS = ("audit_seq", "audit_hash", "audit_at", "status")


def head_columns(prefix: str = "") -> str:
    """The game_tables columns a TableLock is read from, for a SELECT list (`prefix` an alias such as "t.")."""
    return ", ".join(prefix + column for column in _HEAD_COLUMNS)


def table_lock_of(record: asyncpg.Record) -> TableLock:
    """The lock's view from a row selected with head_columns()."""
    head = AuditHead(seq=record["audit_seq"], hash=record["audit_hash"], recorded_at=record["audit_at"])
    return TableLock(head=head, closed=record["status"] == "closed")


async def lock_table_for_append(conn: Conn, table_id: UUID) -> TableLock:
    record = await conn.fetchrow(
        f"SELECT {head_columns()} FROM game_tables WHERE table_id = $1 FOR UPDATE",  # noqa: S608 - our columns
        table_id,
    )
    if record is None:
        raise LookupError(f"no table {table_id} to append audit records to")
    return table_lock_of(record)


def append(
    table_id: UUID, head: AuditHead, events: Sequence[Event], *, test: bool, now: datetime
) -> tuple[list[Statement], AuditHead]:
    """The writes that append events to the table's chain, and the head after them. The caller holds the table row
    lock, which keeps seq gap-free until commit."""
    if not events:
        return [], head
    # Never before the previous record: clocks of two replicas (or one clock read before a lock wait) may disagree.
    stamp = now if head.recorded_at is None else max(now, head.recorded_at)
    records = [
        Record(table_id=str(table_id), seq=head.seq + i + 1, recorded_at=stamp, test=test, event=event)
        for i, event in enumerate(events)
    ]
    links = extend(head.hash, records)
    insert = Statement(
        sql="INSERT INTO audit_log (table_id, seq, prev_hash, hash, recorded_at, kind, round_id, bet_id, test, body)"
        " SELECT $1, * FROM unnest($2::bigint[], $3::bytea[], $4::bytea[], $5::timestamptz[], $6::text[],"
        "  $7::uuid[], $8::text[], $9::boolean[], $10::bytea[])",
        args=(
            table_id,
            [link.seq for link in links],
            [link.prev_hash for link in links],
            [link.hash for link in links],
            [stamp] * len(links),
            [kind_of(e) for e in events],
            [_uuid(round_id_of(e)) for e in events],
            [bet_id_of(e) for e in events],
            [test] * len(links),
            [link.body for link in links],
        ),
    )
    new_head = AuditHead(seq=links[-1].seq, hash=links[-1].hash, recorded_at=stamp)
    return [insert], new_head


def _uuid(value: str | None) -> UUID | None:
    return None if value is None else UUID(value)


async def select_chain(conn: Conn, table_id: UUID) -> list[Link]:
    records = await conn.fetch(
        "SELECT seq, prev_hash, hash, body FROM audit_log WHERE table_id = $1 ORDER BY seq", table_id
    )
    return [Link(seq=r["seq"], prev_hash=r["prev_hash"], hash=r["hash"], body=r["body"]) for r in records]


async def select_table_ids(conn: Conn) -> list[UUID]:
    return [r["table_id"] for r in await conn.fetch("SELECT table_id FROM game_tables ORDER BY created_at")]


async def select_round_records(conn: Conn, round_id: UUID) -> list[bytes]:
    records = await conn.fetch("SELECT body FROM audit_log WHERE round_id = $1 ORDER BY table_id, seq", round_id)
    return [r["body"] for r in records]
