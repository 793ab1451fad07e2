"""The friends' tables before and beside the game: create a table with a code, look at it as a seat or a spectator
(joining one: friends_join_use_cases; leaving, hand-overs: friends_seat_use_cases). Each use case locks the table's
row, changes it, and returns a TableView; the route publishes the new version once the unit has committed
(friends_push).

A seat acts by its token: a random secret handed to the phone once, kept only as its sha256, and good for that seat
of that table alone. Play chips only: nothing here touches a Red Dog table, a round or money.
"""

from __future__ import annotations

import hashlib
import secrets
import uuid
from uuid import UUID

import msgspec

from audit.chain import Link
from paytables.inbetween.inbetween_seat_play import Computer, Personality
from service.db import friends_sql, inbetween_sql
from service.db.friends_sql import FriendsSeat, FriendsTable
from service.db.unit_of_work import UnitOfWork
from service.errors import ApiError, not_found
from service.settings import FRIENDS_OPERATOR
from service.use_cases import friends_limits, inbetween_use_cases
from service.use_cases.inbetween_use_cases import GameView

# The rule set a new table plays unless it asks for another; one name, switched when nepal/v2 is released.
DEFAULT_RULESET = "inbetween/nepal/v2"  # the Nepali table as it plays: to the right, ten rounds
# 28 characters that cannot be misread for one another (no 0/O, 1/I/L, 5/S, 2/Z, U/V): 8 of them, read aloud in
# two groups of four, are 3.8e11 codes (friends_limits says why that is enough).
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRTVWXY"
CODE_LENGTH = 8
MOVES_MOST = 1000  # the game's records a state read returns at most; a client further behind pages the records route
WAITING, PLAYING, OVER, CLOSED = "waiting", "playing", "over", "closed"


class NewTable(msgspec.Struct, frozen=True, kw_only=True):
    host_name: str
    ruleset: str = DEFAULT_RULESET
    rounds: int = 10
    ante: int = 10
    seats: int = 4
    turn_seconds: int = 30


class TableView(msgspec.Struct, frozen=True, kw_only=True):
    """A table as one seat (or a spectator, `viewer` None) may see it: the same for the push, the state route and
    every reply. `records` are the game's records after the version the viewer last saw."""

    table: FriendsTable
    seats: tuple[FriendsSeat, ...]
    game: GameView | None
    viewer: int | None
    records: tuple[Link, ...] = ()


class Joined(msgspec.Struct, frozen=True, kw_only=True):
    view: TableView
    token: str  # the seat's token: never stored (friends_join_use_cases: or derived again from the join's key)
    again: bool = False  # the seat this phone already had (a retried join): nothing changed, nothing to push
    as_cookie: bool = False  # answered again by the HttpOnly cookie's token: the reply sets the cookie, shows no token


class Hint(msgspec.Struct, frozen=True, kw_only=True):
    """What a push says: the table moved on to `version` (its game to `game_version`); fetch the state to see how."""

    table_id: UUID
    code: str
    version: int
    game_version: int
    status: str


def hint_of(view: TableView) -> Hint:
    table = view.table
    game_version = 0 if view.game is None else view.game.version
    return Hint(
        table_id=table.table_id, code=table.code, version=table.version, game_version=game_version, status=table.status
    )


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def held_seats(seats: tuple[FriendsSeat, ...]) -> dict[int, Computer]:
    """The seats the computer plays now: every computer's seat, and a person's while `held_by` says so."""
    return {
        s.seat: Computer(personality=Personality(s.personality), endgame_tip=s.endgame_tip)
        for s in seats
        if not s.person or s.held_by is not None
    }


async def create_table(unit: UnitOfWork, new: NewTable, address: str) -> Joined | None:
    """A new table with a free code, its host in seat 0; None when the limit refused it (after commit)."""
    terms = inbetween_use_cases.released_ruleset(new.ruleset).terms
    if new.ante not in terms.antes or new.rounds not in terms.rounds:
        raise ApiError(422, "INVALID_GAME", f"{new.ruleset} plays antes {terms.antes} and rounds {terms.rounds}")
    if not terms.min_players <= new.seats <= terms.max_players:
        raise ApiError(422, "INVALID_GAME", f"{new.ruleset} seats {terms.min_players}..{terms.max_players} players")
    if not await friends_limits.count_create(unit, address):
        return None
    code = new_code()
    while await friends_sql.code_taken(unit.conn, code):  # 3.8e11 codes: a second draw is all but never needed
        code = new_code()
    now = unit.now
    table = FriendsTable(
        table_id=uuid.uuid4(),
        code=code,
        status=WAITING,
        ruleset=new.ruleset,
        rounds=new.rounds,
        ante=new.ante,
        seats=new.seats,
        turn_seconds=new.turn_seconds,
        host_seat=0,
        game_id=None,
        version=1,
        turn_deadline=None,
        created_at=now,
        active_at=now,
    )
    host, token = person_seat(0, new.host_name, unit)
    unit.defer([friends_sql.insert_table(table), friends_sql.insert_seat(table.table_id, host, token_hash(token))])
    return Joined(view=TableView(table=table, seats=(host,), game=None, viewer=0), token=token)


