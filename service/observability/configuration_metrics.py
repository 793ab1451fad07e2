"""The series of each table configuration a process sees: started at zero, and its exact theory published once.

A counter that first appears with a value already counted hides that value from Prometheus's increase(): the
first sample is the baseline. So each (paytable, decks, currency, mode) and (paytable, decks, mode) is exported at 0 as
soon as a table with it is created, a round of it ends, or the process starts with such a table open. The exact
theoretical RTP takes a few hundred milliseconds to compute, so it is computed off the event loop.
"""

from __future__ import annotations

import asyncio

import asyncpg
import structlog

from paytables.red_dog import loader
from paytables.red_dog.paytable import MAX_SPREAD
from service.observability import metrics

log = structlog.get_logger("reddog.metrics")
OUTCOMES = ("consecutive", "pair_push", "trips", *(f"spread_{s}" for s in range(1, MAX_SPREAD + 1)))
_seen: set[tuple[str, int, str, str]] = set()
_publishing: set[asyncio.Future[None]] = set()  # kept so a running publication is not garbage-collected


def configuration_seen(paytable_id: str, decks: int, currency: str, test: bool) -> None:
    """Export this configuration's series at zero and, once per process, its theory; cheap when already seen."""
    mode = "test" if test else "live"
    key = (paytable_id, decks, currency, mode)
    if key in _seen:
        return
    _seen.add(key)
    for counter in metrics.MONEY_COUNTERS:
        counter.labels(paytable_id, str(decks), currency, mode)
    for outcome in OUTCOMES:
        metrics.ROUNDS.labels(paytable_id, str(decks), outcome, "settled", mode)
    _publish_theory(paytable_id, decks)


def _publish_theory(paytable_id: str, decks: int) -> None:
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # no loop (a script, a test): compute here
        metrics.publish_theoretical(loader.get(paytable_id), decks)
        return
    future = loop.run_in_executor(None, metrics.publish_theoretical, loader.get(paytable_id), decks)
    _publishing.add(future)
    future.add_done_callback(_published)


def _published(future: asyncio.Future[None]) -> None:
    _publishing.discard(future)
    if not future.cancelled() and future.exception() is not None:
        log.error("theory_not_published", error=repr(future.exception()))


async def open_tables_seen(pool: asyncpg.Pool) -> None:
    """At start-up: every configuration of an open table, so its series exist before its first round ends."""
    try:
        async with pool.acquire() as conn:
            rows = await conn.fetch(
                "SELECT DISTINCT paytable, decks, currency, mode = 'test' AS test FROM game_tables"
                " WHERE status = 'open'"
            )
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        # Not migrated yet, or the database is away: serve anyway (unready); each table is seen when it is used.
        log.warning("open_tables_unseen", error=type(exc).__name__)
        return
    for row in rows:
        if row["paytable"] in loader.released():
            configuration_seen(row["paytable"], row["decks"], row["currency"], row["test"])
