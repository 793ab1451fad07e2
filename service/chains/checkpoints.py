"""Signed checkpoints of every chain: in the append that takes a chain past each N records, and for what is left
unanchored, a background pass every replica runs that signs a chain's head once its last checkpoint is T seconds old.

Both read the chain's tree head (kept incrementally with the chain's head), so signing costs one Ed25519 signature
and one row, never a pass over history. A checkpoint is a pure function of (table, size): replicas that race sign
the same bytes, and the (table_id, tree_size) key keeps one.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Sequence
from datetime import datetime, timedelta
from uuid import UUID

import asyncpg
import msgspec
import structlog

from audit.checkpoint import Checkpoint, sign_checkpoint
from audit.proof_check import table_origin
from audit.signed_note import Signer, parse_signer
from audit.system_events import SystemEvent
from paytables.inbetween.inbetween_events import InBetweenEvent
from paytables.red_dog.events import Event
from service.chains import fork_guard, notifications
from service.chains.checkpoint_store import Kept
from service.db import Statement, audit_sql, checkpoint_sql, execute_together
from service.db.audit_sql import AuditHead
from service.db.checkpoint_sql import StoredCheckpoint
from service.db.unit_of_work import Runner, UnitOfWork, run
from service.observability import metrics
from service.settings import Settings

log = structlog.get_logger("reddog.checkpoints")
CHECKPOINTER = "checkpointer"  # the unit of work's operator for the background pass


@functools.lru_cache(maxsize=4)
def _parsed(key_text: str) -> Signer:
    return parse_signer(key_text)


def signer_of(settings: Settings) -> Signer | None:
    """The checkpoint signer (checked when the settings were read); None when checkpoints are off (development)."""
    return None if settings.audit_signing_key is None else _parsed(settings.audit_signing_key)


def sign(signer: Signer, table_id: UUID, head: AuditHead) -> tuple[bytes, str]:
    """The root of the chain's first head.seq records and the signed checkpoint note over it."""
    root = head.merkle().root()
    origin = table_origin(signer.name, str(table_id))
    return root, sign_checkpoint(Checkpoint(origin=origin, size=head.seq, root=root), signer)


class Signed(msgspec.Struct, frozen=True, kw_only=True):
    """A checkpoint signed now: what its notification tells the table's operator."""

    table_id: UUID
    tree_size: int
    root: bytes
    note: str


def checkpoint_writes(signer: Signer, table_id: UUID, head: AuditHead, now: datetime) -> Statement:
    return _signed_writes(signer, table_id, head, now)[0]


def _signed_writes(signer: Signer, table_id: UUID, head: AuditHead, now: datetime) -> tuple[Statement, Signed]:
    root, note = sign(signer, table_id, head)
    signed = Signed(table_id=table_id, tree_size=head.seq, root=root, note=note)
    return checkpoint_sql.insert_checkpoint(table_id, head.seq, root, note, now), signed


class Appended(msgspec.Struct, frozen=True, kw_only=True):
    """An append's writes, the chain's head after it, and the size of the chain's latest checkpoint after it."""

    writes: list[Statement]
    head: AuditHead
    checkpoint_size: int
    signed: Signed | None = None  # the checkpoint this append signed, if it took the chain past a multiple of N


