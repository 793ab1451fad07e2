"""One transaction per state change: retries on races, idempotency keys, work to do after commit."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Iterable
from datetime import UTC, datetime
from typing import Any, TypeVar

import asyncpg
import msgspec

from service.db import Conn, RetryTransaction, Statement, execute_together
from service.db import idempotency as keys
from service.errors import UNAVAILABLE, ApiError
from service.settings import Settings

T = TypeVar("T")
ATTEMPTS = 4
RETRYABLE = (asyncpg.exceptions.SerializationError, asyncpg.exceptions.DeadlockDetectedError, RetryTransaction)
_encode = msgspec.json.Encoder().encode


class Unit:
    """What a use case gets: the transaction's connection, one clock reading, the operator, the settings."""

    def __init__(self, conn: Conn, settings: Settings, operator_id: str, now: datetime) -> None:
        self.conn = conn
        self.settings = settings
        self.operator_id = operator_id
        self.now = now
        self.after_commit: list[Callable[[], None]] = []
        self.pending: list[Statement] = []

    def defer(self, statements: Iterable[Statement]) -> None:
        """Writes to run together, in one round trip, when the work is done (still inside the transaction)."""
        self.pending.extend(statements)


class CommitThenRaise(Exception):
    """The work changed state that must stand (a deadline passed), yet the request itself is refused."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


class Reply(msgspec.Struct, frozen=True, kw_only=True):
    status: int
    body: bytes
    replayed: bool = False


async def _backoff(attempt: int) -> None:
    await asyncio.sleep(random.uniform(0.001, 0.02) * (attempt + 1))  # noqa: S311 - jitter, not a game draw


def utcnow() -> datetime:
    return datetime.now(UTC)


async def run(pool: asyncpg.Pool, settings: Settings, operator_id: str, work: Callable[[Unit], Awaitable[T]]) -> T:
    """Run `work` in one transaction, again on a serialization failure, deadlock or lost connection; then the
    after-commit hooks."""
    for attempt in range(ATTEMPTS):
        try:
            async with pool.acquire() as conn, conn.transaction():
                unit = Unit(conn, settings, operator_id, utcnow())
                result = await work(unit)
                await execute_together(conn, unit.pending)
        except RETRYABLE:
            if attempt == ATTEMPTS - 1:
                raise ApiError(503, "SERVICE_UNAVAILABLE", "too much contention; retry", retryable=True) from None
            await _backoff(attempt)
            continue
        except UNAVAILABLE:
            # Safe to run again: a transaction cut before COMMIT rolled back, and one whose COMMIT landed unseen
            # replays from its idempotency key. Past the last attempt the error becomes a retryable 503.
            if attempt == ATTEMPTS - 1:
                raise
            await _backoff(attempt)
            continue
        for hook in unit.after_commit:
            hook()
        return result
    raise AssertionError("unreachable")


async def run_idempotent(
    pool: asyncpg.Pool,
    settings: Settings,
    operator_id: str,
    key: str,
    request_hash: bytes,
    status: int,
    work: Callable[[Unit], Awaitable[Any]],
) -> Reply:
    """Run a POST once per idempotency key: a repeat gets the first reply's bytes, a different request a 409."""

    async def once(unit: Unit) -> Reply | CommitThenRaise:
        stored = await keys.claim_key(unit.conn, operator_id, key, request_hash, unit.now)
        if stored is not None:
            unit.after_commit.clear()
            if stored.request_hash != request_hash:
                raise ApiError(409, "IDEMPOTENCY_CONFLICT", "this Idempotency-Key was used for a different request")
            if stored.status_code is None or stored.response is None:
                raise RetryTransaction("key claimed without a response")
            return Reply(status=stored.status_code, body=stored.response, replayed=True)
        try:
            body = _encode(await work(unit))
        except CommitThenRaise as deferred:
            await keys.delete_key(unit.conn, operator_id, key)  # the refusal is not a reply to replay
            return deferred
        unit.defer([keys.update_response(operator_id, key, status, body)])
        return Reply(status=status, body=body)

    outcome = await run(pool, settings, operator_id, once)
    if isinstance(outcome, CommitThenRaise):
        raise outcome.error
    return outcome


async def run_committing(
    pool: asyncpg.Pool, settings: Settings, operator_id: str, work: Callable[[Unit], Awaitable[T]]
) -> T:
    """Like `run`, for work that may raise CommitThenRaise: commit its changes, then raise the refusal."""

    async def once(unit: Unit) -> T | CommitThenRaise:
        try:
            return await work(unit)
        except CommitThenRaise as deferred:
            return deferred

    outcome = await run(pool, settings, operator_id, once)
    if isinstance(outcome, CommitThenRaise):
        raise outcome.error
    return outcome
