"""In Between games through the real app on PostgreSQL: forced cards, every action kind, chips and odds by hand.

Two humans, alice in seat 0 (the first dealer) and bob in seat 1, nepal/v1, ante 10: after the antes each holds 990
and the pot is 20; bob plays first, alice (the dealer) last. Odds are counted by hand from the cards dealt so far.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any
from uuid import UUID

import asyncpg

from paytables.inbetween.inbetween_events import (
    AceCall,
    CalledBy,
    ChipReason,
    InBetweenAceCalled,
    InBetweenBetPlaced,
    InBetweenChipsMoved,
    InBetweenPairCalled,
    InBetweenPassed,
    InBetweenTurnEnded,
    PairCall,
    TurnOutcome,
)
from tests.api.inbetween_helpers import GAMES, chips, events, humans, play, posts, start
from tests.support.client import Signed

# bob: ace called low, 5 (a gap of 2-4), bet 20 wins on a 3; alice: a pair of nines called lower, bet 15 loses on a
# king; round 2 alice passes 4-J, bob bets 10 on 2-K and hits the king post; round 3 bob's 7-8 pass by themselves,
# alice passes her pair of sixes; round 4 alice has 10-Q.
EVERY_KIND = ["AS", "5H", "3C", "9D", "9S", "KD", "4C", "JC", "2D", "KH", "KS", "7C", "8D", "6H", "6C", "TH", "QS"]


async def test_a_game_starts_with_the_antes_in_the_pot_and_waits_for_the_dealers_left_neighbour(api: Signed) -> None:
    game = await start(api, humans("alice", "bob"), ["4S", "JH"])
    assert (chips(game), game["pot"], game["dealer"], game["order"]) == ([990, 990], 20, 0, [1, 0])
    assert (game["status"], game["to_act"], game["awaiting"]) == ("awaiting_bet", "bob", "bet")
    assert (game["round"], game["rounds"], game["ante"], game["starting_chips"]) == (1, 5, 10, 1000)
    assert posts(game) == ("4S", "JH")
    assert (game["turn"]["min_bet"], game["turn"]["max_bet"]) == (1, 20)
    # 50 unseen: 5..10 win (6 ranks x 4), the other three 4s and three jacks hit a post, the 20 others lose.
    assert game["odds"] == {"win": 24, "post": 6, "lose": 20, "unseen": 50}
    assert (game["count"], game["seen"]) == (2, ["4S", "JH"])
    assert game["shoe"]["number"] == 1
    assert len(game["shoe"]["commitment"]) == 64
    assert game["shoe"]["reveal"] is None
    assert (game["test"], game["ended_at"], game["winners"]) == (True, None, [])
    assert await api.ok("GET", f"{GAMES}/{game['game_id']}") == game


async def test_every_action_kind_moves_the_chips_the_rules_say(api: Signed, db: asyncpg.Connection) -> None:
    game = await start(api, humans("alice", "bob"), EVERY_KIND)
    gid = game["game_id"]
    assert (game["awaiting"], posts(game), game["odds"]) == ("ace_call", ("AS", None), None)

    game = await play(api, gid, "bob", "call_ace", call="low")
    assert (game["turn"]["ace_call"], posts(game)) == ("low", ("AS", "5H"))
    # A low ace and a 5: the 2s, 3s and 4s win; the three other aces and three other 5s hit a post.
    assert game["odds"] == {"win": 12, "post": 6, "lose": 32, "unseen": 50}

    game = await play(api, gid, "bob", "bet", amount=20)
    # bob's 3 wins the whole pot, so both ante again at once before alice plays: 1010 - 10 and 990 - 10.
    assert (chips(game), game["pot"], game["to_act"], game["awaiting"]) == ([980, 1000], 20, "alice", "pair_call")
    assert posts(game) == ("9D", "9S")
    assert game["odds"] is None
    # 47 unseen. Higher: 10..K (16) and the three aces left; lower: 2..8 (28) but the 5H and 3C are gone.
    assert game["pair_call_odds"] == [
        {"call": "higher", "odds": {"win": 19, "post": 2, "lose": 26, "unseen": 47}},
        {"call": "lower", "odds": {"win": 26, "post": 2, "lose": 19, "unseen": 47}},
    ]

    game = await play(api, gid, "alice", "call_pair", call="lower")
    assert (game["turn"]["pair_call"], game["odds"]) == ("lower", {"win": 26, "post": 2, "lose": 19, "unseen": 47})
    game = await play(api, gid, "alice", "bet", amount=15)
    # The king loses alice's 15; round 2: bob deals, both ante, alice plays first.
    assert (game["round"], game["dealer"], game["order"]) == (2, 1, [0, 1])
    assert (chips(game), game["pot"], game["to_act"], posts(game)) == ([955, 990], 55, "alice", ("4C", "JC"))

    game = await play(api, gid, "alice", "pass")
    assert (game["to_act"], posts(game), game["turn"]["max_bet"]) == ("bob", ("2D", "KH"), 55)
    game = await play(api, gid, "bob", "bet", amount=10)
    # The KS hits the king post: bob pays twice his bet. Round 3: alice deals; bob's 7-8 pass by themselves.
    assert (game["round"], game["dealer"]) == (3, 0)
    assert (chips(game), game["pot"], game["to_act"], posts(game)) == ([945, 960], 95, "alice", ("6H", "6C"))

    game = await play(api, gid, "alice", "pass")
    # Round 4: bob deals and both ante. 35 unseen: the three jacks left win, three 10s and three queens hit a post.
    assert (game["round"], chips(game), game["pot"], game["to_act"]) == (4, [935, 950], 115, "alice")
    assert (posts(game), game["count"]) == (("TH", "QS"), 17)
    assert game["odds"] == {"win": 3, "post": 6, "lose": 26, "unseen": 35}
    assert sum(chips(game)) + game["pot"] == 2000

    found = await events(db, gid)
    assert [(e.seat, e.outcome) for e in found if isinstance(e, InBetweenTurnEnded)] == [
        (1, TurnOutcome.WIN),
        (0, TurnOutcome.LOSE),
        (0, TurnOutcome.PASSED),
        (1, TurnOutcome.POST),
        (1, TurnOutcome.ADJACENT_PASSED),
        (0, TurnOutcome.PASSED),
    ]
    assert [e for e in found if isinstance(e, InBetweenAceCalled)] == [
        InBetweenAceCalled(seat=1, call=AceCall.LOW, by=CalledBy.PLAYER)
    ]
    assert [e for e in found if isinstance(e, InBetweenPairCalled)] == [
        InBetweenPairCalled(seat=0, call=PairCall.LOWER)
    ]
    assert [(e.seat, e.amount) for e in found if isinstance(e, InBetweenBetPlaced)] == [(1, 20), (0, 15), (1, 10)]
    assert [e.seat for e in found if isinstance(e, InBetweenPassed)] == [0, 0]
    moves = [(e.seat, e.delta, e.reason) for e in found if isinstance(e, InBetweenChipsMoved)]
    assert moves == [
        (1, -10, ChipReason.ANTE),
        (0, -10, ChipReason.ANTE),
        (1, 20, ChipReason.WIN),
        (1, -10, ChipReason.REANTE),
        (0, -10, ChipReason.REANTE),
        (0, -15, ChipReason.LOSE),
        (0, -10, ChipReason.ANTE),
        (1, -10, ChipReason.ANTE),
        (1, -20, ChipReason.POST),
        (1, -10, ChipReason.ANTE),
        (0, -10, ChipReason.ANTE),
        (0, -10, ChipReason.ANTE),
        (1, -10, ChipReason.ANTE),
    ]


async def test_computer_seats_play_their_turns_before_the_reply_and_a_human_is_left_to_act(
    api: Signed, db: asyncpg.Connection
) -> None:
    # The computer (seat 1) plays first: 5-7 leaves one rank between, a losing bet, so it passes; alice gets 4-J.
    cards = ["5S", "7H", "4C", "JC", "9C", "KC", "2S", "AH", "7D", "3D", "4H", "TS", "QD"]
    game = await start(api, [{"player_id": "alice"}, {"computer": True}], cards)
    assert game["seats"][1] == {"seat": 1, "player_id": "computer-1", "computer": True, "chips": 990}
    assert (game["to_act"], posts(game), game["pot"]) == ("alice", ("4C", "JC"), 20)
    # Round 2: the computer deals, so alice plays first.
    game = await play(api, game["game_id"], "alice", "pass")
    assert (game["round"], game["to_act"], posts(game)) == (2, "alice", ("9C", "KC"))
    assert (chips(game), game["pot"]) == ([980, 980], 40)
    # Then the computer sees 2-A with 38 winners, 6 posts and no loser among 44 unseen: Kelly's share, 26/62 of its
    # 980 chips, is far above the pot, so it bets the whole pot of 40 and the 7 wins it. Round 3: both ante, the
    # computer's 3-4 pass by themselves, and alice is to act on 10-Q.
    game = await play(api, game["game_id"], "alice", "pass")
    assert (game["round"], game["to_act"], posts(game)) == (3, "alice", ("TS", "QD"))
    assert (chips(game), game["pot"]) == ([970, 1010], 20)
    found = await events(db, game["game_id"])
    computer = [e.outcome for e in found if isinstance(e, InBetweenTurnEnded) and e.seat == 1]
    assert computer == [TurnOutcome.PASSED, TurnOutcome.WIN, TurnOutcome.ADJACENT_PASSED]
    assert [(e.seat, e.amount) for e in found if isinstance(e, InBetweenBetPlaced)] == [(1, 40)]


async def test_a_computer_seat_may_be_named_and_seats_are_dealt_in_the_order_given(api: Signed) -> None:
    seats: list[dict[str, Any]] = [{"computer": True}, {"player_id": "bob"}, {"player_id": "robo", "computer": True}]
    game = await start(api, seats, ["4S", "JH"])
    names = [(s["player_id"], s["computer"]) for s in game["seats"]]
    assert names == [("computer-0", True), ("bob", False), ("robo", True)]
    assert (game["to_act"], posts(game)) == ("bob", ("4S", "JH"))


async def test_the_rule_sets_are_public_with_their_terms_and_the_sha256_of_their_canonical_terms(
    api: Signed,
) -> None:
    listed = (await api.client.get("/v1/inbetween/rulesets")).json()["items"]
    ids = [r["id"] for r in listed]
    assert set(ids) >= {"inbetween/nepal/v1", "inbetween/pay-the-bet/v1", "inbetween/pagat-banker/v1"}
    assert {"inbetween/home/v1", "inbetween/sheets/v1"} <= set(ids)
    for ruleset in listed:
        # The sha256 covers the terms as canonical JSON: sorted keys, no whitespace.
        canonical = _canonical_json(ruleset["terms"])
        assert hashlib.sha256(canonical.encode()).hexdigest() == ruleset["sha256"]
        assert ruleset["terms"]["id"] == ruleset["id"]
        name, version = ruleset["id"].removeprefix("inbetween/").split("/")
        one = await api.client.get(f"/v1/inbetween/rulesets/{name}/{version}")
        assert one.status_code == 200
        assert one.json() == ruleset
    nepal = next(r for r in listed if r["id"] == "inbetween/nepal/v1")["terms"]
    assert (nepal["post"], nepal["first_ace"], nepal["antes"], nepal["rounds"]) == (
        "double",
        "choice",
        [5, 10, 20],
        [5, 10, 15],
    )
    assert (nepal["adjacent"], nepal["pair"], nepal["banking"]) == (
        {"rule": "pass"},
        {"rule": "call"},
        {"rule": "antes"},
    )
    missing = await api.client.get("/v1/inbetween/rulesets/nepal/v9")
    assert (missing.status_code, missing.json()["code"]) == (404, "NOT_FOUND")


def _canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


async def test_the_records_route_pages_through_the_game_chain_and_each_hash_recomputes(
    api: Signed, db: asyncpg.Connection
) -> None:
    game = await start(api, humans("alice", "bob"), EVERY_KIND)
    gid = game["game_id"]
    await play(api, gid, "bob", "call_ace", call="high")
    pages: list[dict[str, Any]] = []
    after: int | None = 0
    while after is not None:
        page = await api.ok("GET", f"{GAMES}/{gid}/records?after={after}&limit=4")
        assert len(page["items"]) <= 4
        pages.extend(page["items"])
        after = page["next_after"]
    stored = await db.fetch("SELECT seq, hash FROM audit_log WHERE table_id = $1 ORDER BY seq", UUID(gid))
    assert [(r["seq"], r["hash"].hex()) for r in stored] == [(p["seq"], p["hash"]) for p in pages]
    prev = "00" * 32
    for item in pages:
        assert item["prev_hash"] == prev
        assert hashlib.sha256(bytes.fromhex(prev) + item["body"].encode()).hexdigest() == item["hash"]
        prev = item["hash"]
    bodies = [json.loads(item["body"]) for item in pages]
    assert [b["seq"] for b in bodies] == [item["seq"] for item in pages]
    assert {(b["table_id"], b["schema"], b["test"]) for b in bodies} == {(gid, 2, True)}
    assert bodies[0]["event"]["kind"] == "ib_game_started"
    # The last request's records: bob's call, the second post, and the wait for his bet.
    assert [b["event"]["kind"] for b in bodies[-3:]] == ["ib_ace_called", "ib_card_dealt", "ib_awaiting"]
    assert (bodies[-3]["event"]["call"], bodies[-2]["event"]["card"]) == ("high", "5H")
