"""One transaction per state change: the unit of work a use case runs in, and the one runner that commits it."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Iterable
from datetime import datetime
from typing import TypeVar

import asyncpg
import msgspec

from service.clock import Clock
from service.db import Conn, RetryTransaction, Statement, execute_together
from service.db import idempotency_sql as keys
from service.db.db_pool import acquire
from service.db.recent_rows import RecentRows
from service.db.row_reads import LOCKED, Locked, Mode, Optimistic, Replay
from service.errors import ApiError, unavailable
from service.observability import metrics
from service.settings import Settings

T = TypeVar("T")
ATTEMPTS = 4
RETRYABLE = (asyncpg.exceptions.SerializationError, asyncpg.exceptions.DeadlockDetectedError, RetryTransaction)
# An unlocked attempt's read went stale (the head moved: 40001), or its key was taken meanwhile (a unique violation).
OPTIMISTIC_CONFLICTS = (*RETRYABLE, asyncpg.exceptions.UniqueViolationError)


class UnitOfWork:
    """One transaction's work: its connection, clock and mode, the writes to flush together before COMMIT, what to
    do after COMMIT, and a refusal to raise once the changes that had to happen anyway are committed."""

    def __init__(
        self,
        conn: Conn,
        settings: Settings,
        clock: Clock,
        operator_id: str,
        mode: Mode = LOCKED,
        recent: RecentRows | None = None,
    ) -> None:
        self.conn = conn
        self.mode = mode  # how the work's first read reads, and the request's key in it (row_reads)
        self.recent = recent  # what this worker's commits left in the rows (None: always read them)
        # Set when an unlocked attempt started from a remembered row instead of reading it: the checkpoint size its
        # write must still find (recent_rows).
        self.remembered_checkpoint: int | None = None
        self.settings = settings
        self.clock = clock
        self.operator_id = operator_id
        self.now = clock()
        self.pending: list[Statement] = []
        self.after_commit: list[Callable[[], None]] = []
        self.refusal: Exception | None = None

    def read_clock(self) -> datetime:
        """Read the time again: after taking a lock, which may have waited past a deadline."""
        self.now = self.clock()
        return self.now

    def defer(self, statements: Iterable[Statement]) -> None:
        """Writes to run together, in one round trip, when the work is done (still inside the transaction)."""
        self.pending.extend(statements)

    def refuse_after_commit(self, error: Exception) -> None:
        """Commit what this unit changed, then refuse the request with `error`."""
        self.refusal = error


Work = Callable[[UnitOfWork], Awaitable[T]]


class Runner(msgspec.Struct, frozen=True):
    """What every unit of work needs from the running service."""

    pool: asyncpg.Pool
    settings: Settings
    clock: Clock
    recent: RecentRows | None = None  # the serving app's (app.py); a command-line run reads every row


class KeyFirst(msgspec.Struct, frozen=True):
    """The request's key is claimed in a statement of its own, then the work runs Locked."""


class KeyInRead(msgspec.Struct, frozen=True):
    """The work's first read carries the key (row_reads): one Optimistic attempt, then Locked ones claiming it."""


Keying = KeyFirst | KeyInRead
KEY_FIRST, KEY_IN_READ = KeyFirst(), KeyInRead()


class IdempotencyKey(msgspec.Struct, frozen=True, kw_only=True):
    key: str
    request_hash: bytes  # binds the key to one request: the same key with another request is a conflict
    keying: Keying = KEY_FIRST


def modes(key: IdempotencyKey | None, claim: keys.Claim | None) -> list[Mode]:
    """Each attempt's mode, chosen here only: what the request's key allows, then Locked until the attempts run out."""
    if key is None or claim is None or isinstance(key.keying, KeyFirst):
        return [LOCKED] * ATTEMPTS
    # An unlocked attempt that loses does not use up a locked one.
    return [Optimistic(key=claim), *[Locked(key=claim)] * ATTEMPTS]


