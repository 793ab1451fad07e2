"""The outbox's delivery worker, one in every replica: after COMMIT, claim due messages (SKIP LOCKED, so replicas
never wait on each other), send them outside any transaction, and mark each attempt.

Order: a message is claimed only when no earlier message of its ordering key (a round) is still owed, so one
round's messages go one after another whichever workers take them; different rounds go side by side. A claim is a
lease (`next_attempt_at` moves past the attempt's timeout): a worker killed mid-send leaves the message due again
once the lease ends, and the next attempt carries the same message id. Delivery is at least once; the receiver
applies each id once.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from urllib.parse import urlsplit

import httpx
import msgspec
import structlog

from audit.system_events import DeadLetterParked
from service.chains import system_chain
from service.chains.request_signing import notification_signatures
from service.db import outbox_sql
from service.db.db_pool import acquire
from service.db.outbox_sql import Claimed
from service.db.unit_of_work import Runner, UnitOfWork, run
from service.observability import metrics
from service.outbox_settings import OutboxSettings

log = structlog.get_logger("reddog.outbox")
POSITIONS_PER_PASS = 1000  # messages listed per pass; a pass that listed this many looks again at once


class Failed(msgspec.Struct, frozen=True):
    reason: str  # a low-cardinality label: status_5xx, timeout, refused, ...
    detail: str


Sent = None
Outcome = Failed | None
Channel = Callable[[httpx.AsyncClient, OutboxSettings, Claimed, datetime], Awaitable[Outcome]]


async def send_notification(
    client: httpx.AsyncClient, settings: OutboxSettings, message: Claimed, now: datetime
) -> Outcome:
    """POST the notification's bytes to its operator's URL, signed; any 2xx is delivered."""
    target = settings.targets.get(message.operator_id)
    if target is None:
        return Failed("no_target", "the operator has no RD_NOTIFY_URLS entry any more")
    parts = urlsplit(target.url)
    path = parts.path or "/"
    path = f"{path}?{parts.query}" if parts.query else path
    timestamp = str(int(now.timestamp()))
    event_id = str(message.message_id)
    headers = {
        "content-type": "application/json",
        "x-operator-id": message.operator_id,
        "x-timestamp": timestamp,
        "idempotency-key": event_id,
        "x-reddog-event-id": event_id,
        "x-reddog-attempt": str(message.attempts),
        "x-signature": notification_signatures(target.secrets, timestamp, path, event_id, message.body),
    }
    try:
        timeout = settings.timeout_seconds
        response = await client.post(target.url, content=message.body, headers=headers, timeout=timeout)
    except httpx.TimeoutException as exc:
        return Failed("timeout", type(exc).__name__)
    except httpx.HTTPError as exc:
        return Failed("connection", f"{type(exc).__name__}: {exc}"[:200])
    if 200 <= response.status_code < 300:
        return Sent
    return Failed(f"status_{response.status_code // 100}xx", f"HTTP {response.status_code}")


CHANNELS: dict[str, Channel] = {"notification": send_notification}  # a wallet's channel joins here


def backoff(settings: OutboxSettings, attempts: int, draw: float) -> float:
    """Seconds before the next attempt after `attempts` failed ones: doubling from the base up to the cap, then
    `draw` (0..1) spreads it over its upper half, so messages that failed together do not come back together."""
    ceiling = min(settings.backoff_max_seconds, settings.backoff_base_seconds * 2.0 ** min(attempts - 1, 40))
    return ceiling * (0.5 + draw / 2)


def gives_up(settings: OutboxSettings, message: Claimed, now: datetime) -> bool:
    too_old = (now - message.owed_since).total_seconds() >= settings.max_age_seconds
    return message.attempts >= settings.max_attempts or too_old


class Pass(msgspec.Struct, frozen=True, kw_only=True):
    claimed: int
    delivered: int
    failed: int
    parked: int


async def deliver_due(runner: Runner, client: httpx.AsyncClient) -> Pass:
    """One pass: list what committed, claim a batch, send it side by side, mark each attempt."""
    settings = runner.settings.outbox
    async with acquire(runner.pool) as conn:
        async with conn.transaction():
            await outbox_sql.assign_positions(conn, POSITIONS_PER_PASS)
        now = runner.clock()
        lease = now + timedelta(seconds=settings.lease_seconds)
        claimed = await outbox_sql.claim_due(conn, now, lease, settings.batch)
    outcomes = await asyncio.gather(*(_attempt(runner, client, message) for message in claimed))
    return Pass(
        claimed=len(claimed),
        delivered=sum(o == "delivered" for o in outcomes),
        failed=sum(o == "failed" for o in outcomes),
        parked=sum(o == "parked" for o in outcomes),
    )


async def _attempt(runner: Runner, client: httpx.AsyncClient, message: Claimed) -> str:
    settings = runner.settings.outbox
    channel = CHANNELS[message.channel]
    try:
        outcome = await channel(client, settings, message, runner.clock())
    except Exception as exc:  # a bug in a channel must not stop the others: it is a failed attempt like any
        outcome = Failed("error", f"{type(exc).__name__}: {exc}"[:200])
    now = runner.clock()
    metrics.record_delivery_attempt(message.channel, None if outcome is None else outcome.reason)
    if outcome is None:
        async with acquire(runner.pool) as conn:
            if await outbox_sql.mark_delivered(conn, message.seq, now):
                metrics.observe_delivery_lag(message.channel, (now - message.created_at).total_seconds())
        return "delivered"
    if gives_up(settings, message, now):
        await _park(runner, message, outcome, now)
        return "parked"
    retry_at = now + timedelta(seconds=backoff(settings, message.attempts, random.random()))  # noqa: S311 - jitter
    # Info, not warning: a receiver away fails every attempt until it is back, and the metrics count them; the line
    # is there for the one message someone is asking about.
    log.info(
        "outbox_attempt_failed",
        message_id=str(message.message_id),
        attempt=message.attempts,
        reason=outcome.reason,
        detail=outcome.detail,
        retry_at=retry_at.isoformat(),
    )
    async with acquire(runner.pool) as conn:
        await outbox_sql.mark_failed(conn, message.seq, message.attempts, outcome.detail, retry_at)
    return "failed"


async def _park(runner: Runner, message: Claimed, outcome: Failed, now: datetime) -> None:
    """A dead letter, and its record on the system chain, in one transaction."""

    async def work(unit: UnitOfWork) -> None:
        if not await outbox_sql.park(unit.conn, message.seq, message.attempts, outcome.detail, now):
            return  # another worker took it over meanwhile
        parked = DeadLetterParked(
            message_id=str(message.message_id),
            operator_id=message.operator_id,
            message_kind=message.kind,
            attempts=message.attempts,
            reason=outcome.detail,
            parked_at=now,
        )
        await system_chain.append(unit, [parked])
        unit.after_commit.append(lambda: metrics.record_dead_letter(message.channel))
        unit.after_commit.append(lambda: log.warning("dead_letter_parked", message_id=parked.message_id))

    await run(runner, system_chain.SYSTEM, work)


async def observe_depth(runner: Runner) -> None:
    async with acquire(runner.pool) as conn:
        depth = await outbox_sql.select_depth(conn)
    now = runner.clock()
    oldest = 0.0 if depth.oldest is None else max(0.0, (now - depth.oldest).total_seconds())
    metrics.observe_outbox(depth.waiting, oldest, depth.dead)


async def run_forever(runner: Runner) -> None:
    """The loop each replica runs: a pass, then at once again when it found a full batch, else after the poll
    interval; a failed pass is logged and the next one tries again (the database may be restarting)."""
    settings = runner.settings.outbox
    async with httpx.AsyncClient(follow_redirects=False) as client:
        while True:
            found = 0
            try:
                done = await deliver_due(runner, client)
                found = done.claimed
                await observe_depth(runner)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the loop must outlive a database restart
                log.warning("outbox_pass_failed", error=type(exc).__name__, detail=str(exc)[:200])
            if found < settings.batch:
                await asyncio.sleep(settings.poll_seconds)
