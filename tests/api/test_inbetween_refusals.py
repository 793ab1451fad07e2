"""In Between refusals: each has its problem+json code, and a refused request writes nothing at all."""

from __future__ import annotations

from typing import Any

import asyncpg
import msgspec

from service.settings import Settings
from tests.api.helpers import problem
from tests.api.inbetween_helpers import (
    GAMES,
    NEPAL,
    chips,
    fingerprint,
    humans,
    play,
    post_action,
    posts,
    start,
)
from tests.support.client import Signed
from tests.support.live import live

# alice (seat 0) deals, bob (seat 1) plays first, ante 10, pot 20. bob bets the pot on 4-J and the 4 hits his post
# (pays 40: 950, pot 60); alice bets the pot on 5-10 and hits the 10 (pays 120: 870, pot 180). Round 2: both ante
# (860, 940, pot 200); alice bets the pot on 6-Q and hits the 6 (pays 400: 460, pot 600); bob bets 600 on 3-8 and
# loses to the king (340, pot 1200). Round 3: both ante (bob 330, alice 450, pot 1220): bob has 2-A, and the pot is
# bigger than his chips. Then alice's ace is called high and pairs with the next ace; round 4 alice has two 2s.
DEEP_POT = [
    "4S", "JH", "4D", "5S", "TH", "TD", "6S", "QH", "6D", "3S", "8H", "KD", "2C", "AC", "AD", "AH", "2D", "2H",
]  # fmt: skip


async def deep_pot_game(api: Signed) -> Any:
    game = await start(api, humans("alice", "bob"), DEEP_POT)
    gid = game["game_id"]
    for player, amount in (("bob", 20), ("alice", 60), ("alice", 200), ("bob", 600)):
        game = await play(api, gid, player, "bet", amount=amount)
    assert (game["round"], game["to_act"], posts(game)) == (3, "bob", ("2C", "AC"))
    assert (chips(game), game["pot"], game["turn"]["max_bet"]) == ([450, 330], 1220, 330)
    return game


# Every refused move on one game, in turn (one app for them all keeps the suite quick): player, action, fields,
# status, code.
REFUSED_MOVES: list[tuple[str, str, dict[str, Any], int, str]] = [
    ("bob", "bet", {"amount": 1221}, 422, "BET_OVER_POT"),
    ("bob", "bet", {"amount": 331}, 422, "BET_OVER_CHIPS"),
    ("alice", "bet", {"amount": 5}, 409, "NOT_YOUR_TURN"),
    ("alice", "pass", {}, 409, "NOT_YOUR_TURN"),
    ("carol", "pass", {}, 409, "NOT_YOUR_TURN"),
    ("bob", "call_ace", {"call": "high"}, 409, "WRONG_ACTION"),
    ("bob", "call_pair", {"call": "lower"}, 409, "WRONG_ACTION"),
    ("bob", "bet", {"amount": 0}, 400, "VALIDATION_ERROR"),
    ("bob", "bet", {"amount": "5"}, 400, "VALIDATION_ERROR"),
    ("bob", "bet", {}, 400, "VALIDATION_ERROR"),
    ("bob", "raise", {"amount": 5}, 400, "VALIDATION_ERROR"),
    ("bob", "pass", {"amount": 5}, 400, "VALIDATION_ERROR"),
    ("bob", "call_ace", {"call": "sideways"}, 400, "VALIDATION_ERROR"),
]


