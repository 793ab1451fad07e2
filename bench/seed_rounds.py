"""Fill a database with rounds shaped like the real ones already in it (INSERT ... SELECT, not the generator).

Each seeded round copies a real round row (state, shoe, players), its audit records and its share of idempotency keys,
with fresh ids, hashes and earlier timestamps, on seed tables of their own: the live tables' chains stay untouched.
The seed tables' chains do not verify (their bodies are copies); they are there for the size of tables and indexes.
"""

from __future__ import annotations

import time

import asyncpg
import msgspec

SEED_TABLES = 32
SPACING = "2 milliseconds"  # between seeded rounds: about the pace of the real ones, so times stay ordered

_SEED_TABLES = """
CREATE TEMP TABLE seed_tables AS
SELECT n, gen_random_uuid() AS table_id FROM generate_series(0, $1 - 1) n;
"""

_COPY_TABLES = """
INSERT INTO game_tables
SELECT (jsonb_populate_record(NULL::game_tables, to_jsonb(t) || jsonb_build_object('table_id', s.table_id))).*
FROM seed_tables s, (SELECT * FROM game_tables ORDER BY created_at LIMIT 1) t;
"""

# Every seeded round g copies real round 1 + g % (real rounds), older than every real round.
_SEED_MAP = """
CREATE TEMP TABLE seed_map AS
WITH source AS (SELECT row_number() OVER (ORDER BY opened_at) AS i, round_id, opened_at FROM rounds),
     n AS (SELECT count(*) AS real, min(opened_at) AS first FROM rounds)
SELECT g, gen_random_uuid() AS round_id, s.round_id AS source_id, t.table_id,
       n.first - ($1 - g + 1) * interval '%(spacing)s' AS opened_at, s.opened_at AS source_opened_at
FROM n, generate_series(1, $1) g
JOIN source s ON s.i = 1 + g %% (SELECT real FROM n)
JOIN seed_tables t ON t.n = g %% $2;
"""

_COPY_ROUNDS = """
INSERT INTO rounds
SELECT (jsonb_populate_record(NULL::rounds, to_jsonb(r) || jsonb_build_object(
    'round_id', m.round_id, 'table_id', m.table_id, 'opened_at', m.opened_at,
    'window_closes_at', m.opened_at + (r.window_closes_at - r.opened_at),
    'settled_at', m.opened_at + (r.settled_at - r.opened_at)))).*
FROM seed_map m JOIN rounds r ON r.round_id = m.source_id;
"""

# A round's records are contiguous on its table (one client per table): the shoe events on either side carry no
# round id, so take one record beyond each end of the round's own.
_COPY_AUDIT = """
WITH spans AS (
    SELECT table_id, round_id, min(seq) AS lo, max(seq) AS hi FROM audit_log WHERE round_id IS NOT NULL GROUP BY 1, 2
), records AS (
    SELECT s.round_id AS source_id, a.* FROM spans s
    JOIN audit_log a ON a.table_id = s.table_id AND a.seq BETWEEN s.lo - 1 AND s.hi + 1
     AND (a.round_id = s.round_id OR a.round_id IS NULL)
)
INSERT INTO audit_log
SELECT (jsonb_populate_record(NULL::audit_log, to_jsonb(a) || jsonb_build_object(
    'table_id', m.table_id,
    'seq', row_number() OVER (PARTITION BY m.table_id ORDER BY m.g, a.seq),
    'round_id', CASE WHEN a.round_id IS NULL THEN NULL ELSE m.round_id END,
    'hash', sha256(convert_to(m.round_id::text || '/' || a.seq, 'UTF8')),
    'recorded_at', m.opened_at + (a.recorded_at - m.source_opened_at)))).*
FROM seed_map m JOIN records a ON a.source_id = m.source_id;
"""

_MOVE_HEADS = """
UPDATE game_tables t SET audit_seq = h.seq
FROM (SELECT table_id, max(seq) AS seq FROM audit_log GROUP BY 1) h, seed_tables s
WHERE t.table_id = s.table_id AND h.table_id = t.table_id;
"""

# Keys in the proportion the real run made them (about 1.8 a round), older than every real key.
_COPY_KEYS = """
WITH source AS (SELECT row_number() OVER () AS i, * FROM idempotency_keys),
     n AS (SELECT count(*) AS real, min(created_at) AS first FROM idempotency_keys),
     r AS (SELECT count(*) AS real FROM rounds WHERE round_id NOT IN (SELECT round_id FROM seed_map)),
     wanted AS (SELECT (n.real * $1 / greatest(r.real, 1))::bigint AS keys FROM n, r)
INSERT INTO idempotency_keys
SELECT (jsonb_populate_record(NULL::idempotency_keys, to_jsonb(k) || jsonb_build_object(
    'key', gen_random_uuid()::text,
    'created_at', n.first - ((SELECT keys FROM wanted) - g + 1) * interval '1 millisecond'))).*
FROM n, generate_series(1, (SELECT keys FROM wanted)) g
JOIN source k ON k.i = 1 + g %% (SELECT real FROM n);
"""


class Seeding(msgspec.Struct, frozen=True, kw_only=True):
    rounds_before: int
    rounds_after: int
    audit_records_after: int
    keys_after: int
    seconds: float
    database_mb: float
    method: str = "SQL INSERT ... SELECT copies of the run's own rows; VACUUM ANALYZE afterwards"


async def seed(url: str, target: int) -> Seeding:
    conn = await asyncpg.connect(url)
    try:
        started = time.monotonic()
        before = int(await conn.fetchval("SELECT count(*) FROM rounds"))
        count = target - before
        if count > 0 and before > 0:
            async with conn.transaction():
                await conn.execute(_SEED_TABLES, SEED_TABLES)
                await conn.execute(_COPY_TABLES)
                await conn.execute(_SEED_MAP % {"spacing": SPACING}, count, SEED_TABLES)
                await conn.execute(_COPY_ROUNDS)
                await conn.execute(_COPY_AUDIT)
                await conn.execute(_MOVE_HEADS)
                await conn.execute(_COPY_KEYS, count)
            await conn.execute("VACUUM ANALYZE")  # a database that grew slowly would have been vacuumed on the way
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
