"""Fill a database with rounds shaped like the real ones already in it (INSERT ... SELECT, not the generator).

Each seeded round copies a real round row (state, shoe, players), its audit records and its share of idempotency keys,
with fresh ids, hashes and earlier timestamps, on seed tables of their own: the live tables' chains stay untouched.
The seed tables' chains do not verify (their bodies are copies); they are there for the size of tables and indexes.
Columns are copied by name from the catalog, and only the ones that must change are rewritten, so a new column is
carried over without a change here.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import timedelta

import asyncpg
import msgspec

SEED_TABLES = 32
SPACING = timedelta(milliseconds=2)  # between seeded rounds: about the pace of the real ones, so times stay ordered

_SEED_TABLES = (
    "CREATE TEMP TABLE seed_tables AS SELECT n, gen_random_uuid() AS table_id FROM generate_series(0, $1 - 1) n"
)

# Seeded round g copies real round 1 + g % (real rounds), and is older than every real round.
_SEED_MAP = """
CREATE TEMP TABLE seed_map AS
WITH source AS (SELECT row_number() OVER (ORDER BY opened_at) AS i, round_id, opened_at FROM rounds),
     n AS (SELECT count(*) AS real, min(opened_at) AS first FROM rounds)
SELECT g, gen_random_uuid() AS round_id, s.round_id AS source_id, t.table_id,
       n.first - ($1 - g + 1) * $3::interval AS opened_at, s.opened_at AS source_opened_at
FROM n CROSS JOIN generate_series(1, $1) g
JOIN source s ON s.i = 1 + g % n.real
JOIN seed_tables t ON t.n = g % $2
"""

_MOVE_HEADS = """
UPDATE game_tables t SET audit_seq = h.seq, audit_tree = audit_compact_range(t.table_id)
FROM (SELECT table_id, max(seq) AS seq FROM audit_log WHERE table_id IN (SELECT table_id FROM seed_tables) GROUP BY 1) h
WHERE h.table_id = t.table_id
"""


class Seeding(msgspec.Struct, frozen=True, kw_only=True):
    rounds_before: int
    rounds_after: int
    audit_records_after: int
    keys_after: int
    seconds: float
    database_mb: float
    method: str = "SQL INSERT ... SELECT copies of the run's own rows, then VACUUM ANALYZE and a CHECKPOINT"


async def copy(conn: asyncpg.Connection, table: str, source: str, joins: str, changed: Mapping[str, str]) -> None:
    """INSERT INTO table SELECT every column from `source` (aliased s), with `changed` columns computed instead."""
    names = [
        r["column_name"]
        for r in await conn.fetch(
            "SELECT column_name FROM information_schema.columns"
            " WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position",
            table,
        )
    ]
    values = ", ".join(changed.get(name, f"s.{name}") for name in names)
    await conn.execute(f"INSERT INTO {table} ({', '.join(names)}) SELECT {values} FROM {source} s {joins}")  # noqa: S608


async def _seed(conn: asyncpg.Connection, count: int) -> None:
    await conn.execute(_SEED_TABLES, SEED_TABLES)
    first_table = "(SELECT * FROM game_tables ORDER BY created_at LIMIT 1)"
    await copy(conn, "game_tables", first_table, "CROSS JOIN seed_tables t", {"table_id": "t.table_id"})
    await conn.execute(_SEED_MAP, count, SEED_TABLES, SPACING)
    await copy(
        conn,
        "rounds",
        "rounds",
        "JOIN seed_map m ON m.source_id = s.round_id",
        {
            "round_id": "m.round_id",
            "table_id": "m.table_id",
            "opened_at": "m.opened_at",
            "window_closes_at": "m.opened_at + (s.window_closes_at - s.opened_at)",
            "settled_at": "m.opened_at + (s.settled_at - s.opened_at)",
        },
    )
    # A request's records are stored together (migration 024): each seeded batch is a real round's, with fresh
    # hashes, the seed table's seqs counted on from its batches' sizes.
    await copy(
        conn,
        "audit_batches",
        "(SELECT round_id AS source_id, * FROM audit_batches WHERE round_id IS NOT NULL)",
        "JOIN seed_map m ON m.source_id = s.source_id",
        {
            "table_id": "m.table_id",
            "first_seq": "sum(cardinality(s.bodies)) OVER (PARTITION BY m.table_id ORDER BY m.g, s.first_seq)"
            " - cardinality(s.bodies) + 1",
            "round_id": "m.round_id",
            "hashes": "ARRAY(SELECT sha256(convert_to(m.round_id::text || '/' || s.first_seq || '/' || i, 'UTF8'))"
            " FROM generate_series(1, cardinality(s.bodies)) i)",
            "recorded_at": "m.opened_at + (s.recorded_at - m.source_opened_at)",
        },
    )
    await conn.execute(_MOVE_HEADS)
    # Keys in the proportion the real run made them (about 1.8 a round), older than every real key.
    found = await conn.fetchrow("SELECT count(*), min(created_at) FROM idempotency_keys")
    assert found is not None  # an aggregate always returns a row
    real_keys, first_key = found
    real_rounds = await conn.fetchval("SELECT count(*) FROM rounds") - count
    keys = real_keys * count // max(real_rounds, 1)
    await copy(
        conn,
        "idempotency_keys",
        "(SELECT row_number() OVER () AS i, * FROM idempotency_keys)",
        f"JOIN generate_series(1, {int(keys)}) g ON s.i = 1 + g % {int(real_keys)}",
        {
            "key": "gen_random_uuid()::text",
            "created_at": f"'{first_key.isoformat()}'::timestamptz - g * '1 ms'::interval",
        },
    )


async def seed(url: str, target: int) -> Seeding:
    conn = await asyncpg.connect(url)
    try:
        started = time.monotonic()
        before = int(await conn.fetchval("SELECT count(*) FROM rounds"))
        if target > before > 0:
            async with conn.transaction():
                await _seed(conn, target - before)
            await conn.execute("VACUUM ANALYZE")  # a database that grew slowly would have been vacuumed on the way
            await conn.execute("CHECKPOINT")  # so the write burst is not flushed during the measured window
        return Seeding(
            rounds_before=before,
            rounds_after=int(await conn.fetchval("SELECT count(*) FROM rounds")),
            audit_records_after=int(await conn.fetchval("SELECT count(*) FROM audit_log")),
            keys_after=int(await conn.fetchval("SELECT count(*) FROM idempotency_keys")),
            seconds=round(time.monotonic() - started, 1),
            database_mb=round(await conn.fetchval("SELECT pg_database_size(current_database())") / 2**20, 1),
        )
    finally:
        await conn.close()
