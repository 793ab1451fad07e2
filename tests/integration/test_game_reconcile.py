"""`reddog audit verify --db` reconciles every In Between game row (its state, status and head columns) with the
state its chain replays to: a row rewritten as the service login, its records untouched, is named and exits 1."""

from __future__ import annotations

from uuid import UUID

import asyncpg

from service.db.app_login import login_url
from tests.api.inbetween_helpers import humans, play, start
from tests.conftest import make_settings
from tests.support.clock import ManualClock
from tests.support.live import live
from tests.support.reddog_command import reddog
from tests.support.scratch import TEST_LOGIN, TEST_LOGIN_PASSWORD, scratch_database


async def a_game(url: str) -> str:
    """One game a few moves in (a bet placed and settled), as the service plays it."""
    async with live(make_settings(url), clock=ManualClock()) as server:
        game = await start(server.api, humans("alice", "bob"), ["4S", "JH", "9C", "2D", "KS"])
        await play(server.api, game["game_id"], game["to_act"], "bet", amount=10)
    return str(game["game_id"])


# Issue 23's releases: their new records (the dealer drawn from the pack, a bank's first pack, an ante returned) must
# fold from the chain to exactly the rows the service stored.
NEW_TERMS = [
    "inbetween/nepal/v2",
    "inbetween/nepal-half-pot/v1",
    "inbetween/pagat-ante/v1",
    "inbetween/pagat-push/v1",
    "inbetween/pagat-min-ante/v1",
    "inbetween/home/v2",
    "inbetween/home-three/v1",
    "inbetween/pagat-twice/v1",
    "inbetween/pagat-split/v1",  # issue 26: a split pair's records
    "inbetween/pagat-ante/v2",  # issue 26: stopping by agreement
]


async def games_by_every_new_rule_set(url: str) -> None:
    """For each new rule set, one game the computers play to its end and one a human has yet to move in."""
    async with live(make_settings(url), clock=ManualClock()) as server:
        for ruleset in NEW_TERMS:
            await start(server.api, [{"computer": True}] * 3, ruleset=ruleset, rounds=None)
            await start(server.api, [{"player_id": "alice"}, {"computer": True}], ruleset=ruleset, rounds=None)


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


async def test_games_by_every_new_rule_set_verify_against_their_chains(database_server: str) -> None:
    async with scratch_database(database_server) as url:
        await games_by_every_new_rule_set(url)
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
