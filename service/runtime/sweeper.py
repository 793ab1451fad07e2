"""The raise-window deadline, kept without process state: every replica sweeps expired rounds.

Each pass runs a few claimers side by side (a quarter of the pool, so requests keep the rest). A claimer takes a
batch of expired rounds with their tables, skipping anything another transaction holds, and settles the whole
batch in one transaction: one claim, one round trip of writes, one COMMIT, however many rounds. Replicas claim
disjoint batches. The next pass starts when the soonest open window closes, or after the sweep interval.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from uuid import UUID

import msgspec
import structlog
from litestar.channels import ChannelsPlugin

from service.db import Conn, idempotency_sql, outbox_sql, round_sql
from service.db.db_pool import acquire
from service.db.unit_of_work import Runner, UnitOfWork, run
from service.observability import metrics
from service.runtime import friends_push
from service.settings import FRIENDS_OPERATOR, Settings
from service.use_cases import friends_timer_use_cases, sweep_use_cases
from service.use_cases.sweep_use_cases import Swept

log = structlog.get_logger("reddog.sweeper")
PURGE_EVERY_SECONDS = 600.0  # between idempotency-key purges
PURGE_BATCH = 5000  # keys deleted per transaction
# Batches per sweep pass: a purge that found more resumes at the next pass, so sweeps are never held up for long.
# At 1,000 rounds/s (2,000 keys/s) ten minutes of keys is 240 batches, a few passes' work.
PURGE_BATCHES_PER_PASS = 100
SWEEP_BATCH = 100  # rounds per claim; the batch's writes are one statement (about 35 parameters a round)
MIN_PAUSE = 0.02  # seconds between passes at the least: lets a busy table's rounds gather into batches
SWEEPER = "sweeper"  # the unit of work's operator until a claimed round names its own
FRIENDS_TURNS_PER_PASS = 200  # friends' turns played by their timers in one pass, one transaction each


class Pass(msgspec.Struct, frozen=True, kw_only=True):
    settled: int
    windows: round_sql.WindowCounts


def claimers(settings: Settings) -> int:
    """How many batches one replica settles at once: a bounded share of its pool."""
    return max(1, settings.pool_max_size // 4)


async def settle_batch(runner: Runner, size: int) -> Swept:
    """Claim up to `size` expired rounds (SKIP LOCKED) and settle them in one transaction."""

    return await run(runner, SWEEPER, lambda unit: sweep_use_cases.settle_expired_batch(unit, size))


async def settle_expired_round(runner: Runner, round_id: UUID) -> bool:
    """Lock one expired round (SKIP LOCKED: replicas never wait on each other) and settle it."""

    return await run(runner, SWEEPER, lambda unit: sweep_use_cases.settle_expired(unit, round_id))


async def sweep(runner: Runner) -> int:
    """Settle every round whose window has passed; returns how many. One failing round never blocks the rest."""
    return (await sweep_pass(runner)).settled


async def sweep_pass(runner: Runner) -> Pass:
    """One pass: claimers side by side until none finds a full batch; then the raise-window gauges."""
    started = runner.clock()
    settled = sum(await asyncio.gather(*(_claim_until_done(runner) for _ in range(claimers(runner.settings)))))
    async with acquire(runner.pool) as conn:
        windows = await round_sql.count_open_windows(conn, since=started, now=runner.clock())
    metrics.OPEN_RAISE_WINDOWS.set(windows.open)
    metrics.ROUNDS_PAST_DEADLINE.set(windows.past)
    return Pass(settled=settled, windows=windows)


async def _claim_until_done(runner: Runner) -> int:
    settled = 0
    while True:
        try:
            swept = await settle_batch(runner, SWEEP_BATCH)
        except Exception as exc:  # the whole batch rolled back: find the round at fault by settling one at a time
            log.warning("sweep_batch_failed", error=type(exc).__name__, detail=str(exc)[:200])
            return settled + await _one_at_a_time(runner)
        settled += swept.settled
        if swept.claimed < SWEEP_BATCH or swept.settled == 0:  # a full batch that settled nothing is stuck
            return settled


async def _one_at_a_time(runner: Runner) -> int:
    """The oldest expired rounds, each in its own transaction: a round that fails stops only itself."""
    async with acquire(runner.pool) as conn:
        due = await round_sql.select_expired_round_ids(conn, runner.clock(), SWEEP_BATCH)
    settled = 0
    for round_id in due:
        try:
            settled += await settle_expired_round(runner, round_id)
        except Exception as exc:  # logged and left for the next pass; the others still settle
            log.error("sweep_round_failed", round_id=str(round_id), error=type(exc).__name__)
    return settled


async def purge_keys(runner: Runner, most_batches: int = PURGE_BATCHES_PER_PASS) -> int:
    """Delete idempotency keys older than the retention; how many keys."""
    before = runner.clock() - timedelta(days=runner.settings.idempotency_retention_days)
    return await _purge(
        runner, lambda conn: idempotency_sql.delete_expired_keys(conn, before, PURGE_BATCH), most_batches
    )


async def purge_outbox(runner: Runner, most_batches: int = PURGE_BATCHES_PER_PASS) -> int:
    """Outbox rows no one is owed any more, past RD_OUTBOX_RETENTION_DAYS; pending messages and dead letters stay.
    How many rows."""
    before = runner.clock() - timedelta(days=runner.settings.outbox.retention_days)
    return await _purge(runner, lambda conn: outbox_sql.purge(conn, before, PURGE_BATCH), most_batches)


async def _purge(runner: Runner, batch: Callable[[Conn], Awaitable[int]], most_batches: int) -> int:
    """A batch of PURGE_BATCH rows per transaction (short locks, a little WAL at a time, space vacuum reclaims as it
    goes), at most `most_batches` batches; how many rows in all."""

    async def one(unit: UnitOfWork) -> int:
        return await batch(unit.conn)

    purged = 0
    for _ in range(most_batches):
        deleted = await run(runner, SWEEPER, one)
        purged += deleted
        if deleted < PURGE_BATCH:
            break
    return purged


async def sweep_friends(runner: Runner, push: ChannelsPlugin | None) -> int:
    """The friends' tables: play the default move of every turn past its deadline, one table per transaction (SKIP
    LOCKED, so replicas share them), then close the idle tables; each change is pushed once committed. How many."""
    done = 0
    for _ in range(FRIENDS_TURNS_PER_PASS):
        hint = await run(runner, FRIENDS_OPERATOR, friends_timer_use_cases.expire_one_turn)
        if hint is None:
            break
        friends_push.publish(push, hint)
        done += 1
    for hint in await run(runner, FRIENDS_OPERATOR, friends_timer_use_cases.close_idle):
        friends_push.publish(push, hint)
        done += 1
    return done


def pause(runner: Runner, swept: Pass) -> float:
    """Until the soonest open window closes, within [MIN_PAUSE, the sweep interval]."""
    longest = runner.settings.sweep_interval_seconds
    return _until(swept.windows.next_deadline, runner.clock(), longest)


def _until(deadline: datetime | None, now: datetime, longest: float) -> float:
    if deadline is None:
        return longest
    return min(longest, max(MIN_PAUSE, (deadline - now).total_seconds()))


async def run_forever(runner: Runner, push: ChannelsPlugin | None = None) -> None:
    """The background loop each replica runs; a failed pass is logged and the next one tries again."""
    purge_at = time.monotonic()
    while True:
        wait = runner.settings.sweep_interval_seconds
        try:
            swept = await sweep_pass(runner)
            if swept.settled:
                log.info("swept", settled=swept.settled)
            wait = pause(runner, swept)
            if runner.settings.friends.enabled:
                await sweep_friends(runner, push)
            if time.monotonic() >= purge_at:
                purged = await purge_keys(runner)
                rows = await purge_outbox(runner)
                caught_up = PURGE_BATCHES_PER_PASS * PURGE_BATCH
                if purged < caught_up and rows < caught_up:  # both caught up: look again in a while
                    purge_at = time.monotonic() + PURGE_EVERY_SECONDS
                if purged:
                    log.info("idempotency_keys_purged", keys=purged)
                if rows:
                    log.info("outbox_rows_purged", rows=rows)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the loop must outlive a database restart
            log.warning("sweep_failed", error=type(exc).__name__, detail=str(exc)[:200])
        await asyncio.sleep(wait)
