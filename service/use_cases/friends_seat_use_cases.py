"""Who plays a seat: the host hands a seat to the computer and back, a player takes their seat back from the
computer, and a player leaves (before the game the seat is free again; during it the computer keeps it). When the
host leaves, the host's role passes to the next person at the table."""

from __future__ import annotations

import msgspec

from paytables.inbetween.inbetween_seat_play import Computer
from service.db import friends_sql
from service.db.friends_sql import FriendsSeat, FriendsTable
from service.db.unit_of_work import UnitOfWork
from service.errors import ApiError
from service.use_cases import friends_play_use_cases as play
from service.use_cases import friends_use_cases as tables
from service.use_cases.friends_use_cases import CLOSED, PLAYING, WAITING, TableView

replace = msgspec.structs.replace


async def _reseated(
    unit: UnitOfWork, table: FriendsTable, seats: tuple[FriendsSeat, ...], changed: FriendsSeat, viewer: int
) -> TableView:
    """The table with one seat changed: written, and, while a game is played, the computer's seats played on."""
    seats = tuple(changed if s.seat == changed.seat else s for s in seats)
    if table.status == PLAYING:
        stored = await play.locked_game(unit, table)
        return await play.play_on(unit, table, seats, stored, viewer, None, person=True)
    table = tables.touched(unit, table)
    unit.defer([friends_sql.update_table(table)])
    return await _view_after(unit, table, seats, viewer)


async def _view_after(
    unit: UnitOfWork, table: FriendsTable, seats: tuple[FriendsSeat, ...], viewer: int | None
) -> TableView:
    view = await tables.viewed(unit, table, viewer)
    return replace(view, table=table, seats=seats)


async def hand_to_computer(unit: UnitOfWork, code: str, token: bytes | None, seat: int, how: Computer) -> TableView:
    """The host gives a seat to the computer, which plays it as `how` says until the host or its player takes it
    back (a computer's own seat just changes how it plays)."""
    table, mine = await tables.seated(unit, code, token)
    tables.host_only(table, mine)
    seats = tuple(await friends_sql.select_seats(unit.conn, table.table_id))
    target = tables.seat_at(seats, seat)
    if target.held_by == "left":
        raise ApiError(409, "SEAT_LEFT", "this seat's player has left: the computer keeps it")
    held = "host" if target.person else None
    changed = replace(target, held_by=held, personality=how.personality.value, endgame_tip=how.endgame_tip)
    unit.defer([friends_sql.update_seat(table.table_id, changed)])
    return await _reseated(unit, table, seats, changed, mine)


async def give_back(unit: UnitOfWork, code: str, token: bytes | None, seat: int) -> TableView:
    """The host gives a person's seat back to its player from the computer."""
    table, mine = await tables.seated(unit, code, token)
    tables.host_only(table, mine)
    return await _release(unit, table, seat, mine)


async def take_back(unit: UnitOfWork, code: str, token: bytes | None) -> TableView:
    """A player takes their own seat back from the computer (after missed turns, or a host's hand-over)."""
    table, mine = await tables.seated(unit, code, token)
    return await _release(unit, table, mine, mine)


async def _release(unit: UnitOfWork, table: FriendsTable, seat: int, viewer: int) -> TableView:
    seats = tuple(await friends_sql.select_seats(unit.conn, table.table_id))
    target = tables.seat_at(seats, seat)
    if not target.person or target.held_by not in ("host", "missed"):
        raise ApiError(409, "SEAT_NOT_HELD", "the computer is not playing this person's seat")
    changed = replace(target, held_by=None, missed=0)
    unit.defer([friends_sql.update_seat(table.table_id, changed)])
    return await _reseated(unit, table, seats, changed, viewer)


async def leave(unit: UnitOfWork, code: str, token: bytes | None) -> TableView:
    """The player leaves: their token stops working; before the game their seat is free, during it the computer's.
    The host's role passes to the next person; a waiting table nobody is left at closes."""
    table, mine = await tables.seated(unit, code, token)
    seats = tuple(await friends_sql.select_seats(unit.conn, table.table_id))
    target = tables.seat_at(seats, mine)
    if table.status == WAITING:
        seats = tuple(s for s in seats if s.seat != mine)
        unit.defer([friends_sql.delete_seat(table.table_id, mine)])
    else:
        gone = replace(target, held_by="left", has_token=False, missed=0)
        seats = tuple(gone if s.seat == mine else s for s in seats)
        unit.defer([friends_sql.update_seat(table.table_id, gone, revoke_token=True)])
    if mine == table.host_seat:
        host = tables.next_host(seats, mine)
        if host is None and table.status == WAITING:
            table = replace(table, status=CLOSED)  # nobody is left to start it: its code is free again
        table = replace(table, host_seat=mine if host is None else host)
    if table.status == PLAYING:
        stored = await play.locked_game(unit, table)
        return await play.play_on(unit, table, seats, stored, None, None, person=True)
    table = tables.touched(unit, table)
    unit.defer([friends_sql.update_table(table)])
    return await _view_after(unit, table, seats, None)
