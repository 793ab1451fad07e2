"""SQL for rounds: the round aggregate as jsonb beside the columns that find it, and its secret shoe."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

import asyncpg
import msgspec

from paytables.red_dog.round import Round
from service.db import Conn, Statement, preset_deflate
from service.db.audit_sql import TableLock, head_columns, table_lock_of
from service.db.row_reads import Found, Missing, Mode, OneRow, Replay, read_one, sql_of
from service.db.state_dictionary import CURRENT, DICTIONARIES
from service.db.storage_forms import FORMS, shoe_bytes
from shoe.shoe import Shoe, decode_shoe

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(Round).decode

# A round's state: deflated since migration 026 (state_dictionary), as jsonb before it; a row holds one of the two.
STATE_COLUMNS = "state, state_deflated"


def state_columns(alias: str) -> str:
    """STATE_COLUMNS of a table named `alias` in a SELECT list."""
    return f"{alias}.state, {alias}.state_deflated"


def stored_state(rnd: Round) -> bytes:
    """The round's state as migration 026 stores it: its JSON, deflated with the state dictionary."""
    return preset_deflate.deflate(_encode(rnd), CURRENT, DICTIONARIES)


def state_of(record: asyncpg.Record) -> bytes | str:
    """The state's JSON from a row selected with STATE_COLUMNS."""
    deflated = record["state_deflated"]
    return record["state"] if deflated is None else preset_deflate.inflate(deflated, DICTIONARIES)


def round_of(record: asyncpg.Record) -> Round:
    return _decode(state_of(record))


class StoredRound(msgspec.Struct, frozen=True, kw_only=True):
    round: Round
    shoe: Shoe
    operator_id: str
    currency: str
    # The table's current shoe: a cut-card round's shoe has been retired (and may be revealed) once this differs.
    table_shoe_commitment: str | None = None
    table: TableLock | None = None  # when this transaction holds the table row's lock
    checkpoint_size: int = 0  # the tree size of the table's latest signed checkpoint when read


def _written_state(rnd: Round) -> tuple[str, str, bytes | str]:
    """The column that holds the state as written now (storage_forms), the one left NULL, and the value."""
    if FORMS.compact:
        return "state_deflated", "state", stored_state(rnd)
    return "state", "state_deflated", _encode(rnd).decode()


def insert_round(rnd: Round, shoe: Shoe, operator_id: str) -> Statement:
    column, _, state = _written_state(rnd)
    return Statement(
        sql=f"INSERT INTO rounds ({column}, round_id, table_id, operator_id, status, test, opened_at,"  # noqa: S608
        " window_closes_at, settled_at, player_ids, shoe) VALUES ($10, $1, $2, $3, $4, $5, $6, $7, $8, $9, $11)",
        args=(
            UUID(rnd.round_id),
            UUID(rnd.table_id),
            operator_id,
            rnd.status.value,
            rnd.test,
            rnd.opened_at,
            rnd.raise_window_closes_at,
            rnd.settled_at,
            sorted({b.player_id for b in rnd.bets}),
            state,
            shoe_bytes(shoe),
        ),
    )


def update_round(rnd: Round, shoe: Shoe) -> Statement:
    column, other, state = _written_state(rnd)
    return Statement(
        # The other column NULL: a row moves to the form written now with its change.
        sql=f"UPDATE rounds SET status = $2, settled_at = $3, {column} = $4, {other} = NULL, shoe = $5"  # noqa: S608
        " WHERE round_id = $1",
        args=(UUID(rnd.round_id), rnd.status.value, rnd.settled_at, state, shoe_bytes(shoe)),
    )


_COLUMNS = f"{state_columns('r')}, r.shoe, r.operator_id, t.currency, t.shoe AS table_shoe, {head_columns('t.')}"
_SELECT = f"SELECT {_COLUMNS} FROM rounds r JOIN game_tables t ON t.table_id = r.table_id"  # noqa: S608 - ours


def _stored(record: asyncpg.Record, *, table_locked: bool = False) -> StoredRound:
    table_shoe = record["table_shoe"]
    return StoredRound(
        round=round_of(record),
        shoe=decode_shoe(record["shoe"]),
        operator_id=record["operator_id"],
        currency=record["currency"],
        table_shoe_commitment=None if table_shoe is None else decode_shoe(table_shoe).commitment,
        table=table_lock_of(record) if table_locked else None,
        checkpoint_size=record["checkpoint_size"],
    )


# Rows are locked in the order named: the table's first, as every writer of a table's rounds takes it (an unlocked
# write's leading table update, the sweeper), so no two of them can wait on each other in a cycle.
ONE_ROUND = OneRow(
    columns=_COLUMNS,
    source="rounds r JOIN game_tables t ON t.table_id = r.table_id",
    owner="r",
    id_column="round_id",
    locks="t, r",
)


async def select_round(conn: Conn, operator_id: str, round_id: UUID, *, lock: bool = False) -> StoredRound | None:
    """One of the operator's rounds; `lock` holds the round row and its table's (audit head, shoe) too."""
    # Locked rows are re-read at their latest committed version, so the audit head seen here is current.
    sql = sql_of(ONE_ROUND)
    record = await conn.fetchrow(sql.locked if lock else sql.plain, round_id, operator_id)
    return None if record is None else _stored(record, table_locked=lock)


