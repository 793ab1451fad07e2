"""What a database superuser can do to a chain that the hash chain alone cannot show: put other bodies in and
re-chain every record from the first, so every link and hash recomputes, then move the chain's row to match."""

from __future__ import annotations

import hashlib
from uuid import UUID

import asyncpg

from tests.support.stored_records import overwrite_record

# The row that holds each kind of chain's head, and its id column
HEAD_ROWS = {"game_tables": "table_id", "inbetween_games": "game_id"}


async def rechain_as_owner(db: asyncpg.Connection, chain: UUID, bodies: list[bytes], head_row: str) -> None:
    """The chain's records given these bodies, re-hashed and re-linked from seq 1, its row's head and Merkle tree head
    moved to the new last hash, and its checkpoints deleted: one transaction, with the append-only triggers off."""
    id_column = HEAD_ROWS[head_row]
    async with db.transaction():
        await db.execute("SET LOCAL session_replication_role = replica")  # the append-only triggers stop firing
        prev = bytes(32)
        for seq, body in enumerate(bodies, start=1):
            digest = hashlib.sha256(prev + body).digest()
            await overwrite_record(db, chain, seq, prev_hash=prev, hash=digest, body=body)
            prev = digest
        await db.execute(
            f"UPDATE {head_row} SET audit_hash = $2, audit_tree = audit_compact_range({id_column})"  # noqa: S608 - ours
            f" WHERE {id_column} = $1",
            chain,
            prev,
        )
        await db.execute("DELETE FROM audit_checkpoints WHERE table_id = $1", chain)
