"""A database owner's edit of one stored audit record, wherever it is stored (migration 024): a row of audit_rows
(records written before it), or one element of its batch's arrays in audit_batches. With the append-only triggers
off, as only an owner can: what the verifiers must catch."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import asyncpg

# A record's column and the batch array holding it; prev_hash is the batch's own for its first record, and for any
# other record the hash of the one before it, which a batch does not store twice.
_BATCH_ARRAYS = {"body": "bodies", "hash": "hashes", "kind": "kinds", "bet_id": "bet_ids"}


async def overwrite_record(db: asyncpg.Connection, chain: UUID, seq: int, **columns: Any) -> None:
    """Set the stored columns of record `seq` of `chain` (body, hash, prev_hash, kind, bet_id) in one transaction."""
    async with db.transaction():
        await db.execute("SET LOCAL session_replication_role = replica")  # the append-only triggers stop firing
        if await db.fetchval("SELECT 1 FROM audit_rows WHERE table_id = $1 AND seq = $2", chain, seq):
            row_sets = ", ".join(f"{name} = ${i}" for i, name in enumerate(columns, start=3))
            await db.execute(
                f"UPDATE audit_rows SET {row_sets} WHERE table_id = $1 AND seq = $2",  # noqa: S608 - the test's columns
                chain,
                seq,
                *columns.values(),
            )
            return
        batch = await db.fetchrow(
            "SELECT first_seq, hashes FROM audit_batches WHERE table_id = $1 AND first_seq <= $2"
            " ORDER BY first_seq DESC LIMIT 1",
            chain,
            seq,
        )
        assert batch is not None, f"no record {seq} in {chain}"
        assert seq < batch["first_seq"] + len(batch["hashes"]), f"no record {seq} in {chain}"
        at = seq - batch["first_seq"] + 1
        sets: list[str] = []
        values: list[Any] = []
        for name, value in columns.items():
            if name == "prev_hash" and at > 1:
                # Record `at`'s link is the hash of the record before it in the same row: only that can change it.
                assert value == batch["hashes"][at - 2], "a batch's inner link is the previous record's hash"
                continue
            values.append(value)
            target = "prev_hash" if name == "prev_hash" else f"{_BATCH_ARRAYS[name]}[{at}]"
            sets.append(f"{target} = ${len(values) + 2}")
        if sets:
            await db.execute(
                f"UPDATE audit_batches SET {', '.join(sets)} WHERE table_id = $1 AND first_seq = $2",  # noqa: S608
                chain,
                batch["first_seq"],
                *values,
            )