async def read_round(conn: Conn, operator_id: str, round_id: UUID, mode: Mode) -> Found[StoredRound] | Replay | Missing:
    """The round a request changes, with its table's head, read as the unit's mode says (row_reads.read_one)."""
    read = await read_one(conn, ONE_ROUND, round_id, operator_id, mode)
    return Found(_stored(read.value, table_locked=True)) if isinstance(read, Found) else read


async def select_expired_round_ids(conn: Conn, now: datetime, limit: int) -> list[UUID]:
    """Rounds whose raise window has passed, oldest deadline first (not locked: claim each in its own transaction)."""
    records = await conn.fetch(
        "SELECT round_id FROM rounds WHERE status = 'raise_window' AND window_closes_at <= $1"
        " ORDER BY window_closes_at LIMIT $2",
        now,
        limit,
    )
    return [r["round_id"] for r in records]


async def claim_expired_round(conn: Conn, round_id: UUID, now: datetime) -> StoredRound | None:
    """Lock the round, and its table's row first, if it is still expired and no one holds either right now (SKIP
    LOCKED: the sweeper never waits)."""
    record = await conn.fetchrow(
        f"{_SELECT} WHERE r.round_id = $1 AND r.status = 'raise_window' AND r.window_closes_at <= $2"
        " FOR UPDATE OF t, r SKIP LOCKED",
        round_id,
        now,
    )
    return None if record is None else _stored(record, table_locked=True)


async def claim_expired_rounds(conn: Conn, now: datetime, limit: int) -> list[StoredRound]:
    """Lock up to `limit` expired rounds, oldest deadline first, with their tables' rows (audit heads), skipping
    anything another transaction holds: the sweeper never waits, so neither replicas nor requests can block it and
    it is never part of a deadlock.

    The tables are locked first, and only then their rounds: locking both in one statement would keep the lock of
    a round whose table was skipped, hiding it from every other claimer until this transaction ends."""
    tables = await conn.fetch(
        "SELECT table_id FROM game_tables WHERE table_id IN (SELECT table_id FROM rounds"
        " WHERE status = 'raise_window' AND window_closes_at <= $1 ORDER BY window_closes_at LIMIT $2)"
        " FOR UPDATE SKIP LOCKED",
        now,
        limit,
    )
    if not tables:
        return []
    records = await conn.fetch(
        f"{_SELECT} WHERE r.table_id = ANY($3::uuid[]) AND r.status = 'raise_window' AND r.window_closes_at <= $1"
        " ORDER BY r.window_closes_at LIMIT $2 FOR UPDATE OF r SKIP LOCKED",
        now,
        limit,
        [t["table_id"] for t in tables],
    )
    return [_stored(r, table_locked=True) for r in records]


class WindowCounts(msgspec.Struct, frozen=True, kw_only=True):
    open: int  # rounds waiting in their raise window
    past: int  # of which the deadline passed before `since`
    next_deadline: datetime | None  # the soonest deadline still ahead of `now`


async def count_open_windows(conn: Conn, since: datetime, now: datetime) -> WindowCounts:
    record = await conn.fetchrow(
        "SELECT count(*) AS open, count(*) FILTER (WHERE window_closes_at <= $1) AS past,"
        " min(window_closes_at) FILTER (WHERE window_closes_at > $2) AS next_deadline"
        " FROM rounds WHERE status = 'raise_window'",
        since,
        now,
    )
    assert record is not None  # an aggregate always answers one row
    return WindowCounts(open=record["open"], past=record["past"], next_deadline=record["next_deadline"])


async def select_rounds(
    conn: Conn,
    operator_id: str,
    *,
    table_id: UUID | None,
    player_id: str | None,
    status: str | None,
    opened_from: datetime | None,
    opened_to: datetime | None,
    settled_from: datetime | None = None,
    settled_to: datetime | None = None,
    before: tuple[datetime, UUID] | None,
    limit: int,
) -> list[StoredRound]:
    """Newest first, keyset-paginated on (opened_at, round_id) so pages stay stable while rounds are added."""
    before_at, before_id = before if before is not None else (None, None)
    records = await conn.fetch(
        f"{_SELECT} WHERE r.operator_id = $1"
        " AND ($2::uuid IS NULL OR r.table_id = $2)"
        " AND ($3::text IS NULL OR r.player_ids @> ARRAY[$3::text])"
        " AND ($4::text IS NULL OR r.status = $4)"
        " AND ($5::timestamptz IS NULL OR r.opened_at >= $5)"
        " AND ($6::timestamptz IS NULL OR r.opened_at < $6)"
        " AND ($7::timestamptz IS NULL OR (r.opened_at, r.round_id) < ($7, $8::uuid))"
        " AND ($10::timestamptz IS NULL OR r.settled_at >= $10)"
        " AND ($11::timestamptz IS NULL OR r.settled_at < $11)"
        " ORDER BY r.opened_at DESC, r.round_id DESC LIMIT $9",
        operator_id,
        table_id,
        player_id,
        status,
        opened_from,
        opened_to,
        before_at,
        before_id,
        limit,
        settled_from,
        settled_to,
    )
    return [_stored(r) for r in records]