async def test_a_move_the_rules_refuse_gets_its_code_and_writes_nothing(api: Signed, db: asyncpg.Connection) -> None:
    deep = await deep_pot_game(api)
    before = await fingerprint(db, api.operator_id, deep["game_id"])
    for player, action, fields, status, code in REFUSED_MOVES:
        body = problem(await post_action(api, deep["game_id"], player, action, **fields), status, code)
        assert body["retryable"] is False
        assert await fingerprint(db, api.operator_id, deep["game_id"]) == before, (player, action, fields)
    assert await api.ok("GET", f"{GAMES}/{deep['game_id']}") == deep
    # The refusals left bob's turn as it was: he may still bet all he has. The AD hits his ace post, which would cost
    # twice 330 but takes only the 330 he has; alice is the only player left with chips and takes the pot.
    game = await play(api, deep["game_id"], "bob", "bet", amount=330)
    assert (game["status"], game["ended_reason"], game["winners"]) == ("game_over", "one_player_left", [0])
    assert (chips(game), game["pot"], game["turn"]["third_card"], game["turn"]["outcome"]) == (
        [2000, 0],
        0,
        "AD",
        "post",
    )


async def test_a_call_higher_than_aces_or_lower_than_twos_is_impossible(api: Signed, db: asyncpg.Connection) -> None:
    game = await deep_pot_game(api)
    gid = game["game_id"]
    game = await play(api, gid, "bob", "pass")
    assert (game["to_act"], game["awaiting"], posts(game)) == ("alice", "ace_call", ("AD", None))
    game = await play(api, gid, "alice", "call_ace", call="high")
    assert (game["awaiting"], posts(game)) == ("pair_call", ("AD", "AH"))
    assert [o["call"] for o in game["pair_call_odds"]] == ["lower"]
    before = await fingerprint(db, api.operator_id, gid)
    problem(await post_action(api, gid, "alice", "call_pair", call="higher"), 422, "IMPOSSIBLE_CALL")
    assert await fingerprint(db, api.operator_id, gid) == before
    game = await play(api, gid, "alice", "pass")
    assert (game["round"], game["to_act"], posts(game)) == (4, "alice", ("2D", "2H"))
    assert [o["call"] for o in game["pair_call_odds"]] == ["higher"]
    problem(await post_action(api, gid, "alice", "call_pair", call="lower"), 422, "IMPOSSIBLE_CALL")


async def test_a_bet_under_the_ante_is_refused_where_the_least_bet_is_the_ante(api: Signed) -> None:
    game = await start(api, humans("alice", "bob"), ["4S", "JH"], ruleset="inbetween/sheets/v1", rounds="until_empty")
    assert (game["rounds"], game["turn"]["min_bet"], game["turn"]["max_bet"]) == (None, 10, 20)
    problem(await post_action(api, game["game_id"], "bob", "bet", amount=9), 422, "BET_BELOW_MINIMUM")
    await play(api, game["game_id"], "bob", "bet", amount=10)


async def test_a_game_that_is_over_refuses_every_move(api: Signed, db: asyncpg.Connection) -> None:
    # sheets/v1 ends when a bet takes the whole pot: bob bets all 20 on 4-J and the 7 wins it.
    game = await start(
        api, humans("alice", "bob"), ["4S", "JH", "7D"], ruleset="inbetween/sheets/v1", rounds="until_empty"
    )
    game = await play(api, game["game_id"], "bob", "bet", amount=20)
    assert (game["status"], game["ended_reason"], chips(game), game["winners"]) == (
        "game_over",
        "pot_emptied",
        [990, 1010],
        [1],
    )
    assert (game["to_act"], game["awaiting"]) == (None, None)
    before = await fingerprint(db, api.operator_id, game["game_id"])
    for player, action, fields in (("alice", "pass", {}), ("bob", "bet", {"amount": 1}), ("x", "pass", {})):
        problem(await post_action(api, game["game_id"], player, action, **fields), 409, "GAME_OVER")
    assert await fingerprint(db, api.operator_id, game["game_id"]) == before


BODY = {"ruleset": NEPAL, "ante": 10, "rounds": 5, "seats": [{"player_id": "a"}, {"player_id": "b"}]}


