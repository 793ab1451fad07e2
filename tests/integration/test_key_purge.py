"""Idempotency keys past their retention are purged a batch per transaction, oldest first, skipping a key a request
holds at that moment; younger keys stay."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime, timedelta

import asyncpg

from service.db import idempotency_sql

LONG_AGO = datetime(1990, 1, 1, tzinfo=UTC)  # older than any key another test writes (their clocks are today's)
CUTOFF = LONG_AGO + timedelta(days=1)


async def test_old_keys_go_a_batch_at_a_time_and_a_young_key_and_a_held_key_stay(
    db: asyncpg.Connection, database_url: str
) -> None:
    operator = f"purge-{secrets.token_hex(4)}"
    old = [(f"old-{i:02d}", LONG_AGO + timedelta(minutes=i)) for i in range(12)]
    for key, created in [*old, ("young", CUTOFF + timedelta(seconds=1))]:
        await db.execute(
            "INSERT INTO idempotency_keys (operator_id, key, request_hash, created_at) VALUES ($1, $2, '', $3)",
            operator,
            key,
            created,
        )
    holder = await asyncpg.connect(database_url)
    try:
        async with holder.transaction():  # a request holding the oldest key right now
            await holder.execute(
                "SELECT 1 FROM idempotency_keys WHERE operator_id = $1 AND key = 'old-00' FOR UPDATE", operator
            )
            batches = [await idempotency_sql.delete_expired_keys(db, CUTOFF, 5) for _ in range(4)]
            left = [
                r["key"] for r in await db.fetch("SELECT key FROM idempotency_keys WHERE operator_id = $1", operator)
            ]
            assert batches == [5, 5, 1, 0]
            assert sorted(left) == ["old-00", "young"]
        assert await idempotency_sql.delete_expired_keys(db, CUTOFF, 5) == 1
    finally:
        await holder.close()
