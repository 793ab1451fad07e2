"""Reading one of the operator's rows by id, one way for every request: what a unit of work's mode reads, the SQL
of each variant from one builder (so the tenant filter is written once), and what the read found, as a value.

A request that changes a row reads it in the mode its unit of work runs in (`Optimistic` or `Locked`), and the
request's idempotency key rides in that read: looked up beside the row when unlocked, claimed in the same statement
that locks the row when locked. The read answers `Found`, `Replay` (the key was used before: the first reply is
sent again) or `Missing`; it never raises to steer the request.
"""

from __future__ import annotations

import functools
from typing import Generic, TypeVar

import asyncpg
import msgspec

from service.db import Conn
from service.db import idempotency_sql as keys

R = TypeVar("R")


class Optimistic(msgspec.Struct, frozen=True, kw_only=True):
    """The unit's one read is unlocked and looks its key up; its writes are one statement that checks the audit head
    it read (two round trips, no BEGIN or COMMIT). When another change got there first, the runner runs it Locked."""

    key: keys.Claim


class Locked(msgspec.Struct, frozen=True, kw_only=True):
    """One transaction: the unit's first read locks what it changes and claims `key` in the same statement (None:
    the key was claimed on its own before the work, or the request has none)."""

    key: keys.Claim | None = None


Mode = Optimistic | Locked
LOCKED = Locked()


class Found(msgspec.Struct, Generic[R], frozen=True):
    value: R


class Replay(msgspec.Struct, frozen=True):
    """The request's key was used before: what the first request with it stored."""

    stored: keys.StoredResponse


class Missing(msgspec.Struct, frozen=True):
    """No such row for this operator (another operator's row is missing too)."""


MISSING = Missing()


class OneRow(msgspec.Struct, frozen=True, kw_only=True):
    """One of the operator's rows by its id: the columns, the tables they come from, the alias that holds the id and
    the operator (the tenant filter), and the rows a lock takes, in the order every writer takes them."""

    columns: str
    source: str  # "rounds r JOIN game_tables t ON t.table_id = r.table_id"
    owner: str  # the alias whose id_column is $1 and whose operator_id is $2
    id_column: str
    locks: str  # "t, r": the table's row before a round's


class RowSql(msgspec.Struct, frozen=True, kw_only=True):
    """The four reads of one row: $1 its id, $2 the operator; a key's name, request hash and time are $3.. $5."""

    plain: str
    locked: str
    claiming: str
    looking_up: str


@functools.cache
def sql_of(row: OneRow) -> RowSql:
    """Every variant from one filter: whichever a request runs, it sees only its operator's row."""
    owned = f"{row.owner}.{row.id_column} = $1 AND {row.owner}.operator_id = $2"  # the tenant filter, written once
    source = f"({row.source})" if " JOIN " in row.source else row.source
    select = f"SELECT {row.columns} FROM {row.source} WHERE {owned}"  # noqa: S608 - our own names, $n only
    return RowSql(
        plain=select,
        locked=f"{select} FOR UPDATE OF {row.locks}",
        # The claim is read in the select list, so it runs before the rows are locked (see keys.claim_cte).
        claiming=f"WITH {keys.claim_cte(2, 3)} SELECT {row.columns}, {keys.CLAIMED} FROM {row.source}"  # noqa: S608
        f" WHERE {owned} FOR UPDATE OF {row.locks}",
        # Unlocked, with the key looked up: one row whatever is found (the writes check the audit head instead).
        looking_up=f"SELECT {row.columns}, {row.owner}.{row.id_column} IS NOT NULL AS found, {keys.LOOKED_UP}"  # noqa: S608
        f" FROM (SELECT) AS one LEFT JOIN {source} ON {owned}{keys.look_up_join(2, 3)}",
    )


async def select_one(conn: Conn, row: OneRow, row_id: object, operator_id: str) -> asyncpg.Record | None:
    """The row, unlocked and without a key (a read that changes nothing)."""
    return await conn.fetchrow(sql_of(row).plain, row_id, operator_id)


async def read_one(
    conn: Conn, row: OneRow, row_id: object, operator_id: str, mode: Mode
) -> Found[asyncpg.Record] | Replay | Missing:
    """The row a request changes, read as its unit's mode says, with the request's key looked up or claimed."""
    sql = sql_of(row)
    match mode:
        case Optimistic(key=key):
            record = await conn.fetchrow(sql.looking_up, row_id, operator_id, key.key)
            assert record is not None  # the read is shaped to answer one row whatever it finds
            if record["key_request_hash"] is not None:
                return Replay(keys.looked_up(record))
            return Found(record) if record["found"] else MISSING
        case Locked(key=None):
            record = await conn.fetchrow(sql.locked, row_id, operator_id)
        case Locked(key=keys.Claim() as key):
            record = await conn.fetchrow(sql.claiming, row_id, operator_id, key.key, key.request_hash, key.now)
            if not await keys.was_claimed(conn, key, None if record is None else record["claimed"]):
                return Replay(await keys.select_key(conn, key.operator_id, key.key))
    return MISSING if record is None else Found(record)