def person_seat(seat: int, name: str, unit: UnitOfWork) -> tuple[FriendsSeat, str]:
    """A person's new seat and a fresh random token for it."""
    person = FriendsSeat(
        seat=seat,
        name=name,
        joined_at=unit.now,
        held_by=None,
        missed=0,
        personality=Personality.STEADY.value,
        endgame_tip=True,
        has_token=True,
    )
    return person, secrets.token_urlsafe(32)


def touched(unit: UnitOfWork, table: FriendsTable, **changes: object) -> FriendsTable:
    """The table after a person's change: its next version, active now."""
    return msgspec.structs.replace(table, version=table.version + 1, active_at=unit.now, **changes)


async def locked_by_code(unit: UnitOfWork, code: str, address: str, *, lock: bool = True) -> FriendsTable | None:
    """The open table by its code, for a request without a seat token: an address that has missed too often is
    refused, and a miss is counted (None: the unit refuses after commit)."""
    await friends_limits.refuse_if_missing_too_often(unit, address)
    table = await friends_sql.select_open_table(unit.conn, code, lock=lock)
    if table is None:
        await friends_limits.count_miss(unit, address, not_found("table"))
    return table


async def seated(unit: UnitOfWork, code: str, token: bytes | None, *, lock: bool = True) -> tuple[FriendsTable, int]:
    """The table a seat token acts at, and its seat: refused unless the token is this table's."""
    if token is None:
        raise ApiError(401, "SEAT_TOKEN_REQUIRED", "this needs the seat's token (its cookie, or Authorization: Bearer)")
    found = await friends_sql.seat_of_token(unit.conn, token)
    open_table = None if found is None else await friends_sql.select_open_table(unit.conn, code, lock=lock)
    if found is None or open_table is None or open_table.table_id != found[0]:
        raise ApiError(401, "SEAT_TOKEN_INVALID", "this seat token acts for no seat of this table")
    return open_table, found[1]


async def viewed(unit: UnitOfWork, table: FriendsTable, viewer: int | None, after: int | None = None) -> TableView:
    """The table as `viewer` sees it now, with the game's records after `after` when asked."""
    seats = tuple(await friends_sql.select_seats(unit.conn, table.table_id))
    game, records = None, tuple[Link, ...]()
    if table.game_id is not None:
        stored = await inbetween_sql.select_game(unit.conn, FRIENDS_OPERATOR, table.game_id)
        assert stored is not None  # a table's game is never deleted
        game = inbetween_use_cases.view(stored.game, stored.shoe, stored.head.seq, viewer)
        if after is not None:
            found = await inbetween_sql.select_records(unit.conn, table.game_id, after=after, limit=MOVES_MOST)
            records = tuple(seat_records(found, viewer))
    return TableView(table=table, seats=seats, game=game, viewer=viewer, records=records)


def seat_records(records: list[Link], viewer: int | None) -> list[Link]:
    """The records a seat may read: all of them, for every seat and every spectator. A card dealt face down is
    recorded by its place in the committed pack (`ib_card_dealt_down`), never by its card, and named only when it is
    shown (`ib_cards_shown`), so no record carries a card still face down; a seat's own cards are in its view."""
    del viewer
    return records


async def look(unit: UnitOfWork, code: str, token: bytes | None, address: str, after: int | None) -> TableView | None:
    """The table as the token's seat sees it, or as a spectator sees it without one."""
    if token is not None:
        table, seat = await seated(unit, code, token, lock=False)
        return await viewed(unit, table, seat, after)
    watched = await locked_by_code(unit, code, address, lock=False)
    return None if watched is None else await viewed(unit, watched, None, after)


async def game_records(unit: UnitOfWork, code: str, address: str, after: int, limit: int) -> list[Link] | None:
    """The game's chain by the table's code, for anyone at the table (or watching) to check the deal."""
    table = await locked_by_code(unit, code, address, lock=False)
    if table is None:
        return None
    if table.game_id is None:
        return []
    return await inbetween_sql.select_records(unit.conn, table.game_id, after=after, limit=limit)


def next_host(seats: tuple[FriendsSeat, ...], host: int) -> int | None:
    """The next person after the host in seat order who is still at the table."""
    people = [s.seat for s in seats if s.person and s.has_token and s.seat != host]
    after = [seat for seat in people if seat > host] + [seat for seat in people if seat < host]
    return after[0] if after else None


def host_only(table: FriendsTable, seat: int) -> None:
    if seat != table.host_seat:
        raise ApiError(403, "NOT_HOST", "only the table's host may do this")


def seat_at(seats: tuple[FriendsSeat, ...], number: int) -> FriendsSeat:
    found = next((s for s in seats if s.seat == number), None)
    if found is None:
        raise not_found("seat")
    return found


def game_id_of(table: FriendsTable) -> UUID:
    if table.game_id is None:
        raise ApiError(409, "GAME_NOT_STARTED", "the host has not started the game yet")
    return table.game_id
