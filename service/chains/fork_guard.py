"""The fork guard: a chain whose head in the database is behind, or differs from, the checkpoint already published
for it (kept in the checkpoint store, outside the database) is not extended until an operator decides.

After an asynchronous failover or a point-in-time restore the database can hold a chain shorter than a checkpoint
auditors were handed; a record appended to it would make a second chain of that size, a fork the auditors would
rightly read as tampering. So every process compares the chains the store keeps with the database's heads whenever
it meets a database server it has not checked (the pool's connection hook: at start-up, after a failover, after a
restore), and before every append it compares the head it extends with the kept size. A refused chain answers 503
CHAIN_BEHIND_CHECKPOINT; every other chain goes on serving. `reddog audit accept-fork` records the decision on the
system chain and keeps the chain's current head in the store, after which the chain goes on from there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any
from uuid import UUID

import asyncpg
import msgspec
import structlog

from audit import merkle
from service.chains import checkpoint_store
from service.chains.checkpoint_store import Kept
from service.db import Conn, checkpoint_sql
from service.db.audit_sql import AuditHead
from service.errors import ApiError
from service.observability import metrics
from service.settings import Settings

log = structlog.get_logger("reddog.fork_guard")
# The server a connection reaches: a promoted standby or a restored server is another postmaster, started anew.
_SERVER = "SELECT pg_postmaster_start_time()::text, coalesce(host(inet_server_addr()), ''), inet_server_port()"


class Fenced(msgspec.Struct, frozen=True, kw_only=True):
    """A chain the guard refuses to extend, and why."""

    kept: Kept
    head_seq: int
    reason: str  # "behind" (the head is short of the kept size) or "differs" (another root at the kept size)


class Guard:
    """One process's view of the store: the kept entries it has read, the chains it refuses, the server it checked."""

    def __init__(self, store: Path) -> None:
        self.store = store
        self.kept: dict[UUID, checkpoint_store.Stamped] = {}
        self.fenced: dict[UUID, Fenced] = {}
        self.server: tuple[str, str, int] | None = None
        self.lock = asyncio.Lock()

    def refusal(self, table_id: UUID, head: AuditHead) -> ApiError | None:
        """The refusal for extending this chain from `head`, or None: cheap (a dict look-up) while nothing is wrong."""
        fenced = self.fenced.get(table_id)
        if fenced is not None and not self._accepted_since(table_id, head):
            metrics.FORK_REFUSALS.inc()
            return refused(table_id, fenced)
        entry = self.kept.get(table_id)
        if entry is None or head.seq > entry.kept.tree_size:
            return None
        if head.seq < entry.kept.tree_size or head.merkle().root() != entry.kept.root:
            reason = "behind" if head.seq < entry.kept.tree_size else "differs"
            self._fence(Fenced(kept=entry.kept, head_seq=head.seq, reason=reason))
            metrics.FORK_REFUSALS.inc()
            return refused(table_id, self.fenced[table_id])
        return None

    def _accepted_since(self, table_id: UUID, head: AuditHead) -> bool:
        """Whether an operator accepted this very head since the chain was fenced (the store's entry moved to it)."""
        old = self.kept.get(table_id)
        if old is not None and checkpoint_store.stamp_of(self.store, table_id) == old.stamp:
            return False
        entry = checkpoint_store.read(self.store, table_id)
        if entry is None:
            return False
        self.kept[table_id] = entry
        if entry.kept.tree_size != head.seq or entry.kept.root != head.merkle().root():
            return False
        self._clear(table_id)
        return True

    def published(self, kept: Kept) -> None:
        """Keep a checkpoint in the store before it is handed out (a no-op when the store already keeps it)."""
        entry = self.kept.get(kept.table_id)
        if entry is not None and entry.kept.tree_size >= kept.tree_size:
            return
        checkpoint_store.publish(self.store, kept)
        fresh = checkpoint_store.read(self.store, kept.table_id)
        if fresh is not None:
            self.kept[kept.table_id] = fresh

    def _fence(self, fenced: Fenced) -> None:
        if fenced.kept.table_id not in self.fenced:
            log.error(
                "chain_fenced",
                table_id=str(fenced.kept.table_id),
                reason=fenced.reason,
                head=fenced.head_seq,
                published_size=fenced.kept.tree_size,
            )
        self.fenced[fenced.kept.table_id] = fenced
        metrics.CHAINS_FENCED.set(len(self.fenced))

    def _clear(self, table_id: UUID) -> None:
        if self.fenced.pop(table_id, None) is not None:
            log.warning("chain_fork_accepted", table_id=str(table_id))
        metrics.CHAINS_FENCED.set(len(self.fenced))

    async def check_server(self, conn: Conn) -> None:
        """Compare every kept chain with this connection's server once per server (a new one: a failover, a restart
        or a restore), before the connection serves anything."""
        server = await conn.fetchrow(_SERVER)
        assert server is not None  # a SELECT of three values returns one row
        seen = (server[0], server[1], server[2])
        if seen == self.server:
            return
        async with self.lock:
            if seen == self.server:
                return
            await self.check_all(conn)
            self.server = seen

    async def check_all(self, conn: Conn) -> None:
        """Read the whole store again and judge every chain it keeps against the database's heads."""
        self.kept = checkpoint_store.read_all(self.store)
        for table_id, entry in self.kept.items():
            verdict = await judge(conn, entry.kept)
            if verdict is None:
                self._clear(table_id)
            else:
                self._fence(verdict)
        metrics.CHAINS_FENCED.set(len(self.fenced))

    async def refresh(self, conn: Conn) -> None:
        """The background pass's look at the store: entries other replicas (or an operator) changed are judged again."""
        for table_id, entry in checkpoint_store.read_all(self.store).items():
            old = self.kept.get(table_id)
            if old is not None and old.stamp == entry.stamp:
                continue
            self.kept[table_id] = entry
            verdict = await judge(conn, entry.kept)
            if verdict is None:
                self._clear(table_id)
            else:
                self._fence(verdict)


