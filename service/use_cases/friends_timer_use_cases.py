"""What the sweeper does for the friends' tables: a turn whose deadline passed gets its default move (two in a row
and the computer takes the seat until its player is back), and a table nobody has touched for
RD_FRIENDS_IDLE_SECONDS closes, freeing its code. Each returns the hints to push once its unit has committed."""

from __future__ import annotations

from datetime import timedelta

import msgspec

from paytables.inbetween.inbetween_seat_play import TIMER, default_move
from service.db import friends_sql
from service.db.unit_of_work import UnitOfWork
from service.use_cases import friends_limits
from service.use_cases import friends_play_use_cases as play
from service.use_cases import friends_use_cases as tables
from service.use_cases.friends_use_cases import CLOSED, PLAYING, Hint, hint_of
from service.use_cases.inbetween_use_cases import released_ruleset

IDLE_BATCH = 100


async def expire_one_turn(unit: UnitOfWork) -> Hint | None:
    """Claim one table whose turn deadline has passed (SKIP LOCKED) and play its default move; None when none is due."""
    due = await friends_sql.select_due_tables(unit.conn, unit.now, 1)
    if not due:
        return None
    table = await friends_sql.lock_table(unit.conn, due[0])
    assert table is not None  # claimed, so locked, a moment ago
    if table.status != PLAYING:
        unit.defer([friends_sql.update_table(msgspec.structs.replace(table, turn_deadline=None))])
        return None
    stored = await play.locked_game(unit, table)
    game = stored.game
    seats = tuple(await friends_sql.select_seats(unit.conn, table.table_id))
    if game.turn is None or game.to_act is None:  # nothing awaited after all: the deadline is stale
        unit.defer([friends_sql.update_table(msgspec.structs.replace(table, turn_deadline=None))])
        return None
    late = tables.seat_at(seats, game.turn.seat)
    missed = late.missed + 1
    late = msgspec.structs.replace(late, missed=missed, held_by="missed" if missed >= play.MISSES_TO_HOLD else None)
    seats = tuple(late if s.seat == late.seat else s for s in seats)
    unit.defer([friends_sql.update_seat(table.table_id, late)])
    action = default_move(game, released_ruleset(game.ruleset))
    return hint_of(await play.play_on(unit, table, seats, stored, None, action, person=False, stand_in=TIMER))


async def close_idle(unit: UnitOfWork) -> list[Hint]:
    """Close the tables nobody has touched for the idle time (a game left unfinished stays as it is, its chain
    whole); their codes are free again. Also forgets the limits' windows that are long over."""
    before = unit.now - timedelta(seconds=unit.settings.friends.idle_seconds)
    idle = await friends_sql.select_idle_tables(unit.conn, before, IDLE_BATCH)
    closed = [msgspec.structs.replace(t, status=CLOSED, turn_deadline=None, version=t.version + 1) for t in idle]
    unit.defer(friends_sql.update_table(t) for t in closed)
    await friends_sql.delete_old_windows(unit.conn, unit.now - friends_limits.KEEP_WINDOWS)
    games = await friends_sql.game_versions(unit.conn, [t.game_id for t in closed if t.game_id is not None])
    return [
        Hint(
            table_id=t.table_id,
            code=t.code,
            version=t.version,
            game_version=0 if t.game_id is None else games[t.game_id],
            status=t.status,
        )
        for t in closed
    ]
