"""Failed authentications on the system chain, rate-limited: at most one record a minute per (operator id as sent,
remote address), each with the count of failures it stands for. The counters live in PostgreSQL, so the limit holds
across replicas; a burst's tail is recorded by the next failure after the minute or by the background flush."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

import structlog

from audit.system_events import AuthenticationFailed
from service.chains import system_chain
from service.db import RetryTransaction, Statement
from service.db.unit_of_work import Runner, UnitOfWork, run

log = structlog.get_logger("reddog.auth")
WINDOW = timedelta(minutes=1)
FORGET_AFTER = timedelta(hours=1)  # a pair with nothing pending is dropped after this; its next failure is recorded
MAX_ID_LENGTH = 128  # an operator id is recorded as sent, up to this many characters
FLUSH_BATCH = 500


async def note_failure(runner: Runner, operator_id: str, remote_address: str) -> None:
    """Count one failed authentication; record it now unless the pair was recorded less than a minute ago."""
    sent = operator_id[:MAX_ID_LENGTH]

    async def work(unit: UnitOfWork) -> None:
        now = unit.now
        row = await unit.conn.fetchrow(
            "SELECT recorded_at, pending, first_pending_at FROM auth_failures"
            " WHERE operator_id = $1 AND remote_address = $2 FOR UPDATE",
            sent,
            remote_address,
        )
        if row is None:
            claimed = await unit.conn.fetchval(
                "INSERT INTO auth_failures (operator_id, remote_address, recorded_at) VALUES ($1, $2, $3)"
                " ON CONFLICT DO NOTHING RETURNING true",
                sent,
                remote_address,
                now,
            )
            if not claimed:  # another request inserted the pair a moment ago: count against its row instead
                raise RetryTransaction("auth_failures row claimed concurrently")
            await _record(unit, sent, remote_address, 1, now, now)
        elif row["recorded_at"] <= now - WINDOW:
            await _record(unit, sent, remote_address, row["pending"] + 1, row["first_pending_at"] or now, now)
            unit.defer([_recorded(sent, remote_address, now)])
        else:
            await unit.conn.execute(
                "UPDATE auth_failures SET pending = pending + 1, first_pending_at = coalesce(first_pending_at, $3),"
                " last_pending_at = $3 WHERE operator_id = $1 AND remote_address = $2",
                sent,
                remote_address,
                now,
            )

    await run(runner, system_chain.SYSTEM, work)


async def _record(
    unit: UnitOfWork, operator_id: str, remote_address: str, count: int, first_at: datetime, last_at: datetime
) -> None:
    event = AuthenticationFailed(
        operator_id=operator_id, remote_address=remote_address, count=count, first_at=first_at, last_at=last_at
    )
    await system_chain.append(unit, [event])


def _recorded(operator_id: str, remote_address: str, now: datetime) -> Statement:
    return Statement(
        sql="UPDATE auth_failures SET recorded_at = $3, pending = 0, first_pending_at = NULL, last_pending_at = NULL"
        " WHERE operator_id = $1 AND remote_address = $2",
        args=(operator_id, remote_address, now),
    )


async def flush(runner: Runner) -> int:
    """Record the failures still pending for pairs last recorded a minute ago or more; forget quiet pairs."""

    async def work(unit: UnitOfWork) -> int:
        now = unit.now
        rows = await unit.conn.fetch(
            "SELECT operator_id, remote_address, pending, first_pending_at, last_pending_at FROM auth_failures"
            " WHERE pending > 0 AND recorded_at <= $1 ORDER BY recorded_at LIMIT $2 FOR UPDATE SKIP LOCKED",
            now - WINDOW,
            FLUSH_BATCH,
        )
        events = [
            AuthenticationFailed(
                operator_id=r["operator_id"],
                remote_address=r["remote_address"],
                count=r["pending"],
                first_at=r["first_pending_at"],
                last_at=r["last_pending_at"],
            )
            for r in rows
        ]
        if events:
            await system_chain.append(unit, events)
        await unit.conn.execute(
            "UPDATE auth_failures SET recorded_at = $3, pending = 0, first_pending_at = NULL, last_pending_at = NULL"
            " WHERE (operator_id, remote_address) IN (SELECT * FROM unnest($1::text[], $2::text[]))",
            [r["operator_id"] for r in rows],
            [r["remote_address"] for r in rows],
            now,
        )
        await unit.conn.execute("DELETE FROM auth_failures WHERE pending = 0 AND recorded_at < $1", now - FORGET_AFTER)
        return len(events)

    return await run(runner, system_chain.SYSTEM, work)


async def run_forever(runner: Runner, interval: float = 15.0) -> None:
    """The background flush each replica runs; a failed pass is logged and the next one tries again."""
    while True:
        try:
            await flush(runner)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the loop must outlive a database restart
            log.warning("auth_failure_flush_failed", error=type(exc).__name__, detail=str(exc)[:200])
        await asyncio.sleep(interval)
