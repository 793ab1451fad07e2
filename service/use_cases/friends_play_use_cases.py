"""The game at a friends' table: the host starts it (every empty seat the computer's), a seat moves, and after every
change the computer plays the seats it holds until a person must act, whose turn then gets its deadline.

The game is an ordinary In Between game of the operator `friends`: the engine's moves, its audit chain, its version
(the seq of its last record) and 409 STALE_VERSION, exactly as the signed game routes have them.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from datetime import datetime, timedelta

import msgspec

from paytables.inbetween import inbetween_game
from paytables.inbetween.inbetween_actions import InBetweenAction, InBetweenError
from paytables.inbetween.inbetween_events import (
    InBetweenChipsBought,
    InBetweenEvent,
    InBetweenStoodIn,
    InBetweenStopAgreed,
    SeatSpec,
    StandIn,
)
from paytables.inbetween.inbetween_seat_play import Computer, Personality, play_held_seats
from paytables.inbetween.inbetween_state import Game, GameStatus
from paytables.inbetween.inbetween_tape import InBetweenStep
from service.chains import checkpoints
from service.db import friends_sql, inbetween_sql
from service.db.audit_sql import GENESIS_HEAD
from service.db.friends_sql import FriendsSeat, FriendsTable
from service.db.inbetween_sql import StoredGame
from service.db.row_reads import LOCKED, Found
from service.db.unit_of_work import UnitOfWork
from service.errors import ApiError, validation
from service.settings import FRIENDS_OPERATOR
from service.shuffler import csprng, one_deck_shoe
from service.use_cases import friends_use_cases as tables
from service.use_cases.friends_use_cases import OVER, PLAYING, TableView
from service.use_cases.inbetween_use_cases import persist, refused, released_ruleset, view
from shoe.shoe import ShoeError

PLAYER = "seat-{seat}"  # a seat's player id in the game: seats are told apart by number, never by a typed name
MISSES_TO_HOLD = 2  # turns in a row a seat's timer plays before the computer takes the seat over
DEFAULT_PERSONALITIES = (Personality.STEADY, Personality.CAUTIOUS, Personality.BOLD)


def player_of(seat: int) -> str:
    return PLAYER.format(seat=seat)


def deadline_for(
    table: FriendsTable, game: Game, held: Mapping[int, Computer], now: datetime, *, moved: bool
) -> datetime | None:
    """The awaited person's deadline: kept while the same decision is awaited (nothing `moved`), new for a new one,
    none when the game waits for no person."""
    if game.status is GameStatus.GAME_OVER or game.turn is None or game.to_act is None or game.turn.seat in held:
        return None
    if not moved and table.turn_deadline is not None:
        return table.turn_deadline
    return now + timedelta(seconds=table.turn_seconds)


def computer_seat(seat: int, now: datetime, computer: Computer | None) -> FriendsSeat:
    chosen = computer or Computer(personality=DEFAULT_PERSONALITIES[seat % len(DEFAULT_PERSONALITIES)])
    return FriendsSeat(
        seat=seat,
        name=None,
        joined_at=now,
        held_by=None,
        missed=0,
        personality=chosen.personality.value,
        endgame_tip=chosen.endgame_tip,
        has_token=False,
    )


async def start(
    unit: UnitOfWork,
    code: str,
    token: bytes | None,
    computers: Mapping[int, Computer],
    forced: tuple[str, ...] = (),
) -> TableView:
    """The host starts the game, or a rematch with the same seats once it is over; empty seats go to the computer.
    `forced` cards (on a server that allows test tables only) start the pack, and the game is a test game."""
    table, seat = await tables.seated(unit, code, token)
    tables.host_only(table, seat)
    if forced and not unit.settings.allow_test_tables:
        raise ApiError(403, "FORCED_CARDS_NOT_ALLOWED", "forced cards need a server run with RD_ALLOW_TEST_TABLES=true")
    if table.status == PLAYING:
        raise ApiError(409, "TABLE_STARTED", "the game is already being played")
    seats = tuple(await friends_sql.select_seats(unit.conn, table.table_id))
    taken = {s.seat for s in seats}
    added = tuple(computer_seat(n, unit.now, computers.get(n)) for n in range(table.seats) if n not in taken)
    seats = tuple(sorted((*(_fresh(s) for s in seats), *added), key=lambda s: s.seat))
    ruleset = released_ruleset(table.ruleset)
    specs = [SeatSpec(player_id=player_of(s.seat), computer=not s.person) for s in seats]
    game_id, source = uuid.uuid4(), csprng()
    try:
        shoe = one_deck_shoe(forced)
    except ShoeError as exc:
        raise validation(f"forced_cards: {exc}") from None
    try:
        first = inbetween_game.start_game(
            game_id=str(game_id),
            ruleset=ruleset,
            ante=table.ante,
            rounds=table.rounds,
            seats=specs,
            shoe=shoe,
            source=source,
            now=unit.now,
            test=bool(forced),
            forced=len(forced),
        )
        step = play_held_seats(
            first.game, first.shoe, ruleset=ruleset, held=tables.held_seats(seats), source=source, now=unit.now
        )
    except InBetweenError as exc:
        raise refused(exc) from None
    events = [*first.events, *step.events]
    over = step.game.status is GameStatus.GAME_OVER
    appended = checkpoints.append(unit, game_id, GENESIS_HEAD, events, test=bool(forced), now=unit.now, last=over)
    writes, head = appended.writes, appended.head
    unit.defer([inbetween_sql.insert_game(game_id, FRIENDS_OPERATOR, step.game, step.shoe, head), *writes])
    unit.defer(friends_sql.insert_seat(table.table_id, s, None) for s in added)
    unit.defer(friends_sql.update_seat(table.table_id, s) for s in seats if s.seat in taken)
    table = msgspec.structs.replace(table, game_id=game_id)
    return _moved_on(unit, table, seats, step, seat, head.seq, person=True)


def _fresh(seat: FriendsSeat) -> FriendsSeat:
    """A seat at the start of a game: no missed turns; a person who left stays the computer's."""
    held = seat.held_by if seat.held_by in ("left", "host") else None
    return msgspec.structs.replace(seat, missed=0, held_by=held)


