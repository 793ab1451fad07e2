"""The raise-window deadline, kept without process state: every replica sweeps expired rounds."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from uuid import UUID

import asyncpg
import structlog

from service import metrics, rounds, uow
from service.db import idempotency
from service.db.rounds import claim_expired_round, select_expired_round_ids
from service.settings import Settings

log = structlog.get_logger("reddog.sweeper")
PURGE_EVERY = 600  # sweeps between idempotency-key purges
SWEEP_BATCH = 200


async def settle_expired_round(pool: asyncpg.Pool, settings: Settings, round_id: UUID) -> bool:
    """Lock one expired round (SKIP LOCKED: replicas never wait on each other) and settle it."""

    async def work(unit: uow.Unit) -> bool:
        stored = await claim_expired_round(unit.conn, round_id, unit.now)
        if stored is None:  # another replica or a request got there first
            return False
        unit.operator_id = stored.operator_id
        await rounds.settle_expired(unit, stored)
        unit.after_commit.append(metrics.SWEPT.inc)
        return True

    return await uow.run(pool, settings, "sweeper", work)


async def sweep(pool: asyncpg.Pool, settings: Settings) -> int:
    """Settle every round whose window has passed; returns how many. One failing round never blocks the rest."""
    settled = 0
    while True:
        async with pool.acquire() as conn:
            due = await select_expired_round_ids(conn, uow.utcnow(), SWEEP_BATCH)
        batch = 0
        for round_id in due:
            try:
                batch += await settle_expired_round(pool, settings, round_id)
            except Exception as exc:  # logged and left for the next pass; the others still settle
                log.error("sweep_round_failed", round_id=str(round_id), error=type(exc).__name__)
        settled += batch
        if len(due) < SWEEP_BATCH or batch == 0:  # a full batch that settled nothing is stuck: wait for next pass
            return settled


async def purge_keys(pool: asyncpg.Pool, settings: Settings) -> int:
    retention = timedelta(days=settings.idempotency_retention_days)

    async def work(unit: uow.Unit) -> int:
        return await idempotency.delete_expired_keys(unit.conn, unit.now, retention)

    return await uow.run(pool, settings, "sweeper", work)


async def run_forever(pool: asyncpg.Pool, settings: Settings) -> None:
    """The background loop each replica runs; a failed pass is logged and the next one tries again."""
    passes = 0
    while True:
        try:
            settled = await sweep(pool, settings)
            if settled:
                log.info("swept", settled=settled)
            if passes % PURGE_EVERY == 0:
                await purge_keys(pool, settings)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the loop must outlive a database restart
            log.warning("sweep_failed", error=type(exc).__name__, detail=str(exc)[:200])
        passes += 1
        await asyncio.sleep(settings.sweep_interval_seconds)
