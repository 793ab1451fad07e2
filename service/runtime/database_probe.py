"""Each worker asks its database `SELECT 1` every few seconds and says on its metrics whether it answered.

Requests alone cannot tell: with no traffic nothing touches the database, and an outage at night fires nothing.
So every worker probes through its own pool (what its requests would use) on its own clock, whether or not anyone
calls, and `reddog_database_reachable` is the least of the live workers' answers.
"""

from __future__ import annotations

import asyncio

import asyncpg
import structlog

from service.db import storage_forms
from service.db.db_pool import acquire
from service.db.unit_of_work import Runner
from service.observability import metrics

log = structlog.get_logger("reddog.database")
PROBE_EVERY_SECONDS = 5.0
PROBE_TIMEOUT_SECONDS = 3.0  # a database that takes longer to say `1` is as good as away for a request


async def probe(pool: asyncpg.Pool) -> str | None:
    """None when a pooled connection answers `SELECT 1` within PROBE_TIMEOUT_SECONDS, else what went wrong."""
    try:
        async with asyncio.timeout(PROBE_TIMEOUT_SECONDS), acquire(pool) as conn:
            await conn.fetchval("SELECT 1")
    except Exception as exc:  # whatever it is (refused, reset, timed out, pool closing), no request would get through
        return type(exc).__name__
    return None


async def _look_at_forms(pool: asyncpg.Pool) -> None:
    """Which storage forms to write (storage_forms), looked at again: an older replica may have gone, or come."""
    try:
        async with asyncio.timeout(PROBE_TIMEOUT_SECONDS):
            await storage_forms.look(pool)
    except Exception as exc:  # the next probe looks again; the forms written stay as they were
        log.warning("storage_forms_unknown", error=type(exc).__name__)


async def run_forever(runner: Runner) -> None:
    """The background loop of every worker: probe, export the answer, log only when it changes."""
    was: str | None = None  # the pool was just made: the database answered at start-up
    while True:
        error = await probe(runner.pool)
        if error is None:
            await _look_at_forms(runner.pool)
        metrics.observe_database(error is None, runner.clock().timestamp())
        if error is None and was is not None:
            log.info("database_reachable_again")
        elif error is not None and was is None:
            log.error("database_unreachable", error=error)
        was = error
        await asyncio.sleep(PROBE_EVERY_SECONDS)