def _moved_on(
    unit: UnitOfWork,
    table: FriendsTable,
    seats: tuple[FriendsSeat, ...],
    step: InBetweenStep,
    viewer: int | None,
    version: int,
    *,
    person: bool,
    moved: bool = True,
) -> TableView:
    """The table after its game moved (or its seats changed hands): its status, the next deadline and version,
    active now if a person made the change (a timer's move is no one's activity)."""
    status = OVER if step.game.status is GameStatus.GAME_OVER else PLAYING
    deadline = deadline_for(table, step.game, tables.held_seats(seats), unit.now, moved=moved)
    table = msgspec.structs.replace(
        table,
        status=status,
        turn_deadline=deadline,
        version=table.version + 1,
        active_at=unit.now if person else table.active_at,
    )
    unit.defer([friends_sql.update_table(table)])
    return TableView(table=table, seats=seats, game=view(step.game, step.shoe, version, viewer), viewer=viewer)


async def locked_game(unit: UnitOfWork, table: FriendsTable) -> StoredGame:
    """The table's game, its row locked after the table's (the one order every writer takes them in)."""
    read = await inbetween_sql.read_game(unit.conn, FRIENDS_OPERATOR, tables.game_id_of(table), LOCKED)
    assert isinstance(read, Found)  # a table's game is never deleted, and a friends' game carries no key to replay
    return read.value


async def move(unit: UnitOfWork, code: str, token: bytes | None, action: InBetweenAction, version: int) -> TableView:
    """The seat's call, bet or pass on the game at `version`; then the computer's seats until a person must act."""
    table, seat = await tables.seated(unit, code, token)
    stored = await locked_game(unit, table)
    if stored.head.seq != version:
        raise ApiError(
            409, "STALE_VERSION", f"the game is at version {stored.head.seq}; this move answers version {version}"
        )
    seats = tuple(await friends_sql.select_seats(unit.conn, table.table_id))
    mine = tables.seat_at(seats, seat)
    if mine.missed:  # the player acted: the timer's count of missed turns starts again
        mine = msgspec.structs.replace(mine, missed=0)
        seats = tuple(mine if s.seat == seat else s for s in seats)
        unit.defer([friends_sql.update_seat(table.table_id, mine)])
    mine_action = msgspec.structs.replace(action, player_id=player_of(seat))
    return await play_on(unit, table, seats, stored, seat, mine_action, person=True)


async def play_on(
    unit: UnitOfWork,
    table: FriendsTable,
    seats: tuple[FriendsSeat, ...],
    stored: StoredGame,
    viewer: int | None,
    action: InBetweenAction | None,
    *,
    person: bool,
    stand_in: StandIn | None = None,
) -> TableView:
    """Make `action` (if any; `stand_in` says who made it for the seat, when its player did not), play the
    computer's seats, and persist the game and the table together."""
    ruleset = released_ruleset(stored.game.ruleset)
    source, now = csprng(), unit.read_clock()
    events: list[InBetweenEvent] = []
    game, shoe = stored.game, stored.shoe
    try:
        if action is not None:
            moved = inbetween_game.act(game, shoe, action, ruleset=ruleset, source=source, now=now, stand_in=stand_in)
            events.extend(moved.events)
            game, shoe = moved.game, moved.shoe
        step = play_held_seats(game, shoe, ruleset=ruleset, held=tables.held_seats(seats), source=source, now=now)
    except InBetweenError as exc:
        raise refused(exc) from None
    events.extend(step.events)
    head = persist(unit, tables.game_id_of(table), stored.head, step.game, step.shoe, events)
    # an agreement or a buy leaves the decision awaited, and its deadline with it
    played = any(not isinstance(e, InBetweenStopAgreed | InBetweenChipsBought | InBetweenStoodIn) for e in events)
    return _moved_on(unit, table, seats, step, viewer, head.seq, person=person, moved=played)
