"""SQL for the system chain: its head, locked for an append, and moved with it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from uuid import UUID

from audit.system_events import SYSTEM_CHAIN_ID, SystemEvent
from service.db import Conn, Statement, audit_sql, execute_together
from service.db.audit_sql import AuditHead, head_of, tree_bytes

SYSTEM_CHAIN = UUID(SYSTEM_CHAIN_ID)


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
