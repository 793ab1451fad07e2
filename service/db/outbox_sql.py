"""SQL for the outbox (migration 015): write a message in the caller's transaction; claim due ones with SKIP LOCKED,
one ordering key at a time; mark each attempt; list them in the order they became visible; park, retry, resolve."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

import msgspec

from service.db import Conn, Statement
from service.db.storage_forms import FORMS

POSITION_LOCK = 0x5244_4F42_4F58  # "RDOBOX": one replica at a time gives committed messages their listed place
# A message's body: in outbox_bodies since migration 025, in its own row before (and there it is taken first).
BODY = "coalesce(o.body, (SELECT b.body FROM outbox_bodies b WHERE b.message_id = o.message_id))"
CLAIMED_COLUMNS = (
    f"o.seq, o.message_id, o.operator_id, o.channel, o.kind, {BODY} AS body, o.created_at, o.attempts,"
    " coalesce(o.retried_at, o.created_at) AS owed_since"
)


class OutboxMessage(msgspec.Struct, frozen=True, kw_only=True):
    """A message owed: written with the change that owes it, its id and body never changed afterwards."""

    message_id: UUID
    operator_id: str
    channel: str  # 'notification' (a wallet call is the next)
    ordering_key: str  # messages with one key are delivered one after another, in the order written
    kind: str
    body: bytes
    created_at: datetime


class Claimed(msgspec.Struct, frozen=True, kw_only=True):
    seq: int
    message_id: UUID
    operator_id: str
    channel: str
    kind: str
    body: bytes
    created_at: datetime
    attempts: int  # this attempt's number, from 1
    owed_since: datetime  # written, or retried by an operator: what the dead-letter age counts from


class DeadLetter(msgspec.Struct, frozen=True, kw_only=True):
    message_id: UUID
    operator_id: str
    kind: str
    ordering_key: str
    attempts: int
    last_error: str | None
    created_at: datetime
    parked_at: datetime | None


class Depth(msgspec.Struct, frozen=True, kw_only=True):
    waiting: int  # pending: owed and not yet delivered
    oldest: datetime | None  # when the oldest of them was written
    dead: int


def insert_message(message: OutboxMessage, *, deliver: bool) -> list[Statement]:
    """The message, due now when it has somewhere to go; otherwise only listed (status 'unsent'); its body beside it
    in the compact forms (migration 025, storage_forms), in its row in those before. A message whose id is already
    there is that message (a checkpoint's id is its table and size: replicas that both signed it)."""
    beside = FORMS.compact
    row = Statement(
        sql="INSERT INTO outbox (message_id, operator_id, channel, ordering_key, kind, created_at, status,"
        " next_attempt_at, body) VALUES ($1, $2, $3, $4, $5, $6, $7, $6, $8) ON CONFLICT (message_id) DO NOTHING",
        args=(
            message.message_id,
            message.operator_id,
            message.channel,
            message.ordering_key,
            message.kind,
            message.created_at,
            "pending" if deliver else "unsent",
            None if beside else message.body,
        ),
    )
    if not beside:
        return [row]
    body = Statement(
        sql="INSERT INTO outbox_bodies (message_id, body) VALUES ($1, $2) ON CONFLICT (message_id) DO NOTHING",
        args=(message.message_id, message.body),
    )
    return [row, body]


async def claim_due(conn: Conn, now: datetime, lease_until: datetime, limit: int) -> list[Claimed]:
    """Take up to `limit` due messages no other worker holds, each the first of its ordering key still owed (a
    dead letter holds back the messages after it), and lease them: a claim that is never answered is due again at
    `lease_until`. Claims commit at once; the sending happens outside any transaction."""
    records = await conn.fetch(
        f"UPDATE outbox o SET attempts = o.attempts + 1, next_attempt_at = $2 FROM ("  # noqa: S608 - ours
        " SELECT m.seq FROM outbox m WHERE m.status = 'pending' AND m.next_attempt_at <= $1"
        " AND NOT EXISTS (SELECT FROM outbox e WHERE e.ordering_key = m.ordering_key AND e.seq < m.seq"
        "  AND e.status IN ('pending', 'dead'))"
        " ORDER BY m.next_attempt_at LIMIT $3 FOR UPDATE OF m SKIP LOCKED) AS c"
        f" WHERE o.seq = c.seq RETURNING {CLAIMED_COLUMNS}",
        now,
        lease_until,
        limit,
    )
    return [Claimed(**dict(r)) for r in records]


async def mark_delivered(conn: Conn, seq: int, now: datetime) -> bool:
    """Delivered (also when a later claim of it is under way: the receiver has it, and dedups the other)."""
    done = await conn.execute(
        "UPDATE outbox SET status = 'delivered', delivered_at = $2, last_error = NULL"
        " WHERE seq = $1 AND status = 'pending'",
        seq,
        now,
    )
    return bool(done.endswith(" 1"))


async def mark_failed(conn: Conn, seq: int, attempt: int, error: str, retry_at: datetime) -> bool:
    """Due again at `retry_at`; only while this attempt is the message's latest (no other worker took it over)."""
    done = await conn.execute(
        "UPDATE outbox SET next_attempt_at = $4, last_error = $3"
        " WHERE seq = $1 AND attempts = $2 AND status = 'pending'",
        seq,
        attempt,
        error[:500],
        retry_at,
    )
    return bool(done.endswith(" 1"))


async def park(conn: Conn, seq: int, attempt: int, error: str, now: datetime) -> bool:
    """A dead letter: no more attempts until an operator retries it."""
    done = await conn.execute(
        "UPDATE outbox SET status = 'dead', parked_at = $4, last_error = $3"
        " WHERE seq = $1 AND attempts = $2 AND status = 'pending'",
        seq,
        attempt,
        error[:500],
        now,
    )
    return bool(done.endswith(" 1"))


async def assign_positions(conn: Conn, limit: int) -> int:
    """Give committed messages not yet listed their places, in the order written, one replica at a time (needs a
    transaction): a message that commits after a later one was listed is listed after it, so ?after= misses none."""
    if not await conn.fetchval("SELECT pg_try_advisory_xact_lock($1)", POSITION_LOCK):
        return 0
    done = await conn.execute(
        "UPDATE outbox o SET position = n.base + n.rank FROM ("
        " SELECT u.seq, row_number() OVER (ORDER BY u.seq) AS rank,"
        "  (SELECT coalesce(max(position), 0) FROM outbox) AS base"
        " FROM (SELECT seq FROM outbox WHERE position IS NULL ORDER BY seq LIMIT $1) AS u) AS n"
        " WHERE o.seq = n.seq",
        limit,
    )
    return int(done.split()[-1])


class Listed(msgspec.Struct, frozen=True, kw_only=True):
    position: int
    body: bytes


async def select_listed(conn: Conn, operator_id: str, after: int, limit: int) -> list[Listed]:
    records = await conn.fetch(
        f"SELECT o.position, {BODY} AS body FROM outbox o"  # noqa: S608 - ours
        " WHERE o.operator_id = $1 AND o.position > $2 ORDER BY o.position LIMIT $3",
        operator_id,
        after,
        limit,
    )
    return [Listed(position=r["position"], body=r["body"]) for r in records]


_DEAD = (
    "SELECT message_id, operator_id, kind, ordering_key, attempts, last_error, created_at, parked_at FROM outbox"
    " WHERE status = 'dead'"
)


async def select_dead_letters(conn: Conn, operator_id: str | None, limit: int) -> list[DeadLetter]:
    """An operator's dead letters (None: every operator's, for the CLI), oldest first."""
    records = await conn.fetch(
        f"{_DEAD} AND ($1::text IS NULL OR operator_id = $1) ORDER BY seq LIMIT $2", operator_id, limit
    )
    return [DeadLetter(**dict(r)) for r in records]


async def lock_dead_letter(conn: Conn, message_id: UUID) -> DeadLetter | None:
    record = await conn.fetchrow(f"{_DEAD} AND message_id = $1 FOR UPDATE", message_id)
    return None if record is None else DeadLetter(**dict(record))


def retry_dead_letter(message_id: UUID, now: datetime) -> Statement:
    """Owed again, due now, with a fresh count of attempts (its age counts from now: it was parked by age)."""
    return Statement(
        sql="UPDATE outbox SET status = 'pending', attempts = 0, next_attempt_at = $2, parked_at = NULL,"
        " retried_at = $2"
        " WHERE message_id = $1 AND status = 'dead'",
        args=(message_id, now),
    )


def resolve_dead_letter(message_id: UUID, now: datetime) -> Statement:
    """Settled by hand: never sent again, and no longer holding back the messages after it."""
    return Statement(
        sql="UPDATE outbox SET status = 'resolved', delivered_at = $2 WHERE message_id = $1 AND status = 'dead'",
        args=(message_id, now),
    )


async def select_depth(conn: Conn) -> Depth:
    record = await conn.fetchrow(
        "SELECT count(*) FILTER (WHERE status = 'pending') AS waiting,"
        " min(created_at) FILTER (WHERE status = 'pending') AS oldest,"
        " count(*) FILTER (WHERE status = 'dead') AS dead FROM outbox WHERE status IN ('pending', 'dead')"
    )
    assert record is not None  # an aggregate always returns a row
    return Depth(waiting=record["waiting"], oldest=record["oldest"], dead=record["dead"])


async def purge(conn: Conn, before: datetime, most: int) -> int:
    """Up to `most` rows no one is owed any more written before `before`, gone (migration 022's function: the app
    role may not DELETE, and the function keeps every row younger than a day); how many."""
    return int(await conn.fetchval("SELECT purge_outbox($1, $2)", before, most))
