"""SQL for idempotency keys: claim a key in the request's transaction, store the response beside it."""

from __future__ import annotations

from datetime import datetime, timedelta

import msgspec

from service.db import Conn, RetryTransaction, Statement


class StoredResponse(msgspec.Struct, frozen=True, kw_only=True):
    request_hash: bytes
    status_code: int | None
    response: bytes | None


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
    record = await conn.fetchrow(
        "SELECT request_hash, status_code, response FROM idempotency_keys WHERE operator_id = $1 AND key = $2",
        operator_id,
        key,
    )
    if record is None:  # purged between the two statements; the caller retries the transaction
        raise RetryTransaction("idempotency key purged while being read")
    return StoredResponse(**dict(record))


def update_response(operator_id: str, key: str, status_code: int, response: bytes) -> Statement:
    return Statement(
        sql="UPDATE idempotency_keys SET status_code = $3, response = $4 WHERE operator_id = $1 AND key = $2",
        args=(operator_id, key, status_code, response),
    )


async def delete_key(conn: Conn, operator_id: str, key: str) -> None:
    await conn.execute("DELETE FROM idempotency_keys WHERE operator_id = $1 AND key = $2", operator_id, key)


async def delete_expired_keys(conn: Conn, now: datetime, retention: timedelta) -> int:
    status = await conn.execute("DELETE FROM idempotency_keys WHERE created_at < $1", now - retention)
    return int(status.split()[-1])
