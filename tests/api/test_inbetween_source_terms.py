"""Issue 23's terms over HTTP: computer names that cannot collide, nine seats, the rule set's default rounds, a pass
refused where every player must bet, half the pot in the first round; a refusal writes nothing."""

from __future__ import annotations

import asyncpg

from tests.api.helpers import problem
from tests.api.inbetween_helpers import GAMES, NEPAL, chips, fingerprint, humans, post_action, start
from tests.support.client import Signed


async def test_a_computer_seat_never_takes_the_name_a_human_asked_for(api: Signed) -> None:
    # The issue: seats [{"player_id": "computer-1"}, {"computer": true}] were refused with "a player may hold only one
    # seat", the computer in seat 1 being named computer-1 too. It is now computer-1-2.
    game = await start(api, [{"player_id": "computer-1"}, {"computer": True}])
    assert [(s["player_id"], s["computer"]) for s in game["seats"]] == [("computer-1", False), ("computer-1-2", True)]


async def test_nine_seats_are_a_validation_error_before_any_rule_set_is_read(api: Signed) -> None:
    body = {"ruleset": NEPAL, "ante": 10, "rounds": 5, "seats": humans(*(f"p{i}" for i in range(9)))}
    response = await api.post(GAMES, body)
    problem(response, 400, "VALIDATION_ERROR")


async def test_a_game_created_without_rounds_plays_the_rule_sets_default(api: Signed) -> None:
    # The Nepali table: "A game is 10 rounds, or 5 or 15 if you choose"; nepal/v1 keeps its first choice, 5.
    # The posts are forced wide apart (2 and ace): a live pack could deal the first player side-by-side posts, which
    # pass the turn at once, and two such turns end the round and move the deal before the test reads it.
    v2 = await start(api, humans("alice", "bob"), ["2S", "AH"], ruleset="inbetween/nepal/v2", rounds=None)
    v1 = await start(api, humans("alice", "bob"), ["2S", "AH"], rounds=None)
    assert (v2["rounds"], v1["rounds"]) == (10, 5)
    # Play goes to the dealer's right: with two seats, seat 0's right is seat 1, so the order is the same [1, 0].
    assert (v2["dealer"], v2["order"]) == (0, [1, 0])


async def test_a_pass_is_refused_where_every_player_must_bet_and_writes_nothing(
    api: Signed, db: asyncpg.Connection
) -> None:
    # home/v2: "the player with the highest card deals first" (2C to alice, KC to bob: bob deals, alice plays first)
    # and "they have to usually bet a minimal of a single chip".
    game = await start(api, humans("alice", "bob"), ["2C", "KC", "5S", "9H"], ruleset="inbetween/home/v2")
    assert (game["dealer"], game["to_act"], chips(game), game["pot"]) == (1, "alice", [990, 990], 20)
    before = await fingerprint(db, api.operator_id, game["game_id"])
    response = await post_action(api, game["game_id"], "alice", "pass")
    problem(response, 422, "PASS_NOT_ALLOWED")
    assert await fingerprint(db, api.operator_id, game["game_id"]) == before


async def test_a_first_round_bet_over_half_the_pot_is_refused(api: Signed) -> None:
    # nepal-half-pot/v1: "allow only half the pot in the first round": a pot of 20 lets a bet take 10.
    game = await start(api, humans("alice", "bob"), ["2S", "AH"], ruleset="inbetween/nepal-half-pot/v1")
    assert (game["pot"], game["turn"]["max_bet"]) == (20, 10)
    response = await post_action(api, game["game_id"], game["to_act"], "bet", amount=11)
    problem(response, 422, "BET_OVER_POT")
