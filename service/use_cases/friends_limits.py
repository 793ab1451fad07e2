"""The limits on the public friends' tables, counted in PostgreSQL so they hold across replicas: tables one address
creates in a clock hour, joins one address makes and joins one code takes in a clock minute, codes one address looks
up and does not find in a clock minute, and reactions one seat sends in ten seconds. The misses are what make
guessing codes hopeless: 28^8 codes (3.8e11), so even with 10,000 tables open an address finds one with odds of
about 4e-4 a day.

A request past a limit is refused with 429 RATE_LIMITED and a Retry-After of the seconds until its window ends; the
hits that count (a miss, a join) are committed even when the request is refused, with `refuse_after_commit`.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from uuid import UUID

from service.db import friends_sql
from service.db.unit_of_work import UnitOfWork
from service.errors import ApiError

MINUTE, HOUR = timedelta(minutes=1), timedelta(hours=1)
TEN_SECONDS = timedelta(seconds=10)  # a reaction's window: a burst of a few, then a pause, never a stream
KEEP_WINDOWS = timedelta(hours=2)  # counters older than this are purged by the sweeper


def window_of(now: datetime, length: timedelta) -> datetime:
    """The start of the fixed window `now` falls in (a clock hour, a clock minute, or ten seconds of one)."""
    start = now.replace(second=0, microsecond=0)
    if length == HOUR:
        return start.replace(minute=0)
    if length == TEN_SECONDS:
        return start.replace(second=now.second - now.second % 10)
    return start


def rate_limited(what: str, now: datetime, length: timedelta) -> ApiError:
    wait = max(1, int((window_of(now, length) + length - now).total_seconds() + 0.999))
    return ApiError(429, "RATE_LIMITED", f"too many {what}; try again in {wait} s", retryable=True, retry_after=wait)


async def count(unit: UnitOfWork, bucket: str, limit: int, length: timedelta, what: str) -> bool:
    """Count one hit in the bucket's window; whether it is within the limit. Past it, the unit refuses the request
    after committing (so a refused hit still counts)."""
    hits = await friends_sql.count_hit(unit.conn, bucket, window_of(unit.now, length))
    if hits > limit:
        unit.refuse_after_commit(rate_limited(what, unit.now, length))
        return False
    return True


async def refuse_if_missing_too_often(unit: UnitOfWork, address: str) -> None:
    """Refuse an address that has looked up too many codes that do not exist this minute (nothing is written)."""
    limit = unit.settings.friends.misses_per_minute
    if await friends_sql.hits(unit.conn, f"miss:{address}", window_of(unit.now, MINUTE)) >= limit:
        raise rate_limited("codes not found", unit.now, MINUTE)


async def count_miss(unit: UnitOfWork, address: str, refusal: ApiError) -> None:
    """A code that names no open table: counted against the address, then the request is refused after commit."""
    await friends_sql.count_hit(unit.conn, f"miss:{address}", window_of(unit.now, MINUTE))
    unit.refuse_after_commit(refusal)


async def count_create(unit: UnitOfWork, address: str) -> bool:
    return await count(unit, f"create:{address}", unit.settings.friends.tables_per_hour, HOUR, "tables created")


async def count_reaction(unit: UnitOfWork, table_id: UUID, seat: int) -> bool:
    """A reaction counted against its seat (not its address: friends on one Wi-Fi share one)."""
    bucket = f"react:{table_id.hex}:{seat}"
    return await count(unit, bucket, unit.settings.friends.reactions_per_10s, TEN_SECONDS, "reactions from this seat")


async def count_join(unit: UnitOfWork, address: str, code: str) -> bool:
    friends = unit.settings.friends
    if not await count(unit, f"join:{address}", friends.joins_per_minute, MINUTE, "joins from this address"):
        return False
    return await count(unit, f"code:{code}", friends.code_joins_per_minute, MINUTE, "joins of this table")
