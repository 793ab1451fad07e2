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
from service.errors import ApiError, unavailable
from service.observability import metrics
from service.settings import Settings

T = TypeVar("T")
ATTEMPTS = 4
RETRYABLE = (asyncpg.exceptions.SerializationError, asyncpg.exceptions.DeadlockDetectedError, RetryTransaction)
# An unlocked attempt's read went stale (the head moved: 40001), or its key was taken meanwhile (a unique violation).
OPTIMISTIC_CONFLICTS = (*RETRYABLE, asyncpg.exceptions.UniqueViolationError)


class UnitOfWork:
    """One transaction's work: its connection and clock, the writes to flush together before COMMIT, what to do
    after COMMIT, and a refusal to raise once the changes that had to happen anyway are committed."""

    def __init__(
        self, conn: Conn, settings: Settings, clock: Clock, operator_id: str, *, optimistic: bool = False
    ) -> None:
        self.conn = conn
        # No transaction: the work reads once, unlocked, and its writes are one statement that checks the audit head
        # it read (a single statement is its own transaction). Only work shaped so (`run(..., optimistic=True)`).
        self.optimistic = optimistic
        self.settings = settings
        self.clock = clock
        self.operator_id = operator_id
        self.now = clock()
        self.pending: list[Statement] = []
        self.after_commit: list[Callable[[], None]] = []
        self.refusal: Exception | None = None
        self.key_claim: keys.Claim | None = None  # an idempotency key for the request's lock statement to claim

    def take_claim(self) -> keys.Claim | None:
        """The idempotency key to claim in the lock statement about to run (once: then it is claimed)."""
        claim, self.key_claim = self.key_claim, None
        return claim

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


async def run(runner: Runner, operator_id: str, work: Work[T], *, optimistic: bool = False) -> T:
    """Run `work` in one transaction, again on a serialization failure, deadlock or lost connection; after COMMIT
    the hooks run and a refusal the work carried is raised.

    `optimistic`: the work's one read is unlocked and its writes one statement checking the audit head it read
    (two round trips, no BEGIN or COMMIT). When another change got there first, the statement fails whole and the
    work runs again the locked way, which waits its turn instead of racing again."""
    attempts = ATTEMPTS + optimistic  # an unlocked attempt that loses does not use up a locked one
    for attempt in range(attempts):
        unlocked = optimistic and attempt == 0
        try:
            async with acquire(runner.pool) as conn:
                unit = UnitOfWork(conn, runner.settings, runner.clock, operator_id, optimistic=unlocked)
                if unlocked:
                    result = await work(unit)
                    await execute_together(conn, unit.pending)
                else:
                    async with conn.transaction():
                        result = await work(unit)
                        await execute_together(conn, unit.pending)
        except OPTIMISTIC_CONFLICTS as exc:
            if unlocked:  # the table changed, or the key was taken, between the read and the write: nothing written
                metrics.OPTIMISTIC_CONFLICTS.inc()
                continue
            if not isinstance(exc, RETRYABLE):
                raise
            if attempt == attempts - 1:
                raise ApiError(503, "SERVICE_UNAVAILABLE", "too much contention; retry", retryable=True) from None
            await _backoff(attempt)
            continue
        except Exception as exc:
            # Safe to run again: a transaction cut before COMMIT rolled back, and one whose COMMIT landed unseen
            # replays from its idempotency key. Past the last attempt the error becomes a retryable 503.
            if not unavailable(exc) or attempt == attempts - 1:
                raise
            await _backoff(attempt)
            continue
        for hook in unit.after_commit:
            hook()
        if unit.refusal is not None:
            raise unit.refusal
        return result
    raise AssertionError("unreachable")


async def _backoff(attempt: int) -> None:
    await asyncio.sleep(random.uniform(0.001, 0.02) * (attempt + 1))  # noqa: S311 - jitter, not a game draw


class Reply(msgspec.Struct, frozen=True, kw_only=True):
    status: int
    body: bytes
    replayed: bool = False


class IdempotencyKey(msgspec.Struct, frozen=True, kw_only=True):
    key: str
    request_hash: bytes  # binds the key to one request: the same key with another request is a conflict


def idempotent(
    key: IdempotencyKey, status: int, work: Work[T], present: Callable[[T], bytes], *, claim_in_lock: bool = False
) -> Work[Reply]:
    """The work run once per idempotency key: a repeat gets the first reply's bytes, a different request a 409.
    A refused request keeps no reply, so retrying it is evaluated afresh.

    `claim_in_lock`: the work's first statement is a row lock that claims the key too (`UnitOfWork.take_claim`),
    one round trip fewer; otherwise the key is claimed on its own before the work starts."""

    async def once(unit: UnitOfWork) -> Reply:
        claim = keys.Claim(
            operator_id=unit.operator_id,
            key=key.key,
            request_hash=key.request_hash,
            now=unit.now,
            lock=not unit.optimistic,
        )
        if unit.optimistic:
            assert claim_in_lock, "an unlocked attempt looks its key up in the work's one read"
        if claim_in_lock:
            unit.key_claim = claim
            try:
                result = await work(unit)
            except keys.KeyTaken:
                return _replay(unit, key, await keys.select_key(unit.conn, unit.operator_id, key.key))
            except keys.KeyFound as found:
                return _replay(unit, key, found.stored)
            if unit.key_claim is not None:
                raise AssertionError("the work never took its lock, so the idempotency key was never claimed")
        else:
            stored = await keys.claim_key(unit.conn, unit.operator_id, key.key, key.request_hash, unit.now)
            if stored is not None:
                return _replay(unit, key, stored)
            result = await work(unit)
        if unit.refusal is not None:
            if not unit.optimistic:  # an unlocked attempt writes its key only with a reply
                await keys.delete_key(unit.conn, unit.operator_id, key.key)  # the refusal is not a reply to replay
            return Reply(status=0, body=b"")  # never sent: run() raises the refusal instead
        body = present(result)
        if unit.optimistic:
            unit.pending.insert(0, keys.insert_response(claim, status, body))  # the key first: see insert_response
        else:
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
