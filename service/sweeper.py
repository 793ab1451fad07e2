"""The raise-window deadline, kept without process state: every replica sweeps expired rounds."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from uuid import UUID

import structlog

from service import metrics, round_use_cases
from service.db import idempotency_sql, round_sql
from service.unit_of_work import Runner, UnitOfWork, run

log = structlog.get_logger("reddog.sweeper")
PURGE_EVERY = 600  # sweeps between idempotency-key purges
SWEEP_BATCH = 200
SWEEPER = "sweeper"  # the unit of work's operator until a claimed round names its own


async def settle_expired_round(runner: Runner, round_id: UUID) -> bool:
    """Lock one expired round (SKIP LOCKED: replicas never wait on each other) and settle it."""

    async def work(unit: UnitOfWork) -> bool:
        settled = await round_use_cases.settle_expired(unit, round_id)
        if settled:
            unit.after_commit.append(metrics.SWEPT.inc)
        return settled

    return await run(runner, SWEEPER, work)


async def sweep(runner: Runner) -> int:
    """Settle every round whose window has passed; returns how many. One failing round never blocks the rest."""
    settled = 0
    while True:
        async with runner.pool.acquire() as conn:
            due = await round_sql.select_expired_round_ids(conn, runner.clock(), SWEEP_BATCH)
        batch = 0
        for round_id in due:
            try:
                batch += await settle_expired_round(runner, round_id)
            except Exception as exc:  # logged and left for the next pass; the others still settle
                log.error("sweep_round_failed", round_id=str(round_id), error=type(exc).__name__)
        settled += batch
        if len(due) < SWEEP_BATCH or batch == 0:  # a full batch that settled nothing is stuck: wait for next pass
            return settled


async def purge_keys(runner: Runner) -> int:
    retention = timedelta(days=runner.settings.idempotency_retention_days)

    async def work(unit: UnitOfWork) -> int:
        return await idempotency_sql.delete_expired_keys(unit.conn, unit.now, retention)

    return await run(runner, SWEEPER, work)


async def run_forever(runner: Runner) -> None:
    """The background loop each replica runs; a failed pass is logged and the next one tries again."""
    passes = 0
    while True:
        try:
            settled = await sweep(runner)
            if settled:
                log.info("swept", settled=settled)
            if passes % PURGE_EVERY == 0:
                await purge_keys(runner)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the loop must outlive a database restart
            log.warning("sweep_failed", error=type(exc).__name__, detail=str(exc)[:200])
        passes += 1
        await asyncio.sleep(runner.settings.sweep_interval_seconds)
