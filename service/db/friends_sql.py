"""SQL for the friends' tables: the table row (its code, status, host, game and turn deadline), its seats, and the
fixed-window counters of its limits. The game itself is an inbetween_games row (inbetween_sql) on its own chain.

Every writer locks the table's row first, then the game's: one order, so a move and the sweeper never deadlock.
"""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

import asyncpg
import msgspec

from service.db import Conn, Statement


class FriendsTable(msgspec.Struct, frozen=True, kw_only=True):
    table_id: UUID
    code: str
    status: str  # waiting | playing | over | closed
    ruleset: str
    rounds: int
    ante: int
    seats: int
    turn_seconds: int
    host_seat: int
    game_id: UUID | None
    version: int
    turn_deadline: datetime | None
    created_at: datetime
    active_at: datetime


class FriendsSeat(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    name: str | None  # None: a computer's seat from the start
    joined_at: datetime
    held_by: str | None  # host | missed | left: why the computer plays a person's seat
    missed: int
    personality: str
    endgame_tip: bool
    has_token: bool

    @property
    def person(self) -> bool:
        return self.name is not None


class JoinKey(msgspec.Struct, frozen=True, kw_only=True):
    """What a seat keeps of the join key that took it (migration 016): its hash, the salt of its token, the mode."""

    key_hash: bytes
    salt: bytes
    bearer: bool


class KeyedSeat(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    name: str | None
    salt: bytes
    bearer: bool
    has_token: bool


_TABLE_COLUMNS = (
    "table_id, code, status, ruleset, rounds, ante, seats, turn_seconds, host_seat, game_id, version, turn_deadline,"
    " created_at, active_at"
)
_SEAT_COLUMNS = "seat, name, joined_at, held_by, missed, personality, endgame_tip, token_hash IS NOT NULL AS has_token"


def _table(record: asyncpg.Record) -> FriendsTable:
    return FriendsTable(**dict(record))


def insert_table(table: FriendsTable) -> Statement:
    return Statement(
        sql=f"INSERT INTO friends_tables ({_TABLE_COLUMNS})"  # noqa: S608 - our own column list
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
        args=tuple(msgspec.structs.astuple(table)),
    )


async def code_taken(conn: Conn, code: str) -> bool:
    """Whether an open table holds this code (a closed one's code is free)."""
    found: bool = await conn.fetchval(
        "SELECT EXISTS (SELECT 1 FROM friends_tables WHERE code = $1 AND status <> 'closed')", code
    )
    return found


async def select_open_table(conn: Conn, code: str, *, lock: bool) -> FriendsTable | None:
    """The open table with this code; `lock`: its row locked for a change, as every writer takes it first."""
    sql = f"SELECT {_TABLE_COLUMNS} FROM friends_tables WHERE code = $1 AND status <> 'closed'"  # noqa: S608
    record = await conn.fetchrow(sql + (" FOR UPDATE" if lock else ""), code)
    return None if record is None else _table(record)


async def lock_table(conn: Conn, table_id: UUID) -> FriendsTable | None:
    sql = f"SELECT {_TABLE_COLUMNS} FROM friends_tables WHERE table_id = $1 FOR UPDATE"  # noqa: S608
    record = await conn.fetchrow(sql, table_id)
    return None if record is None else _table(record)


def update_table(table: FriendsTable) -> Statement:
    """The table's changing columns as the change left them (the caller holds its row)."""
    return Statement(
        sql="UPDATE friends_tables SET status = $2, host_seat = $3, game_id = $4, version = $5, turn_deadline = $6,"
        " active_at = $7, closed_at = CASE WHEN $2 = 'closed' THEN coalesce(closed_at, now()) END WHERE table_id = $1",
        args=(
            table.table_id,
            table.status,
            table.host_seat,
            table.game_id,
            table.version,
            table.turn_deadline,
            table.active_at,
        ),
    )


async def select_seats(conn: Conn, table_id: UUID) -> list[FriendsSeat]:
    records = await conn.fetch(
        f"SELECT {_SEAT_COLUMNS} FROM friends_seats WHERE table_id = $1 ORDER BY seat",  # noqa: S608
        table_id,
    )
    return [FriendsSeat(**dict(r)) for r in records]


async def seat_of_token(conn: Conn, token_hash: bytes) -> tuple[UUID, int] | None:
    """The table and seat a token acts for, if it still does."""
    record = await conn.fetchrow("SELECT table_id, seat FROM friends_seats WHERE token_hash = $1", token_hash)
    return None if record is None else (record["table_id"], record["seat"])


def insert_seat(table_id: UUID, seat: FriendsSeat, token_hash: bytes | None, join: JoinKey | None = None) -> Statement:
    return Statement(
        sql="INSERT INTO friends_seats (table_id, seat, name, token_hash, joined_at, held_by, missed, personality,"
        " endgame_tip, join_key_hash, join_salt, join_bearer)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
        args=(
            table_id,
            seat.seat,
            seat.name,
            token_hash,
            seat.joined_at,
            seat.held_by,
            seat.missed,
            seat.personality,
            seat.endgame_tip,
            None if join is None else join.key_hash,
            None if join is None else join.salt,
            None if join is None else join.bearer,
        ),
    )


async def seat_of_join_key(conn: Conn, table_id: UUID, key_hash: bytes) -> KeyedSeat | None:
    """The seat a join key took at this table, if any (the caller holds the table's row)."""
    record = await conn.fetchrow(
        "SELECT seat, name, join_salt AS salt, join_bearer AS bearer, token_hash IS NOT NULL AS has_token"
        " FROM friends_seats WHERE table_id = $1 AND join_key_hash = $2",
        table_id,
        key_hash,
    )
    return None if record is None else KeyedSeat(**dict(record))


def update_seat(table_id: UUID, seat: FriendsSeat, *, revoke_token: bool = False) -> Statement:
    """Who plays the seat and how; `revoke_token`: its token stops working (its player left)."""
    return Statement(
        sql="UPDATE friends_seats SET held_by = $3, missed = $4, personality = $5, endgame_tip = $6,"
        " token_hash = CASE WHEN $7 THEN NULL ELSE token_hash END WHERE table_id = $1 AND seat = $2",
        args=(table_id, seat.seat, seat.held_by, seat.missed, seat.personality, seat.endgame_tip, revoke_token),
    )


def delete_seat(table_id: UUID, seat: int) -> Statement:
    return Statement(sql="DELETE FROM friends_seats WHERE table_id = $1 AND seat = $2", args=(table_id, seat))


async def count_hit(conn: Conn, bucket: str, window_start: datetime) -> int:
    """Count one request against its bucket's window; how many the window holds now, this one included."""
    hits: int = await conn.fetchval(
        "INSERT INTO friends_limits (bucket, window_start, hits) VALUES ($1, $2, 1)"
        " ON CONFLICT (bucket, window_start) DO UPDATE SET hits = friends_limits.hits + 1 RETURNING hits",
        bucket,
        window_start,
    )
    return hits


async def hits(conn: Conn, bucket: str, window_start: datetime) -> int:
    found: int | None = await conn.fetchval(
        "SELECT hits FROM friends_limits WHERE bucket = $1 AND window_start = $2", bucket, window_start
    )
    return found or 0


async def delete_old_windows(conn: Conn, before: datetime) -> int:
    status: str = await conn.execute("DELETE FROM friends_limits WHERE window_start < $1", before)
    return int(status.split()[-1])


async def select_due_tables(conn: Conn, now: datetime, limit: int) -> list[UUID]:
    """Tables whose turn deadline has passed, locked; SKIP LOCKED: replicas and moves never wait on each other."""
    records = await conn.fetch(
        "SELECT table_id FROM friends_tables WHERE turn_deadline <= $1 ORDER BY turn_deadline LIMIT $2"
        " FOR UPDATE SKIP LOCKED",
        now,
        limit,
    )
    return [r["table_id"] for r in records]


async def select_idle_tables(conn: Conn, before: datetime, limit: int) -> list[FriendsTable]:
    """Open tables nobody has touched since `before`, locked (SKIP LOCKED)."""
    records = await conn.fetch(
        f"SELECT {_TABLE_COLUMNS} FROM friends_tables WHERE status <> 'closed' AND active_at < $1"  # noqa: S608
        " ORDER BY active_at LIMIT $2 FOR UPDATE SKIP LOCKED",
        before,
        limit,
    )
    return [_table(r) for r in records]


async def game_versions(conn: Conn, game_ids: list[UUID]) -> dict[UUID, int]:
    """Each game's version (the seq of its last record)."""
    records = await conn.fetch("SELECT game_id, audit_seq FROM inbetween_games WHERE game_id = ANY($1)", game_ids)
    return {r["game_id"]: r["audit_seq"] for r in records}


async def next_deadline(conn: Conn) -> datetime | None:
    found: datetime | None = await conn.fetchval("SELECT min(turn_deadline) FROM friends_tables")
    return found