async def run(runner: Runner, operator_id: str, work: Work[T], *, key: IdempotencyKey | None = None) -> T:
    """Run `work` in one transaction, again on a serialization failure, deadlock or lost connection; after COMMIT
    the hooks run and a refusal the work carried is raised.

    An Optimistic attempt reads unlocked and writes in one statement checking the audit head it read (two round
    trips, no BEGIN or COMMIT). When another change got there first, the statement fails whole and the work runs
    again Locked, which waits its turn instead of racing again."""
    claim = None if key is None else _claim(key, operator_id, runner.clock())
    plan = modes(key, claim)
    for attempt, mode in enumerate(plan):
        last = attempt == len(plan) - 1
        try:
            async with acquire(runner.pool) as conn:
                unit = UnitOfWork(conn, runner.settings, runner.clock, operator_id, mode, runner.recent)
                result = await _attempt(unit, work)
        except OPTIMISTIC_CONFLICTS as exc:
            if isinstance(mode, Optimistic):  # the table changed, or the key was taken, since the read: none written
                metrics.OPTIMISTIC_CONFLICTS.inc()
                continue
            if not isinstance(exc, RETRYABLE):
                raise
            if last:
                raise ApiError(503, "SERVICE_UNAVAILABLE", "too much contention; retry", retryable=True) from None
            await _backoff(attempt)
            continue
        except Exception as exc:
            # Safe to run again: a transaction cut before COMMIT rolled back, and one whose COMMIT landed unseen
            # replays from its idempotency key. Past the last attempt the error becomes a retryable 503.
            if not unavailable(exc) or last:
                raise
            await _backoff(attempt)
            continue
        for hook in unit.after_commit:
            hook()
        if unit.refusal is not None:
            raise unit.refusal
        return result
    raise AssertionError("unreachable")


async def _attempt(unit: UnitOfWork, work: Work[T]) -> T:
    """One attempt: Optimistic without a transaction (its writes are one statement), Locked inside one."""
    if isinstance(unit.mode, Optimistic):
        try:
            result = await work(unit)
        except Exception:
            if unit.remembered_checkpoint is None:
                raise
            # Refused from a remembered row (recent_rows), which a change elsewhere may have overtaken: refusals are
            # given from a read, so the Locked attempt decides it again.
            raise RetryTransaction("refused from a remembered row") from None
        await execute_together(unit.conn, unit.pending)
        return result
    async with unit.conn.transaction():
        result = await work(unit)
        await execute_together(unit.conn, unit.pending)
        return result


def _claim(key: IdempotencyKey, operator_id: str, now: datetime) -> keys.Claim:
    return keys.Claim(operator_id=operator_id, key=key.key, request_hash=key.request_hash, now=now)


async def _backoff(attempt: int) -> None:
    await asyncio.sleep(random.uniform(0.001, 0.02) * (attempt + 1))  # noqa: S311 - jitter, not a game draw


class Reply(msgspec.Struct, frozen=True, kw_only=True):
    status: int
    body: bytes
    replayed: bool = False


class Refused(msgspec.Struct, frozen=True):
    """The work refused the request after changes that had to be committed anyway: no reply; run() raises it."""


async def write(
    runner: Runner,
    operator_id: str,
    key: IdempotencyKey,
    status: int,
    work: Work[T | Replay],
    present: Callable[[T], bytes],
) -> Reply:
    """The work run once per idempotency key: a repeat gets the first reply's bytes, a different request a 409.
    A refused request keeps no reply, so retrying it is evaluated afresh."""
    reply = await run(runner, operator_id, idempotent(key, status, work, present), key=key)
    assert isinstance(reply, Reply)  # a Refused unit raised its refusal in run()
    return reply


def idempotent(
    key: IdempotencyKey, status: int, work: Work[T | Replay], present: Callable[[T], bytes]
) -> Work[Reply | Refused]:
    """One attempt of a keyed write: claim the key (unless the work's read carries it), do the work, store the reply
    with the key in the same transaction, or replay what the key already holds."""

    async def once(unit: UnitOfWork) -> Reply | Refused:
        if isinstance(key.keying, KeyFirst):
            stored = await keys.claim_key(unit.conn, unit.operator_id, key.key, key.request_hash, unit.now)
            if stored is not None:
                return _replay(unit, key, stored)
        result = await work(unit)
        if isinstance(result, Replay):
            return _replay(unit, key, result.stored)
        if unit.refusal is not None:
            if not isinstance(unit.mode, Optimistic):  # an unlocked attempt writes its key only with a reply
                await keys.delete_key(unit.conn, unit.operator_id, key.key)  # the refusal is not a reply to replay
            return Refused()
        body = present(result)
        match unit.mode:
            case Optimistic(key=claim):
                unit.pending.insert(0, keys.insert_response(claim, status, body))  # the key first: see insert_response
            case Locked():
                unit.defer([keys.update_response(unit.operator_id, key.key, status, body)])
        return Reply(status=status, body=body)

    return once


def _replay(unit: UnitOfWork, key: IdempotencyKey, stored: keys.StoredResponse) -> Reply:
    """The first reply's bytes again; nothing this unit prepared is written or announced."""
    unit.after_commit.clear()
    unit.pending.clear()
    unit.refusal = None
    if stored.request_hash != key.request_hash:
        raise ApiError(409, "IDEMPOTENCY_CONFLICT", "this Idempotency-Key was used for a different request")
    if stored.status_code is None or stored.response is None:
        raise RetryTransaction("key claimed without a response")
    return Reply(status=stored.status_code, body=stored.response, replayed=True)
