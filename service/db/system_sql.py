"""SQL for the system chain: its head, locked for an append, and moved with it; the signing keys it records."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from uuid import UUID

from audit.system_events import SYSTEM_CHAIN_ID, SigningKeyRotated, SystemEvent, decode_system_record, key_named
from service.db import Conn, Statement, audit_sql, execute_together
from service.db.audit_sql import AuditHead, head_of, tree_bytes

SYSTEM_CHAIN = UUID(SYSTEM_CHAIN_ID)
KEY_KINDS = ["service_started", "signing_key_rotated"]  # the records that say which key signs


async def lock_system_chain(conn: Conn) -> AuditHead:
    """The system chain's head, locked until the transaction ends: appends to it are one at a time."""
    record = await conn.fetchrow(
        "SELECT audit_seq, audit_hash, audit_at, audit_tree FROM system_chain WHERE table_id = $1 FOR UPDATE",
        SYSTEM_CHAIN,
    )
    if record is None:
        raise LookupError("no system chain: the migrations have not been applied")
    return head_of(record)


def update_system_chain(head: AuditHead) -> Statement:
    return Statement(
        sql="UPDATE system_chain SET audit_seq = $2, audit_hash = $3, audit_at = $4, audit_tree = $5"
        " WHERE table_id = $1",
        args=(SYSTEM_CHAIN, head.seq, head.hash, head.recorded_at, tree_bytes(head.merkle())),
    )


async def system_chain_exists(conn: Conn) -> bool:
    return bool(await conn.fetchval("SELECT to_regclass('system_chain') IS NOT NULL"))


async def append_now(conn: Conn, events: Sequence[SystemEvent], now: datetime) -> None:
    """Append in a transaction of its own, outside any unit of work (migrations); the background pass anchors it."""
    async with conn.transaction():
        head = await lock_system_chain(conn)
        writes, new_head = audit_sql.append(SYSTEM_CHAIN, head, events, test=False, now=now)
        await execute_together(conn, [*writes, update_system_chain(new_head)])


async def last_recorded_key(conn: Conn) -> str | None:
    """The signing key the system chain last recorded in force: the newest start or rotation that names one (a
    start without a key signed nothing, so it says nothing). Needs a transaction (a cursor)."""
    sql = "SELECT body FROM audit_log WHERE table_id = $1 AND kind = ANY($2::text[]) ORDER BY seq DESC"
    async for row in conn.cursor(sql, SYSTEM_CHAIN, KEY_KINDS, prefetch=50):
        key = key_named(row["body"])
        if key:
            return key
    return None


async def select_key_rotations(conn: Conn) -> list[SigningKeyRotated]:
    """Every signing key rotation the system chain records, oldest first."""
    rows = await conn.fetch(
        "SELECT body FROM audit_log WHERE table_id = $1 AND kind = 'signing_key_rotated' ORDER BY seq", SYSTEM_CHAIN
    )
    found = [decode_system_record(r["body"]).event for r in rows]
    return [event for event in found if isinstance(event, SigningKeyRotated)]
