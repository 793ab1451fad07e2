"""Forced-card rounds of every kind on a one-deck standard/v1 test table, and their figures worked out by hand.

Forced cards go to the front of a freshly shuffled deck, so after the two posts the other 50 cards of the deck are
left whatever the shuffle: each expectation below counts those 50 cards. standard/v1 pays spread 3 at 2:1, spreads
4 and up at 1:1, trips 11:1.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from tests.support.client import Signed

TABLE = {"name": "every outcome", "paytable": "standard/v1", "decks": 1, "mode": "test", "min_ante": 1}


async def play_every_outcome(api: Signed, table_id: str) -> None:
    """Seven rounds: a raised win, a push, trips, a pair push, a called loss on a post, a void, and a window the
    dealer closes on one raised and one undecided bet."""
    path = f"/v1/tables/{table_id}/rounds"

    async def opened(bets: list[tuple[str, int]], cards: list[str]) -> Any:
        body = {"bets": [{"player_id": p, "ante": a} for p, a in bets], "forced_cards": cards}
        return await api.ok("POST", path, body)

    async def decide(rnd: Any, index: int, action: str) -> Any:
        body = {"bet_id": rnd["bets"][index]["bet_id"], "action": action}
        return await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/decisions", body)

    r1 = await opened([("p1", 10)], ["4S", "TH", "7D"])  # spread 5 (5..9), 1:1
    await decide(r1, 0, "raise")
    await opened([("p1", 10)], ["7S", "8H"])  # consecutive: the ante comes back
    await opened([("p1", 5)], ["8S", "8H", "8D"])  # trips 11:1
    await opened([("p1", 5)], ["8S", "8H", "9D"])  # a pair, no third eight: push
    r5 = await opened([("p1", 10)], ["2S", "KH", "KD"])  # spread 10 (3..Q), 1:1; a king is on the post
    await decide(r5, 0, "call")
    r6 = await opened([("p1", 10)], ["5S", "9H"])  # spread 3, then voided
    await api.ok("POST", f"/v1/rounds/{r6['round_id']}/void", {"reason": "table fault"})
    r7 = await opened([("p1", 10), ("p2", 4)], ["3S", "JH", "9D"])  # spread 7 (4..10), 1:1
    await decide(r7, 0, "raise")
    await api.ok("POST", f"/v1/rounds/{r7['round_id']}/close")  # p2 calls by timeout


# Per round: (paid, wagered, expected paid, expected wagered, variance of the net), settled rounds only.
#   r1: 20 staked, 20 winning cards of 50: paid 40 with p 2/5 -> 16; net +-20: mean -4, E[net^2] 400, var 384.
#   r2: nothing at risk.
#   r3, r4: ante 5; 2 eights of 50 pay 60, else 5 back: 2/50*60 + 48/50*5 = 36/5; net +55 with p 1/25: mean
#       11/5, E[net^2] 121, var 121 - 121/25 = 2904/25.
#   r5: 40 winning cards of 50 pay 20: 16; net +10 (4/5) or -10: mean 6, var 100 - 36 = 64.
#   r7: 24 staked together, 28 winning cards of 50 pay 48: 672/25; net +-24: mean 24*6/50 = 72/25,
#       var 576 - 5184/625 = 354816/625.
ROUNDS = {
    "r1": (40, 20, Fraction(16), Fraction(20), Fraction(384)),
    "r2": (10, 10, Fraction(10), Fraction(10), Fraction(0)),
    "r3": (60, 5, Fraction(36, 5), Fraction(5), Fraction(2904, 25)),
    "r4": (5, 5, Fraction(36, 5), Fraction(5), Fraction(2904, 25)),
    "r5": (0, 10, Fraction(16), Fraction(10), Fraction(64)),
    "r7": (48, 24, Fraction(672, 25), Fraction(24), Fraction(354816, 625)),
}
PAID = sum(r[0] for r in ROUNDS.values())  # 163
WAGERED = sum(r[1] for r in ROUNDS.values())  # 74
EXPECTED_PAID = sum((r[2] for r in ROUNDS.values()), Fraction(0))  # 2082/25
EXPECTED_WAGERED = sum((r[3] for r in ROUNDS.values()), Fraction(0))  # 74
VARIANCE = sum((r[4] for r in ROUNDS.values()), Fraction(0))  # 780016/625
SETTLED_ROUNDS = 6
SETTLED_BETS = 7  # r7 has two
REFUNDED = 10  # r6's ante
OUTCOMES = {
    "spread_5": 1,
    "consecutive": 1,
    "trips": 1,
    "pair_push": 1,
    "spread_10": 1,
    "spread_3": 1,  # the voided round: its posts were dealt, so it counts in the outcome mix
    "spread_7": 1,
}
# (decision, result) of every bet: r2's bet and the pairs' never had a raise window.
BETS = {
    ("raise", "win"): 2,  # r1 and r7's p1
    ("none", "push"): 2,  # r2 and r4
    ("none", "trips"): 1,  # r3
    ("call", "lose"): 1,  # r5
    ("none", "void"): 1,  # r6
    ("timeout_call", "win"): 1,  # r7's p2
}