# (changes to a good body, status, code): each refused, and nothing written.
REFUSED_GAMES: list[tuple[dict[str, Any], int, str]] = [
    ({"ruleset": "inbetween/nepal/v9"}, 422, "VALIDATION_ERROR"),
    ({"ruleset": "nepal/v1"}, 422, "VALIDATION_ERROR"),
    ({"ante": 7}, 422, "INVALID_GAME"),
    ({"rounds": 6}, 422, "INVALID_GAME"),
    ({"rounds": "until_empty"}, 422, "INVALID_GAME"),
    ({"rounds": "forever"}, 400, "VALIDATION_ERROR"),
    ({"seats": [{"player_id": "a"}]}, 422, "INVALID_GAME"),
    ({"seats": [{"player_id": "a"}, {"player_id": "a"}]}, 422, "INVALID_GAME"),
    ({"seats": [{"player_id": "a"}, {}]}, 422, "VALIDATION_ERROR"),
    ({"seats": [{"player_id": "a"}, {"computer": False}]}, 422, "VALIDATION_ERROR"),
    ({"seats": [{"player_id": f"p{i}"} for i in range(9)]}, 400, "VALIDATION_ERROR"),
    ({"seats": [{"player_id": "a b"}, {"player_id": "c"}]}, 400, "VALIDATION_ERROR"),
    ({"ante": 0}, 400, "VALIDATION_ERROR"),
    ({"colour": "red"}, 400, "VALIDATION_ERROR"),
    ({"mode": "test", "forced_cards": ["4S", "4S"]}, 422, "VALIDATION_ERROR"),
    ({"mode": "test", "forced_cards": ["1S"]}, 400, "VALIDATION_ERROR"),
    ({"forced_cards": ["4S", "JH"]}, 403, "FORCED_CARDS_NOT_ALLOWED"),
]


async def test_a_game_the_rule_set_or_the_server_does_not_offer_is_refused_and_nothing_is_written(
    api: Signed, db: asyncpg.Connection
) -> None:
    for changes, status, code in REFUSED_GAMES:
        problem(await api.post(GAMES, {**BODY, **changes}), status, code)
    assert await db.fetchval("SELECT count(*) FROM inbetween_games WHERE operator_id = $1", api.operator_id) == 0
    assert await db.fetchval("SELECT count(*) FROM idempotency_keys WHERE operator_id = $1", api.operator_id) == 0
    assert (await api.post(GAMES, BODY)).status_code == 201  # the good body itself is a game


async def test_a_test_game_needs_a_server_that_allows_test_tables(settings: Settings) -> None:
    strict = msgspec.structs.replace(settings, allow_test_tables=False)
    async with live(strict) as server:
        refused = await server.api.post(GAMES, {**BODY, "mode": "test"})
        problem(refused, 403, "FORCED_CARDS_NOT_ALLOWED")
        refused = await server.api.post(GAMES, {**BODY, "mode": "test", "forced_cards": ["4S"]})
        problem(refused, 403, "FORCED_CARDS_NOT_ALLOWED")
        live_game = await server.api.ok("POST", GAMES, BODY)
        assert live_game["test"] is False


async def test_another_operators_game_is_not_found_and_unsigned_requests_are_refused(
    api: Signed, other_api: Signed, auditor_api: Signed
) -> None:
    game = await start(api, humans("alice", "bob"), ["4S", "JH"])
    gid = game["game_id"]
    problem(await other_api.get(f"{GAMES}/{gid}"), 404, "NOT_FOUND")
    problem(await other_api.get(f"{GAMES}/{gid}/records"), 404, "NOT_FOUND")
    problem(await post_action(other_api, gid, "bob", "pass"), 404, "NOT_FOUND")
    problem(await auditor_api.get(f"{GAMES}/{gid}"), 403, "AUDITOR_READ_ONLY")
    problem(await api.client.get(f"{GAMES}/{gid}"), 401, "UNAUTHENTICATED")
    problem(await api.client.post(GAMES, json=BODY), 401, "UNAUTHENTICATED")
    problem(await api.get(f"{GAMES}/00000000-0000-4000-8000-000000000000"), 404, "NOT_FOUND")
    assert await api.ok("GET", f"{GAMES}/{gid}") == game
