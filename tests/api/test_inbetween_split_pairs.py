"""Splitting a pair over HTTP (pagat-split/v1): the split and keep_pair moves, each hand shown in the turn, the chain
holding the split's records and replaying to the game served; a split where no pair waits is refused and writes
nothing. The numbers are worked in tests/unit/test_inbetween_split.py from pagat's words."""

from __future__ import annotations

import asyncpg
from litestar import Litestar
from litestar.testing import AsyncTestClient

from paytables.inbetween.inbetween_events import (
    InBetweenHandEnded,
    InBetweenPairSplit,
    InBetweenTurnEnded,
    TurnOutcome,
)
from paytables.inbetween.inbetween_state import replay
from tests.api.friends_helpers import create, join, quiet_move
from tests.api.helpers import problem
from tests.api.inbetween_helpers import chips, events, fingerprint, humans, play, post_action, start
from tests.support.client import Signed

SPLIT = "inbetween/pagat-split/v1"
# "2S" is place 0 of the canonical deck: 0 mod 3 seats is seat 0, so alice deals and bob plays first.
CARDS = ["2S", "8S", "8H", "2D", "5C", "KD", "8D"]


async def test_a_pair_split_over_http_plays_two_hands_and_its_records_replay_the_game(
    api: Signed, db: asyncpg.Connection
) -> None:
    game = await start(api, humans("alice", "bob", "carol"), [*CARDS, "3C", "JD"], ruleset=SPLIT)
    assert (game["status"], game["awaiting"], game["to_act"]) == ("awaiting_split", "split", "bob")
    game = await play(api, game["game_id"], "bob", "split")
    assert (chips(game), game["pot"]) == ([990, 980, 990], 40)  # one more ante into the pot
    turn = game["turn"]
    assert (turn["hand"], turn["first_post"], turn["second_post"], turn["split_card"]) == (1, "8S", "2D", "8H")
    game = await play(api, game["game_id"], "bob", "bet", amount=20)  # the 5C wins 20
    turn = game["turn"]
    assert (turn["hand"], turn["first_post"], turn["second_post"], turn["max_bet"]) == (2, "8H", "KD", 20)
    assert turn["hands"] == [
        {
            "first_post": "8S",
            "second_post": "2D",
            "pair_call": None,
            "bet": 20,
            "passed": False,
            "third_card": "5C",
            "outcome": "win",
        }
    ]
    game = await play(api, game["game_id"], "bob", "bet", amount=20)  # the 8D hits the post: 40
    # carol's turn has begun: 3C JD, a bet awaited
    assert (chips(game), game["pot"], game["turn"]["seat"]) == ([990, 960, 990], 60, 2)
    chain = await events(db, game["game_id"])
    assert [e.outcome for e in chain if isinstance(e, InBetweenTurnEnded)] == [TurnOutcome.POST]
    assert [type(e) for e in chain if isinstance(e, InBetweenPairSplit | InBetweenHandEnded)] == [
        InBetweenPairSplit,
        InBetweenHandEnded,
    ]
    replayed = replay(chain)
    assert ([s.chips for s in replayed.seats], replayed.pot) == ([990, 960, 990], 60)


async def test_a_kept_pair_pays_nothing_and_a_split_with_no_pair_waiting_is_refused_and_writes_nothing(
    api: Signed, db: asyncpg.Connection
) -> None:
    game = await start(api, humans("alice", "bob", "carol"), CARDS, ruleset=SPLIT)
    game = await play(api, game["game_id"], "bob", "keep_pair")
    assert (chips(game), game["pot"], game["to_act"], game["awaiting"]) == ([990, 990, 990], 30, "carol", "bet")
    before = await fingerprint(db, api.operator_id, game["game_id"])
    for move in ("split", "keep_pair"):
        problem(await post_action(api, game["game_id"], "carol", move), 409, "WRONG_ACTION")
    assert await fingerprint(db, api.operator_id, game["game_id"]) == before


async def test_a_friends_table_plays_the_split_release_to_the_end_with_every_pair_split(
    http: AsyncTestClient[Litestar],
) -> None:
    # Two phones split every pair they are offered, and bet the least where one is awaited; the computers' seats
    # split by the exact odds. Chips stay 4 x 1000 with the splits' antes in the pot, and the chain replays.
    host = await create(http, seats=4, rounds=5, ante=5, ruleset=SPLIT)
    guest = await join(http, host.code, "राम")
    await host.ok("/start")
    phones = [host, guest]
    for _ in range(500):
        states = [await p.state() for p in phones]
        if states[0]["status"] == "over":
            break
        mover = next(i for i, s in enumerate(states) if s["you"]["to_act"])
        game = states[mover]["game"]
        move = quiet_move(states[mover])
        if game["awaiting"] == "split":
            move = {"action": "split", "version": game["version"]}
        elif game["awaiting"] == "bet":
            move = {"action": "bet", "amount": game["turn"]["min_bet"], "version": game["version"]}
        await phones[mover].ok("/moves", move)
    game = (await host.state())["game"]
    assert game["status"] == "game_over"
    assert sum(s["chips"] for s in game["seats"]) + game["pot"] == 4000