def append(
    unit: UnitOfWork,
    table_id: UUID,
    head: AuditHead,
    events: Sequence[Event] | Sequence[InBetweenEvent] | Sequence[SystemEvent],
    *,
    test: bool,
    checkpoint_size: int = 0,
    now: datetime | None = None,
    last: bool = False,
) -> Appended:
    """audit_sql.append, plus the chain's checkpoint when these records take it past a multiple of N, or are its
    `last` (a game's end: the background pass no longer looks at an ended game)."""
    at = now or unit.now
    guard = fork_guard.guard_of(unit.settings)
    refusal = None if guard is None else guard.refusal(table_id, head)
    if refusal is not None:  # a fork of a published chain: nothing is written until an operator decides
        raise refusal
    writes, new_head = audit_sql.append(table_id, head, events, test=test, now=at)
    unit.after_commit.append(lambda: metrics.record_audit(audit_sql.kind_of(e) for e in events))
    signer = signer_of(unit.settings)
    every = unit.settings.checkpoint_every_records
    signed = None
    if signer is not None and (last or new_head.seq // every > head.seq // every):
        write, signed = _signed_writes(signer, table_id, new_head, at)
        writes.append(write)
        checkpoint_size = new_head.seq
        unit.after_commit.append(lambda: metrics.observe_checkpoint(at))
        publish_after_commit(unit, signed)
    return Appended(writes=writes, head=new_head, checkpoint_size=checkpoint_size, signed=signed)


def publish_after_commit(unit: UnitOfWork, signed: Signed) -> None:
    """Keep a checkpoint just signed in the checkpoint store once it commits, before anything hands it out."""
    guard = fork_guard.guard_of(unit.settings)
    if guard is not None:
        kept = Kept(table_id=signed.table_id, tree_size=signed.tree_size, root=signed.root, note=signed.note)
        unit.after_commit.append(lambda: guard.published(kept))


def published(settings: Settings, checkpoint: StoredCheckpoint) -> StoredCheckpoint:
    """A stored checkpoint about to be handed out, kept in the checkpoint store first (if it was not yet)."""
    guard = fork_guard.guard_of(settings)
    if guard is not None:
        root, size = checkpoint.root, checkpoint.tree_size
        guard.published(Kept(table_id=checkpoint.table_id, tree_size=size, root=root, note=checkpoint.note))
    return checkpoint


def _told(unit: UnitOfWork, operator_id: str | None, signed: Signed) -> list[Statement]:
    """The notification of a checkpoint over an operator's table (none for the system chain or the friends')."""
    if operator_id is None or operator_id not in unit.settings.operators:
        return []
    return notifications.checkpoint_notification(
        unit.settings, operator_id, signed.table_id, signed.tree_size, signed.root, signed.note, unit.now
    )


async def covering(unit: UnitOfWork, table_id: UUID, seq: int) -> StoredCheckpoint | None:
    """The chain's latest checkpoint, signed now over its head when none yet covers record `seq` (a proof asked
    for a round that has just been played); None when checkpoints are off."""
    latest = await checkpoint_sql.select_latest_checkpoint(unit.conn, table_id)
    if latest is not None and latest.tree_size >= seq:
        return latest
    signer = signer_of(unit.settings)
    head = await checkpoint_sql.select_head(unit.conn, table_id)
    if signer is None or head is None or head.seq < seq:
        return latest
    guard = fork_guard.guard_of(unit.settings)
    if guard is not None and table_id in guard.fenced:  # a fenced chain's head is not signed: an auditor holds more
        return latest
    write, signed = _signed_writes(signer, table_id, head, unit.now)
    operator_id = await checkpoint_sql.select_operator(unit.conn, table_id)
    # The notification too: its id is the table's and the size's, so replicas that race here announce it once.
    await execute_together(unit.conn, [write, *_told(unit, operator_id, signed)])
    signed_at = unit.now
    unit.after_commit.append(lambda: metrics.observe_checkpoint(signed_at))
    publish_after_commit(unit, signed)
    return await checkpoint_sql.select_checkpoint(unit.conn, table_id, head.seq)


async def anchor_due(runner: Runner, *, ended_games: bool = False) -> int:
    """Sign a checkpoint of every chain that has records past a checkpoint at least T seconds old; how many. Ended
    games are signed in the append that ends them, so they are looked at only when asked (`ended_games`)."""
    signer = signer_of(runner.settings)
    if signer is None:
        return 0

    async def work(unit: UnitOfWork) -> int:
        older_than = unit.now - timedelta(seconds=unit.settings.checkpoint_every_seconds)
        guard = fork_guard.guard_of(unit.settings)
        if guard is not None:
            await guard.refresh(unit.conn)
        due = await checkpoint_sql.select_unanchored_heads(unit.conn, older_than, ended_games=ended_games)
        due = [c for c in due if guard is None or c.table_id not in guard.fenced]
        for chain in due:
            write, signed = _signed_writes(signer, chain.table_id, chain.head, unit.now)
            unit.defer([write, *_told(unit, chain.operator_id, signed)])
            publish_after_commit(unit, signed)
        if due:
            signed_at = unit.now
            unit.after_commit.append(lambda: metrics.observe_checkpoint(signed_at))
        return len(due)

    return await run(runner, CHECKPOINTER, work)


async def observe_newest(pool: asyncpg.Pool) -> None:
    """At start-up: the checkpoint-timestamp gauge from the newest checkpoint of any chain (none yet: left at 0)."""
    try:
        async with pool.acquire() as conn:
            newest: datetime | None = await conn.fetchval("SELECT max(created_at) FROM audit_checkpoints")
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:  # not migrated yet, database away
        log.warning("checkpoint_time_unknown", error=type(exc).__name__)
        return
    if newest is not None:
        metrics.observe_checkpoint(newest)


def pass_interval(settings: Settings) -> float:
    """How often the background pass looks: a quarter of T, within 1..15 s (the query is one index probe a chain)."""
    return min(15.0, max(1.0, settings.checkpoint_every_seconds / 4))


async def run_forever(runner: Runner) -> None:
    """The background loop each replica runs; a failed pass is logged and the next one tries again. The first pass
    after start reads the ended games too, so none is left unsigned (the later ones read only those being played)."""
    first = True
    while True:
        try:
            signed = await anchor_due(runner, ended_games=first)
            first = False
            if signed:
                log.info("checkpoints_signed", chains=signed)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the loop must outlive a database restart
            log.warning("checkpoint_pass_failed", error=type(exc).__name__, detail=str(exc)[:200])
        await asyncio.sleep(pass_interval(runner.settings))
