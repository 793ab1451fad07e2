"""Joining a friends' table, idempotently: a phone that asks again for the seat it has, or retries a join whose reply it
never got, is given that seat again, never a second one.

Two ways a join is known again, both under the table's row lock (so two identical joins at once are one after the
other, and the second finds the first's seat):
- the request carries a seat token of this table (its cookie, or `Authorization: Bearer`): that seat, that token
  (a token that came in the HttpOnly cookie is answered with the cookie again, never in the body, whatever the
  join asks: else any script on the page could read it);
- it carries a `join_key`, a random value the phone makes once per join it means and sends with every try: the seat
  that key took, with the same token. The token is then `HMAC-SHA256(salt, key)` under a random salt kept with the
  seat, so a retry can be answered with it although only its hash is stored, and neither the key (which the page's
  script holds) nor the database alone yields it. A key comes back with its first join's name and token mode, or is
  refused: a retry must not turn a cookie's join into one whose body shows the token to a script.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

import msgspec

from service.db import friends_sql
from service.db.friends_sql import FriendsTable, JoinKey
from service.db.unit_of_work import UnitOfWork
from service.errors import ApiError
from service.use_cases import friends_limits
from service.use_cases import friends_use_cases as tables
from service.use_cases.friends_use_cases import WAITING, Joined, TableView


class JoinAsk(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    bearer: bool = False  # the token in the body rather than a cookie
    join_key: str | None = None  # the phone's key for this join, sent again with every retry
    token: str | None = None  # a seat token the request carried (its cookie or bearer header)
    by_cookie: bool = False  # the token came in the HttpOnly cookie: the reply must not show it in its body


def token_of_key(salt: bytes, join_key: str) -> str:
    """The seat token a join key's seat holds: as long and as random as a token drawn afresh, given a random salt."""
    digest = hmac.new(salt, join_key.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def key_hash(join_key: str) -> bytes:
    return hashlib.sha256(join_key.encode()).digest()


async def join(unit: UnitOfWork, code: str, ask: JoinAsk, address: str) -> Joined | None:
    """Take the lowest free seat of a waiting table, or the seat this phone already took; None when a limit refused
    the join (after commit)."""
    table = await tables.locked_by_code(unit, code, address)
    if table is None or not await friends_limits.count_join(unit, address, code):
        return None
    again = await _known_seat(unit, table, ask)
    if again is not None:
        return again
    if table.status != WAITING:
        raise ApiError(409, "TABLE_STARTED", "the game has started: watch it from the table's state and events")
    seats = tuple(await friends_sql.select_seats(unit.conn, table.table_id))
    free = sorted(set(range(table.seats)) - {s.seat for s in seats})
    if not free:
        raise ApiError(409, "TABLE_FULL", f"all {table.seats} seats are taken")
    person, token = tables.person_seat(free[0], ask.name, unit)
    keyed = None
    if ask.join_key is not None:
        keyed = JoinKey(key_hash=key_hash(ask.join_key), salt=secrets.token_bytes(32), bearer=ask.bearer)
        token = token_of_key(keyed.salt, ask.join_key)
    table = tables.touched(unit, table)
    unit.defer(
        [
            friends_sql.insert_seat(table.table_id, person, tables.token_hash(token), keyed),
            friends_sql.update_table(table),
        ]
    )
    seated = tuple(sorted((*seats, person), key=lambda s: s.seat))
    return Joined(view=TableView(table=table, seats=seated, game=None, viewer=person.seat), token=token)


async def _known_seat(unit: UnitOfWork, table: FriendsTable, ask: JoinAsk) -> Joined | None:
    """The seat this join already has at the table, by the token it carries or its join key; None: a new join."""
    if ask.token is not None:
        found = await friends_sql.seat_of_token(unit.conn, tables.token_hash(ask.token))
        if found is not None and found[0] == table.table_id:
            return await _again(unit, table, found[1], ask.token, as_cookie=ask.by_cookie)
    if ask.join_key is None:
        return None
    keyed = await friends_sql.seat_of_join_key(unit.conn, table.table_id, key_hash(ask.join_key))
    if keyed is None or not keyed.has_token:  # a seat whose player left: the key is spent, this is a new join
        return None
    if keyed.name != ask.name or keyed.bearer != ask.bearer:
        raise ApiError(422, "VALIDATION_ERROR", "this join_key was used for another join (another name or token mode)")
    return await _again(unit, table, keyed.seat, token_of_key(keyed.salt, ask.join_key), as_cookie=False)


async def _again(unit: UnitOfWork, table: FriendsTable, seat: int, token: str, *, as_cookie: bool) -> Joined:
    """The seat as its first join left it, nothing written: the table's version stays, no hint is pushed."""
    return Joined(view=await tables.viewed(unit, table, seat), token=token, again=True, as_cookie=as_cookie)
