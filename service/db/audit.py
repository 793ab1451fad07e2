"""SQL for the audit log: append to a table's chain, read it back."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from uuid import UUID

import msgspec

from audit.chain import Link, Record, extend
from paytables.round import Event
from service.db import Conn, Statement


class AuditHead(msgspec.Struct, frozen=True, kw_only=True):
    """The last record of a table's chain, read under the table row's lock."""

    seq: int
    hash: bytes


async def lock_head(conn: Conn, table_id: UUID) -> AuditHead:
    record = await conn.fetchrow(
        "SELECT audit_seq, audit_hash FROM game_tables WHERE table_id = $1 FOR UPDATE", table_id
    )
    if record is None:
        raise LookupError(f"no table {table_id} to append audit records to")
    return AuditHead(seq=record["audit_seq"], hash=record["audit_hash"])


async def append_events(
    conn: Conn,
    table_id: UUID,
    events: Sequence[Event],
    *,
    test: bool,
    now: datetime,
    head: AuditHead | None = None,
) -> list[Statement]:
    """The writes that append events to the table's chain; the table row lock keeps seq gap-free until commit.

    Pass `head` when this transaction already locked the table row and has not appended since (saves a query).
    """
    if not events:
        return []
    if head is None:
        head = await lock_head(conn, table_id)
    stamp = now.isoformat().replace("+00:00", "Z")
    records = [
        Record(
            table_id=str(table_id),
            seq=head.seq + i + 1,
            recorded_at=stamp,
            kind=e.kind,
            round_id=e.round_id,
            bet_id=e.bet_id,
            test=test,
            payload=e.payload,
        )
        for i, e in enumerate(events)
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
            [now] * len(links),
            [r.kind for r in records],
            [None if r.round_id is None else UUID(r.round_id) for r in records],
            [r.bet_id for r in records],
            [test] * len(links),
            [link.body for link in links],
        ),
    )
    move_head = Statement(
        sql="UPDATE game_tables SET audit_seq = $2, audit_hash = $3 WHERE table_id = $1",
        args=(table_id, links[-1].seq, links[-1].hash),
    )
    return [insert, move_head]


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
