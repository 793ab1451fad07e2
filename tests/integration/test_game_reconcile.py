"""`reddog audit verify --db` reconciles every In Between game row (its state, status and head columns) with the
state its chain replays to: a row rewritten as the service login, its records untouched, is named and exits 1."""

from __future__ import annotations

from uuid import UUID

import asyncpg

from service.db.app_login import login_url
from tests.api.inbetween_helpers import humans, play, start
from tests.conftest import make_settings
from tests.integration.test_audit_db_tools import reddog
from tests.support.clock import ManualClock
from tests.support.live import live
from tests.support.scratch import TEST_LOGIN, TEST_LOGIN_PASSWORD, scratch_database


async def a_game(url: str) -> str:
    """One game a few moves in (a bet placed and settled), as the service plays it."""
    async with live(make_settings(url), clock=ManualClock()) as server:
        game = await start(server.api, humans("alice", "bob"), ["4S", "JH", "9C", "2D", "KS"])
        await play(server.api, game["game_id"], game["to_act"], "bet", amount=10)
    return str(game["game_id"])


async def as_the_service(url: str, sql: str, game_id: str) -> None:
    """Rewrite the row as the service's own login could (it may UPDATE inbetween_games), not as the owner."""
    conn = await asyncpg.connect(login_url(url, TEST_LOGIN, TEST_LOGIN_PASSWORD))
    try:
        assert await conn.execute(sql, UUID(game_id)) == "UPDATE 1"
    finally:
        await conn.close()


async def test_an_untouched_database_with_games_verifies_and_says_every_game_matches(database_server: str) -> None:
    async with scratch_database(database_server) as url:
        await a_game(url)
        code, out, err = await reddog(url, "audit", "verify", "--db")
        assert code == 0, (out, err)
        assert "every stored game matches its records" in err


async def test_a_game_row_whose_chips_were_rewritten_is_named_and_verify_exits_1(database_server: str) -> None:
    async with scratch_database(database_server) as url:
        game_id = await a_game(url)
        await as_the_service(
            url,
            "UPDATE inbetween_games SET state = jsonb_set(state, '{seats,0,chips}', '999990') WHERE game_id = $1",
            game_id,
        )
        code, out, err = await reddog(url, "audit", "verify", "--db")
        assert code == 1, (out, err)
        assert f"STORED GAME DIFFERS {game_id}: seats stored " in err
        assert "999990" in err, err


async def test_a_game_row_whose_status_was_rewritten_is_named_and_verify_exits_1(database_server: str) -> None:
    async with scratch_database(database_server) as url:
        game_id = await a_game(url)
        await as_the_service(url, "UPDATE inbetween_games SET status = 'game_over' WHERE game_id = $1", game_id)
        code, out, err = await reddog(url, "audit", "verify", "--db")
        assert code == 1, (out, err)
        assert f"STORED GAME DIFFERS {game_id}: its status column is 'game_over', its records say " in err, err
