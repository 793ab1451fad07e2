"""`reddog audit accept-fork`: the operator's decision that a chain behind (or other than) its published checkpoint
goes on from the head the database holds, recorded on the system chain with who decided, why, the checkpoint given
up and the head kept; the checkpoint store then keeps that head, which lifts the fork guard's refusal."""

from __future__ import annotations

import base64
from uuid import UUID

from audit.merkle import CompactRange
from audit.system_events import ForkAccepted
from service.chains import checkpoint_store, fork_guard, system_chain
from service.chains.checkpoint_store import Kept
from service.db import checkpoint_sql, system_sql
from service.db.audit_sql import AuditHead
from service.db.unit_of_work import UnitOfWork


class NothingToAccept(Exception):
    """The command cannot record a decision: no store, nothing kept, no fork, or the system chain must go first."""


SYSTEM = system_sql.SYSTEM_CHAIN


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


async def accept_fork(unit: UnitOfWork, table_id: UUID, by: str, note: str) -> ForkAccepted:
    """Record the decision and keep the chain's current head in the store; refused when there is nothing to accept."""
    guard = fork_guard.guard_of(unit.settings)
    if guard is None:
        raise NothingToAccept("RD_CHECKPOINT_STORE is not set: there is no fork guard to lift")
    entry = checkpoint_store.read(guard.store, table_id)
    if entry is None:
        raise NothingToAccept(f"the checkpoint store keeps nothing of chain {table_id}")
    if table_id != SYSTEM:
        system = checkpoint_store.read(guard.store, SYSTEM)
        if system is not None and await fork_guard.judge(unit.conn, system.kept) is not None:
            detail = "the system chain is fenced too: accept it first (--table system)"
            raise NothingToAccept(detail)
    head = await _locked_head(unit, table_id)
    verdict = await fork_guard.judge(unit.conn, entry.kept)
    if verdict is None:
        raise NothingToAccept(f"chain {table_id} still holds its published checkpoint: nothing to accept")
    root = (head.merkle() if head is not None else CompactRange()).root()
    size = 0 if head is None else head.seq
    accepted = ForkAccepted(
        table_id=str(table_id),
        by=by,
        note=note,
        lost_size=entry.kept.tree_size,
        lost_root=_b64(entry.kept.root),
        lost_note=entry.kept.note,
        head_size=size,
        head_root=_b64(root),
        accepted_at=unit.now,
    )
    # The store first, under the chain's lock: a replica that sees it lets the chain go on only from this very head.
    checkpoint_store.accept(guard.store, Kept(table_id=table_id, tree_size=size, root=root, accepted_by=by))
    await system_chain.append(unit, [accepted])
    return accepted


async def _locked_head(unit: UnitOfWork, table_id: UUID) -> AuditHead | None:
    if table_id == SYSTEM:
        return await system_sql.lock_system_chain(unit.conn)
    return await checkpoint_sql.lock_table_head(unit.conn, table_id)
