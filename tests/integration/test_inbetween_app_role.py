"""The app's database role may play In Between games and append their records, and no more than that."""

from __future__ import annotations

from uuid import UUID

import asyncpg
import pytest

from audit.verify_export import verify_links
from paytables.inbetween.inbetween_actions import PassTurn
from paytables.inbetween.inbetween_events import SeatSpec
from service.db import inbetween_sql
from service.db.unit_of_work import Runner, run
from service.settings import Settings
from service.use_cases import inbetween_use_cases
from service.use_cases.inbetween_use_cases import GameView, NewGame
from tests.support.clock import ManualClock
from tests.support.scratch import TEST_APP_ROLE


@pytest.mark.parametrize(
    ("privilege", "granted"),
    [("SELECT", True), ("INSERT", True), ("UPDATE", True), ("DELETE", False), ("TRUNCATE", False)],
)
async def test_the_app_role_may_read_write_and_update_games_but_never_delete_one(
    db: asyncpg.Connection, privilege: str, granted: bool
) -> None:
    found = await db.fetchval("SELECT has_table_privilege($1, 'inbetween_games', $2)", TEST_APP_ROLE, privilege)
    assert found is granted


async def _as_app_role(conn: asyncpg.Connection) -> None:
    await conn.execute(f"SET ROLE {TEST_APP_ROLE}")


async def test_a_game_is_started_and_played_by_a_connection_in_the_app_role(
    database_url: str, settings: Settings, clock: ManualClock, db: asyncpg.Connection
) -> None:
    pool = await asyncpg.create_pool(database_url, min_size=1, max_size=1, init=_as_app_role)
    try:
        runner = Runner(pool, settings, clock)
        new = NewGame(
            ruleset="inbetween/nepal/v1",
            ante=5,
            rounds=5,
            seats=(SeatSpec(player_id="a"), SeatSpec(player_id="b")),
            test=True,
            # a's posts forced too: a live pair side by side would pass a's turn at once and hand it back to b
            forced_cards=("4S", "JH", "3D", "QC"),
        )
        started = await run(runner, "op-role", lambda unit: inbetween_use_cases.create_game(unit, new))
        game_id = UUID(started.game.game_id)
        moved = await run(
            runner,
            "op-role",
            lambda unit: inbetween_use_cases.act(unit, game_id, PassTurn(player_id="b"), started.version),
        )
        assert isinstance(moved, GameView)  # run without a key: a Locked unit, which never replays
        assert await pool.fetchval("SELECT current_user") == TEST_APP_ROLE
    finally:
        await pool.close()
    assert (started.game.to_act, moved.game.to_act) == ("b", "a")
    stored = await inbetween_sql.select_game(db, "op-role", game_id)
    assert stored is not None
    assert stored.game == moved.game
    links = await inbetween_sql.select_records(db, game_id)
    assert verify_links(str(game_id), links).ok
    assert stored.head.seq == len(links)