_SAID = {"behind": "behind", "differs": "different from"}


def refused(table_id: UUID, fenced: Fenced) -> ApiError:
    return ApiError(
        503,
        "CHAIN_BEHIND_CHECKPOINT",
        f"table {table_id}'s audit chain is {_SAID[fenced.reason]} the checkpoint already published for it (size"
        f" {fenced.kept.tree_size}; the database's head is {fenced.head_seq}): it is not extended until an operator"
        " runs `reddog audit accept-fork` (docs/runbooks.md#reddogchainbehindcheckpoint)",
    )


async def judge(conn: Conn, kept: Kept) -> Fenced | None:
    """Whether the database's chain still holds the kept checkpoint: None, or why not."""
    head = await checkpoint_sql.select_head(conn, kept.table_id)
    if head is None or head.seq < kept.tree_size:
        return Fenced(kept=kept, head_seq=0 if head is None else head.seq, reason="behind")
    if head.seq == kept.tree_size:
        root = head.merkle().root()
    else:
        stored = await checkpoint_sql.select_checkpoint(conn, kept.table_id, kept.tree_size)
        if stored is not None:
            root = stored.root
        else:  # the database never signed at that size: its records say what the root there is
            root = merkle.root(await checkpoint_sql.select_record_hashes(conn, kept.table_id, kept.tree_size))
    return None if root == kept.root else Fenced(kept=kept, head_seq=head.seq, reason="differs")


_guards: dict[str, Guard] = {}


def guard_of(settings: Settings) -> Guard | None:
    """The process's guard for the settings' store (one per directory); None when no store is configured."""
    if settings.checkpoint_store is None:
        return None
    guard = _guards.get(settings.checkpoint_store)
    if guard is None:
        guard = _guards[settings.checkpoint_store] = Guard(Path(settings.checkpoint_store))
    return guard


def connection_hook(settings: Settings) -> Callable[[asyncpg.Connection], Coroutine[Any, Any, None]] | None:
    """The pool's `init`: each new connection checks its server before it serves (None: no store, no hook)."""
    guard = guard_of(settings)
    if guard is None:
        return None

    async def init(conn: asyncpg.Connection) -> None:
        await guard.check_server(conn)

    return init
