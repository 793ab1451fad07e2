"""The idempotency key claimed inside the lock statement: claimed before the row is locked, and a taken key told
apart from a free one even when the row is missing."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import asyncpg
import pytest

from service.db import idempotency_sql as keys
from service.db import round_sql, table_sql
from service.db.row_reads import MISSING, Found, Locked, Replay
from service.settings import Settings
from tests.support.live import live

NOW = datetime(2026, 1, 1, tzinfo=UTC)
DIGEST = b"\x01" * 32


def claim(operator_id: str, key: str) -> keys.Claim:
    return keys.Claim(operator_id=operator_id, key=key, request_hash=DIGEST, now=NOW)


@pytest.fixture
async def conns(database_url: str) -> AsyncIterator[list[asyncpg.Connection]]:
    opened = [await asyncpg.connect(database_url) for _ in range(3)]
    yield opened
    for conn in opened:
        await conn.close()


async def a_table(settings: Settings) -> tuple[str, uuid.UUID]:
    async with live(settings) as app:
        table = await app.api.table()
    return app.api.operator_id, uuid.UUID(table["table_id"])


async def test_a_second_request_with_the_same_key_waits_for_the_key_holding_no_lock_on_the_table(
    settings: Settings, conns: list[asyncpg.Connection]
) -> None:
    operator, table_id = await a_table(settings)
    first, second, third = conns
    key = f"k-{uuid.uuid4()}"
    await first.execute("BEGIN")
    assert await keys.claim_key(first, operator, key, DIGEST, NOW) is None
    await second.execute("BEGIN")
    waiting = asyncio.ensure_future(table_sql.lock_table(second, operator, table_id, Locked(key=claim(operator, key))))
    await asyncio.sleep(0.3)
    assert not waiting.done()  # it waits on the key the first transaction holds...
    locked = await third.fetchval("SELECT true FROM game_tables WHERE table_id = $1 FOR UPDATE NOWAIT", table_id)
    assert locked  # ...holding no lock on the table's row meanwhile: the two can never deadlock
    await first.execute("COMMIT")
    assert isinstance(await waiting, Replay)  # the key was taken: the first request's reply, not this one's
    await second.execute("ROLLBACK")


async def test_a_free_key_is_claimed_with_the_lock_and_a_rollback_frees_it(
    settings: Settings, conns: list[asyncpg.Connection]
) -> None:
    operator, table_id = await a_table(settings)
    conn = conns[0]
    key = f"k-{uuid.uuid4()}"
    refused = conn.transaction()
    await refused.start()
    locked = await table_sql.lock_table(conn, operator, table_id, Locked(key=claim(operator, key)))
    assert isinstance(locked, Found)
    assert locked.value.table.table_id == table_id
    assert await conn.fetchval("SELECT request_hash FROM idempotency_keys WHERE key = $1", key) == DIGEST
    await refused.rollback()  # what a refused request does
    assert await conn.fetchval("SELECT count(*) FROM idempotency_keys WHERE key = $1", key) == 0


async def test_a_lock_that_finds_no_row_still_tells_a_taken_key_from_one_it_claimed(
    settings: Settings, conns: list[asyncpg.Connection]
) -> None:
    operator, _ = await a_table(settings)
    conn = conns[0]
    taken, free = f"k-{uuid.uuid4()}", f"k-{uuid.uuid4()}"
    assert await keys.claim_key(conn, operator, taken, DIGEST, NOW) is None  # committed by an earlier request
    async with conn.transaction():
        taken_read = await round_sql.read_round(conn, operator, uuid.uuid4(), Locked(key=claim(operator, taken)))
        assert isinstance(taken_read, Replay)
    async with conn.transaction():
        assert await round_sql.read_round(conn, operator, uuid.uuid4(), Locked(key=claim(operator, free))) == MISSING
        other = Locked(key=claim(operator, f"k-{uuid.uuid4()}"))
        assert await table_sql.lock_table(conn, operator, uuid.uuid4(), other) == MISSING
