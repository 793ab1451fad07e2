"""SQL for idempotency keys: claim a key in the request's transaction, store the response beside it."""

from __future__ import annotations

from datetime import datetime

import asyncpg
import msgspec

from service.db import Conn, RetryTransaction, Statement, preset_deflate
from service.db.reply_dictionary import CURRENT, DICTIONARIES


class StoredResponse(msgspec.Struct, frozen=True, kw_only=True):
    request_hash: bytes
    status_code: int | None
    response: bytes | None


def deflated(reply: bytes) -> bytes:
    """A reply as stored (migration 019): deflated with its preset dictionary (reply_dictionary), which takes a
    round's 1.7 KB of JSON to about 490 bytes in a few tens of microseconds."""
    return preset_deflate.deflate(reply, CURRENT, DICTIONARIES)


def reply_of(response: bytes | None, response_deflated: bytes | None) -> bytes | None:
    """The reply's exact bytes from a key's row: deflated since migration 019, as sent before it."""
    if response_deflated is None:
        return response
    return preset_deflate.inflate(response_deflated, DICTIONARIES)


class Claim(msgspec.Struct, frozen=True, kw_only=True):
    """A request's key, to look up or claim in the statement that reads the row the request changes (row_reads)."""

    operator_id: str
    key: str
    request_hash: bytes
    now: datetime


def claim_cte(operator_param: int, first: int) -> str:
    """`claim AS (...)`: the claim as a data-modifying CTE; the operator is the lock's own parameter `operator_param`,
    the key, request hash and time are `first`.. `first + 2`.

    Read from the lock's select list (`CLAIMED`), it runs before the row lock is taken: a second request
    with the same key waits on the key's index entry holding no row lock, so it can never deadlock with the first.
    """
    op, key, digest, now = f"${operator_param}", f"${first}", f"${first + 1}", f"${first + 2}"
    return (
        f"claim AS (INSERT INTO idempotency_keys (operator_id, key, request_hash, created_at)"  # noqa: S608 - $n only
        f" VALUES ({op}, {key}, {digest}, {now}) ON CONFLICT (operator_id, key) DO NOTHING RETURNING true)"
    )


CLAIMED = "(SELECT count(*) FROM claim) AS claimed"


def look_up_join(operator_param: int, key_param: int) -> str:
    """A LEFT JOIN that reads the key (operator and key from the statement's parameters) beside the row read;
    `row_reads` reads its columns (`LOOKED_UP`)."""
    return f" LEFT JOIN idempotency_keys k ON k.operator_id = ${operator_param} AND k.key = ${key_param}"


LOOKED_UP = (
    "k.request_hash AS key_request_hash, k.status_code AS key_status_code, k.response AS key_response,"
    " k.response_deflated AS key_response_deflated"
)


def looked_up(record: asyncpg.Record) -> StoredResponse:
    """What the request that took the key stored, read beside a row with `LOOKED_UP`."""
    return StoredResponse(
        request_hash=record["key_request_hash"],
        status_code=record["key_status_code"],
        response=reply_of(record["key_response"], record["key_response_deflated"]),
    )


async def was_claimed(conn: Conn, claim: Claim, claimed: int | None) -> bool:
    """Whether the statement that carried `claim_cte` claimed the key. `claimed` is None when it found no row; the
    insert ran all the same (a data-modifying CTE always does), so the key is ours exactly when this transaction
    wrote its row."""
    if claimed is None:
        claimed = await conn.fetchval(
            "SELECT count(*) FROM idempotency_keys WHERE operator_id = $1 AND key = $2"
            " AND xmin = pg_current_xact_id()::xid",
            claim.operator_id,
            claim.key,
        )
    return bool(claimed)


async def claim_key(
    conn: Conn, operator_id: str, key: str, request_hash: bytes, now: datetime
) -> StoredResponse | None:
    """Claim the key for this transaction; None when claimed, else what the first request stored.

    A concurrent request with the same key waits here on the unique index until the first one commits or rolls back.
    """
    inserted = await conn.fetchval(
        "INSERT INTO idempotency_keys (operator_id, key, request_hash, created_at) VALUES ($1, $2, $3, $4)"
        " ON CONFLICT (operator_id, key) DO NOTHING RETURNING true",
        operator_id,
        key,
        request_hash,
        now,
    )
    if inserted:
        return None
    return await select_key(conn, operator_id, key)


async def select_key(conn: Conn, operator_id: str, key: str) -> StoredResponse:
    """What the request that took the key stored."""
    record = await conn.fetchrow(
        "SELECT request_hash, status_code, response, response_deflated FROM idempotency_keys"
        " WHERE operator_id = $1 AND key = $2",
        operator_id,
        key,
    )
    if record is None:  # purged since it was found taken; the caller retries the transaction
        raise RetryTransaction("idempotency key purged while being read")
    return StoredResponse(
        request_hash=record["request_hash"],
        status_code=record["status_code"],
        response=reply_of(record["response"], record["response_deflated"]),
    )


def insert_response(claim: Claim, status_code: int, response: bytes) -> Statement:
    """The key with its reply, written with the request's changes (a key taken meanwhile fails the statement).

    It leads, ahead of the table's guarded update: every writer takes the key before the table's row (a locked
    request claims it in its lock statement), so a write waiting for a key another request holds holds no row."""
    return Statement(
        sql="INSERT INTO idempotency_keys (operator_id, key, request_hash, created_at, status_code,"
        " response_deflated) VALUES ($1, $2, $3, $4, $5, $6) RETURNING 1",
        args=(claim.operator_id, claim.key, claim.request_hash, claim.now, status_code, deflated(response)),
        leads=True,
    )


def update_response(operator_id: str, key: str, status_code: int, response: bytes) -> Statement:
    return Statement(
        sql="UPDATE idempotency_keys SET status_code = $3, response_deflated = $4 WHERE operator_id = $1 AND key = $2",
        args=(operator_id, key, status_code, deflated(response)),
    )


async def delete_key(conn: Conn, operator_id: str, key: str) -> None:
    await conn.execute("DELETE FROM idempotency_keys WHERE operator_id = $1 AND key = $2", operator_id, key)


async def delete_expired_keys(conn: Conn, created_before: datetime, limit: int) -> int:
    """Delete up to `limit` keys created before `created_before`, oldest first (an index range on created_at);
    how many. Keys a request holds right now are skipped, not waited for."""
    status = await conn.execute(
        "DELETE FROM idempotency_keys k USING (SELECT operator_id, key FROM idempotency_keys"
        " WHERE created_at < $1 ORDER BY created_at LIMIT $2 FOR UPDATE SKIP LOCKED) old"
        " WHERE k.operator_id = old.operator_id AND k.key = old.key",
        created_before,
        limit,
    )
    return int(status.split()[-1])
