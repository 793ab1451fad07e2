"""What checkpoints and proofs cost in the service (best of several runs, one core; run by hand, not by pytest):
keeping a table's tree head per append, signing a checkpoint, the migration's SQL backfill, and building a round's
proof from a table of 100,000 records in PostgreSQL (DATABASE_URL: a scratch database is made and dropped)."""

from __future__ import annotations

import asyncio
import hashlib
import os
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime

import asyncpg

from audit.checkpoint import Checkpoint, sign_checkpoint
from audit.merkle import CompactRange, build
from audit.signed_note import generate_key, parse_signer
from service.db.checkpoint_sql import select_record_hashes
from service.db.migrate import apply_migrations
from tests.support.database import fresh_database_name, with_database

RECORDS = 100_000


def best(action: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def pure() -> None:
    hashes = [hashlib.sha256(i.to_bytes(8, "big")).digest() for i in range(RECORDS)]
    head = CompactRange().extend(hashes[:-10])
    per_append = best(lambda: head.extend(hashes[-10:]), 2000) / 10
    signer = parse_signer(generate_key("bench/audit", bytes(32)).signer_key)
    checkpoint = Checkpoint(origin="bench/audit/table/x", size=RECORDS, root=head.root())
    signing = best(lambda: sign_checkpoint(checkpoint, signer), 2000)
    print(f"tree head per appended record (10 a round)   {per_append * 1e6:8.2f} us")
    print(f"root of the head + Ed25519 checkpoint        {(best(head.root, 2000) + signing) * 1e6:8.2f} us")


async def database(url: str) -> None:
    name = fresh_database_name()
    admin = await asyncpg.connect(url)
    await admin.execute(f'CREATE DATABASE "{name}"')
    conn = await asyncpg.connect(with_database(url, name))
    try:
        await apply_migrations(conn)
        table = uuid.uuid4()
        now = datetime.now(UTC)
        rows = [
            (table, seq, bytes(32), hashlib.sha256(seq.to_bytes(8, "big")).digest(), now, "card_dealt", None, None,
             False, b"{}")
            for seq in range(1, RECORDS + 1)
        ]  # fmt: skip
        await conn.copy_records_to_table("audit_log", records=rows)
        start = time.perf_counter()
        await conn.fetchval("SELECT audit_compact_range($1)", table)
        print(f"migration backfill (plpgsql), {RECORDS} records  {time.perf_counter() - start:8.3f} s")
        timings = []
        for _ in range(5):
            start = time.perf_counter()
            hashes = await select_record_hashes(conn, table, RECORDS)
            loaded = time.perf_counter()
            tree = build(hashes)
            paths = [tree.inclusion_proof(i, RECORDS) for i in range(RECORDS - 12, RECORDS)]
            timings.append((loaded - start, time.perf_counter() - loaded, len(paths)))
        load, hashing, _ = min(timings)
        print(f"round proof on {RECORDS} records: load hashes   {load:8.3f} s, build + 12 paths {hashing:8.3f} s")
    finally:
        await conn.close()
        await admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
        await admin.close()


if __name__ == "__main__":
    pure()
    asyncio.run(database(os.environ["DATABASE_URL"]))
