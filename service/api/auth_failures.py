"""Failed authentications on the system chain, rate-limited twice. Each bucket, a known operator id and the remote
address, or every unknown id from one address together, gets at most one record a minute, counting the failures it
stands for; and no clock minute holds more than RD_AUTH_FAILURE_RECORDS_PER_MINUTE records over every replica.
Failures past either limit wait in their bucket for a later record (the next failure after the minute, or the
background flush), so the records' counts add up to every failure. The counters live in PostgreSQL, so the limits
hold across replicas. An unknown id never reaches the log: the log is permanent, and the caller chose the id."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

import structlog

from audit.system_events import AuthenticationFailed
from service.chains import system_chain
from service.db import RetryTransaction, Statement
from service.db.unit_of_work import Runner, UnitOfWork, run
from service.settings import Settings

log = structlog.get_logger("reddog.auth")
WINDOW = timedelta(minutes=1)
FORGET_AFTER = timedelta(hours=1)  # a pair with nothing pending is dropped after this; its next failure is recorded
MAX_ID_LENGTH = 128  # a known operator id is recorded as sent, up to this many characters
UNKNOWN = ""  # the bucket of every id the service does not know; never a configured id (parse_operators)
FLUSH_BATCH = 500


def bucket_id(settings: Settings, operator_id: str) -> str:
    """The id a failure is counted under: a configured operator's or auditor's as sent, else UNKNOWN for them all."""
    known = operator_id in settings.operators or operator_id in settings.auditors
    return operator_id[:MAX_ID_LENGTH] if known else UNKNOWN


async def note_failure(runner: Runner, operator_id: str, remote_address: str) -> None:
    """Count one failed authentication; record it now if its bucket is due and this minute's cap allows."""
    sent = bucket_id(runner.settings, operator_id)

    async def work(unit: UnitOfWork) -> None:
        now = unit.now
        row = await unit.conn.fetchrow(
            "SELECT recorded_at, pending, first_pending_at FROM auth_failures"
            " WHERE operator_id = $1 AND remote_address = $2 FOR UPDATE",
            sent,
            remote_address,
        )
        if row is None:
            await _first_failure(unit, sent, remote_address)
        elif (row["recorded_at"] is None or row["recorded_at"] <= now - WINDOW) and await _claim(unit, 1):
            await _record(unit, sent, remote_address, row["pending"] + 1, row["first_pending_at"] or now, now)
            unit.defer([_recorded([sent], [remote_address], now)])
        else:
            await unit.conn.execute(
                "UPDATE auth_failures SET pending = pending + 1, first_pending_at = coalesce(first_pending_at, $3),"
                " last_pending_at = $3 WHERE operator_id = $1 AND remote_address = $2",
                sent,
                remote_address,
                now,
            )

    await run(runner, system_chain.SYSTEM, work)


async def _first_failure(unit: UnitOfWork, sent: str, remote_address: str) -> None:
    """A bucket's first failure: recorded at once, or, with this minute's cap reached, pending and due at once."""
    now = unit.now
    granted = await _claim(unit, 1)
    claimed = await unit.conn.fetchval(
        "INSERT INTO auth_failures (operator_id, remote_address, recorded_at, pending, first_pending_at,"
        " last_pending_at) VALUES ($1, $2, $3, $4, $5, $5) ON CONFLICT DO NOTHING RETURNING true",
        sent,
        remote_address,
        now if granted else None,
        0 if granted else 1,
        None if granted else now,
    )
    if not claimed:  # another request inserted the pair a moment ago: count against its row instead
        raise RetryTransaction("auth_failures row claimed concurrently")
    if granted:
        await _record(unit, sent, remote_address, 1, now, now)


async def _claim(unit: UnitOfWork, wanted: int) -> int:
    """Take up to `wanted` of this clock minute's records under the cap; how many were granted (0 when it is full).
    A full minute is seen without taking the row's lock, so failures past the cap never queue behind a record."""
    minute = unit.now.replace(second=0, microsecond=0)
    cap = unit.settings.auth_failure_records_per_minute
    used: int | None = await unit.conn.fetchval(
        "SELECT CASE WHEN minute = $1 THEN records ELSE 0 END FROM auth_failure_quota"
        " WHERE minute <> $1 OR records < $2 FOR UPDATE",
        minute,
        cap,
    )
    if used is None:
        return 0
    granted = min(wanted, cap - used)
    if granted:
        args = (minute, used + granted)
        unit.defer([Statement(sql="UPDATE auth_failure_quota SET minute = $1, records = $2", args=args)])
    return granted


async def _record(
    unit: UnitOfWork, operator_id: str, remote_address: str, count: int, first_at: datetime, last_at: datetime
) -> None:
    event = AuthenticationFailed(
        operator_id=operator_id, remote_address=remote_address, count=count, first_at=first_at, last_at=last_at
    )
    await system_chain.append(unit, [event])


def _recorded(operator_ids: list[str], remote_addresses: list[str], now: datetime) -> Statement:
    return Statement(
        sql="UPDATE auth_failures SET recorded_at = $3, pending = 0, first_pending_at = NULL, last_pending_at = NULL"
        " WHERE (operator_id, remote_address) IN (SELECT * FROM unnest($1::text[], $2::text[]))",
        args=(operator_ids, remote_addresses, now),
    )


async def flush(runner: Runner) -> int:
    """Record the failures still pending in due buckets, longest waiting first, as far as this minute's cap allows;
    forget quiet pairs."""

    async def work(unit: UnitOfWork) -> int:
        now = unit.now
        rows = await unit.conn.fetch(
            "SELECT operator_id, remote_address, pending, first_pending_at, last_pending_at FROM auth_failures"
            " WHERE pending > 0 AND (recorded_at IS NULL OR recorded_at <= $1)"
            " ORDER BY first_pending_at LIMIT $2 FOR UPDATE SKIP LOCKED",
            now - WINDOW,
            FLUSH_BATCH,
        )
        rows = rows[: await _claim(unit, len(rows))] if rows else rows
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
            unit.defer([_recorded([r["operator_id"] for r in rows], [r["remote_address"] for r in rows], now)])
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
