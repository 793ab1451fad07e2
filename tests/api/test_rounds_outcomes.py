"""Forced-card rounds through every outcome of every shipped paytable; every payout worked out by hand here."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from tests.api.helpers import check_money, check_reveal, decide, open_round
from tests.support.client import Signed

PAYTABLES = ["standard/v1", "generous/v1", "post-double/v1"]
# "X to 1" by spread, from the rule books: classic 5, 4, 2 then evens; generous pays 3 on spread 3.
ODDS = {
    "standard/v1": {1: 5, 2: 4, 3: 2, 4: 1, 5: 1, 6: 1, 7: 1, 8: 1, 9: 1, 10: 1, 11: 1},
    "generous/v1": {1: 5, 2: 4, 3: 3, 4: 1, 5: 1, 6: 1, 7: 1, 8: 1, 9: 1, 10: 1, 11: 1},
    "post-double/v1": {1: 5, 2: 4, 3: 2, 4: 1, 5: 1, 6: 1, 7: 1, 8: 1, 9: 1, 10: 1, 11: 1},
}
# spread: (posts, a card strictly between, a card outside or None, a card matching a post but not its suit)
SPREADS: dict[int, tuple[list[str], str, str | None, str]] = {
    1: (["5S", "7H"], "6D", "KD", "7D"),  # 6 lies between
    2: (["8S", "5H"], "6D", "2D", "8D"),  # 6, 7
    3: (["5S", "9H"], "7D", "QD", "5D"),  # 6, 7, 8
    4: (["4S", "9H"], "6D", "JD", "9D"),  # 5..8
    5: (["TS", "4H"], "8D", "2D", "4D"),  # 5..9
    6: (["3S", "TH"], "9D", "AD", "TD"),  # 4..9
    7: (["3S", "JH"], "5D", "2D", "3D"),  # 4..10
    8: (["2S", "JH"], "TD", "KD", "JD"),  # 3..10
    9: (["2S", "QH"], "3D", "AD", "2D"),  # 3..J
    10: (["3S", "AH"], "KD", "2D", "AD"),  # 4..K
    11: (["AS", "2H"], "8D", None, "2D"),  # 3..K: A-2 leaves nothing outside but the posts
}
CASES = [(p, s) for p in PAYTABLES for s in SPREADS]


def _ids(case: tuple[str, int]) -> str:
    return f"{case[0]}-spread{case[1]}"


async def _spread_round(api: Signed, paytable: str, cards: list[str], ante: int) -> dict[str, Any]:
    """Open a one-bet spread round; while the window is open the third card is nowhere in any response."""
    table = await api.table(mode="test", paytable=paytable)
    path = f"/v1/tables/{table['table_id']}/rounds"
    response = await api.post(path, {"bets": [{"player_id": "p1", "ante": ante}], "forced_cards": cards})
    assert response.status_code == 201, response.text
    third = cards[2]
    assert third not in cards[:2]
    assert third not in response.text
    rnd: dict[str, Any] = response.json()
    assert (rnd["status"], rnd["outcome"]) == ("raise_window", "spread")
    assert [c["card"] for c in rnd["cards"]] == cards[:2]
    assert rnd["shoe"]["reveal"] is None
    assert len(rnd["shoe"]["commitment"]) == 64
    assert rnd["settled_at"] is None
    window = datetime.fromisoformat(rnd["raise_window_closes_at"]) - datetime.fromisoformat(rnd["opened_at"])
    assert window == timedelta(seconds=15)  # the table's default raise window
    again = await api.get(f"/v1/rounds/{rnd['round_id']}")
    assert third not in again.text
    listed = await api.get(f"/v1/rounds?table_id={table['table_id']}")
    assert third not in listed.text
    return rnd


async def _settle(api: Signed, rnd: dict[str, Any], action: str, amount: int | None = None) -> dict[str, Any]:
    response = await decide(api, rnd["round_id"], rnd["bets"][0]["bet_id"], action, amount)
    assert response.status_code == 200, response.text
    done: dict[str, Any] = response.json()
    assert done["status"] == "settled"
    assert done["settled_at"] is not None
    assert done["shoe"]["commitment"] == rnd["shoe"]["commitment"]
    check_reveal(done)
    assert await api.ok("GET", f"/v1/rounds/{rnd['round_id']}") == done
    return done


@pytest.mark.parametrize(("paytable", "spread"), CASES, ids=[_ids(c) for c in CASES])
async def test_a_third_card_between_the_posts_wins_the_spread_odds(api: Signed, paytable: str, spread: int) -> None:
    posts, between, _, _ = SPREADS[spread]
    rnd = await _spread_round(api, paytable, [*posts, between], ante=10)
    odds = ODDS[paytable][spread]
    assert (rnd["spread"], rnd["payout_odds"]) == (spread, odds)
    # Odd spreads raise the full ante by amount, even spreads call: both ways settle at the same odds.
    ante, raise_ = (10, 10) if spread % 2 else (10, 0)
    done = await _settle(api, rnd, "raise" if raise_ else "call", raise_ or None)
    assert [c["card"] for c in done["cards"]] == [*posts, between]
    bet = done["bets"][0]
    wager = ante + raise_
    expected_payout = wager + wager * odds  # the stake back plus odds times the stake
    assert (bet["decision"], bet["result"], bet["payout"], bet["net"]) == (
        "raise" if raise_ else "call",
        "win",
        expected_payout,
        wager * odds,
    )
    expected = [("ante", "debit", ante)]
    if raise_:
        expected.append(("raise", "debit", raise_))
    expected.append(("payout", "credit", expected_payout))
    check_money(done, bet, expected)


@pytest.mark.parametrize(
    ("paytable", "spread"), [c for c in CASES if c[1] != 11], ids=[_ids(c) for c in CASES if c[1] != 11]
)
async def test_a_third_card_outside_the_posts_loses_the_wager(api: Signed, paytable: str, spread: int) -> None:
    posts, _, outside, _ = SPREADS[spread]
    assert outside is not None
    rnd = await _spread_round(api, paytable, [*posts, outside], ante=12)
    done = await _settle(api, rnd, "raise")  # no amount: the raise is the ante
    bet = done["bets"][0]
    ante, raise_ = 12, 12
    assert (bet["raise"], bet["result"], bet["payout"], bet["net"]) == (raise_, "lose", 0, -(ante + raise_))
    check_money(done, bet, [("ante", "debit", ante), ("raise", "debit", raise_), ("payout", "credit", 0)])


@pytest.mark.parametrize(("paytable", "spread"), CASES, ids=[_ids(c) for c in CASES])
async def test_a_third_card_matching_a_post_loses_and_double_on_post_double(
    api: Signed, paytable: str, spread: int
) -> None:
    posts, _, _, post = SPREADS[spread]
    rnd = await _spread_round(api, paytable, [*posts, post], ante=10)
    ante, raise_ = 10, 4  # a partial raise
    done = await _settle(api, rnd, "raise", raise_)
    bet = done["bets"][0]
    wager = ante + raise_
    if paytable == "post-double/v1":
        # hitting the post costs the wager once more, as a separate debit
        assert (bet["result"], bet["payout"], bet["net"]) == ("lose", 0, -2 * wager)
        expected = [
            ("ante", "debit", 10),
            ("raise", "debit", 4),
            ("post_penalty", "debit", 14),
            ("payout", "credit", 0),
        ]
    else:
        assert (bet["result"], bet["payout"], bet["net"]) == ("lose", 0, -wager)
        expected = [("ante", "debit", 10), ("raise", "debit", 4), ("payout", "credit", 0)]
    check_money(done, bet, expected)


@pytest.mark.parametrize("paytable", PAYTABLES)
@pytest.mark.parametrize("posts", [["5S", "6H"], ["KS", "AH"], ["AD", "KC"], ["2C", "3D"]])
async def test_consecutive_posts_push_without_a_third_card_in_the_opening_call(
    api: Signed, paytable: str, posts: list[str]
) -> None:
    table = await api.table(mode="test", paytable=paytable)
    rnd = await open_round(api, table["table_id"], [("p1", 10), ("p2", 3)], posts)
    assert (rnd["status"], rnd["outcome"], rnd["spread"], rnd["payout_odds"]) == ("settled", "consecutive", None, None)
    assert [c["card"] for c in rnd["cards"]] == posts  # no third card
    assert rnd["raise_window_closes_at"] is None
    check_reveal(rnd)
    for bet, ante in zip(rnd["bets"], (10, 3), strict=True):
        # a push: the ante comes straight back
        assert (bet["decision"], bet["result"], bet["payout"], bet["net"]) == (None, "push", ante, 0)
        check_money(rnd, bet, [("ante", "debit", ante), ("payout", "credit", ante)])


@pytest.mark.parametrize("paytable", PAYTABLES)
async def test_a_pair_then_another_rank_pushes_in_the_opening_call(api: Signed, paytable: str) -> None:
    table = await api.table(mode="test", paytable=paytable)
    rnd = await open_round(api, table["table_id"], [("p1", 10)], ["7S", "7H", "9D"])
    assert (rnd["status"], rnd["outcome"]) == ("settled", "pair")
    assert [c["card"] for c in rnd["cards"]] == ["7S", "7H", "9D"]
    check_reveal(rnd)
    bet = rnd["bets"][0]
    assert (bet["result"], bet["payout"], bet["net"]) == ("push", 10, 0)
    check_money(rnd, bet, [("ante", "debit", 10), ("payout", "credit", 10)])


@pytest.mark.parametrize("paytable", PAYTABLES)
async def test_a_pair_then_the_same_rank_is_trips_paying_eleven_to_one_on_every_ante(
    api: Signed, paytable: str
) -> None:
    table = await api.table(mode="test", paytable=paytable)
    rnd = await open_round(api, table["table_id"], [("p1", 10), ("p2", 3)], ["AS", "AH", "AD"])
    assert (rnd["status"], rnd["outcome"]) == ("settled", "trips")
    check_reveal(rnd)
    for bet, ante in zip(rnd["bets"], (10, 3), strict=True):
        expected_payout = ante + ante * 11  # the ante back plus 11 to 1
        assert (bet["result"], bet["payout"], bet["net"]) == ("trips", expected_payout, ante * 11)
        check_money(rnd, bet, [("ante", "debit", ante), ("payout", "credit", expected_payout)])


async def test_a_pair_with_only_two_forced_cards_takes_its_third_card_from_the_committed_shoe(api: Signed) -> None:
    table = await api.table(mode="test")
    rnd = await open_round(api, table["table_id"], [("p1", 10)], ["9S", "9H"])
    order = check_reveal(rnd)
    third = order[4:6]
    assert rnd["cards"][2] == {"position": 3, "card": third, "shoe_index": 2}
    trips = third[0] == "9"
    assert rnd["outcome"] == ("trips" if trips else "pair")
    assert rnd["bets"][0]["payout"] == (10 + 10 * 11 if trips else 10)


async def test_a_spread_with_only_two_forced_cards_deals_the_third_from_the_committed_shoe(api: Signed) -> None:
    table = await api.table(mode="test")
    rnd = await open_round(api, table["table_id"], [("p1", 10)], ["2S", "AH"])  # spread 11: only a 2 or an A loses
    done = await _settle(api, rnd, "call")
    order = check_reveal(done)
    third = done["cards"][2]
    assert third == {"position": 3, "card": order[4:6], "shoe_index": 2}
    won = third["card"][0] not in "2A"
    assert (done["bets"][0]["result"], done["bets"][0]["payout"]) == (("win", 20) if won else ("lose", 0))


async def test_several_bets_settle_together_when_the_last_one_decides(api: Signed) -> None:
    table = await api.table(mode="test")
    # 5 and 8: spread 2, standard/v1 pays 4 to 1; the 7 wins.
    rnd = await open_round(api, table["table_id"], [("p1", 10), ("p2", 25), ("p3", 8)], ["5C", "8D", "7S"])
    round_id = rnd["round_id"]
    p1, p2, p3 = (b["bet_id"] for b in rnd["bets"])
    assert len({p1, p2, p3}) == 3
    assert all(round_id in b for b in (p1, p2, p3))
    for bet_id, action, amount in ((p1, "raise", None), (p2, "call", None)):
        response = await decide(api, round_id, bet_id, action, amount)
        assert response.status_code == 200, response.text
        assert response.json()["status"] == "raise_window"
        assert len(response.json()["cards"]) == 2
        assert "7S" not in response.text
    done = (await decide(api, round_id, p3, "raise", 3)).json()
    assert done["status"] == "settled"
    check_reveal(done)
    b1, b2, b3 = done["bets"]
    # p1: ante 10 + raise 10 = 20 at 4 to 1 -> 20 + 80 = 100
    check_money(done, b1, [("ante", "debit", 10), ("raise", "debit", 10), ("payout", "credit", 100)])
    # p2: ante 25 called at 4 to 1 -> 25 + 100 = 125
    check_money(done, b2, [("ante", "debit", 25), ("payout", "credit", 125)])
    # p3: ante 8 + raise 3 = 11 at 4 to 1 -> 11 + 44 = 55
    check_money(done, b3, [("ante", "debit", 8), ("raise", "debit", 3), ("payout", "credit", 55)])
    assert [(b["decision"], b["net"]) for b in done["bets"]] == [("raise", 80), ("call", 100), ("raise", 44)]


async def test_several_bets_hitting_the_post_on_post_double_each_pay_their_own_penalty(api: Signed) -> None:
    table = await api.table(mode="test", paytable="post-double/v1")
    rnd = await open_round(api, table["table_id"], [("p1", 10), ("p2", 6)], ["3H", "9C", "3S"])
    await decide(api, rnd["round_id"], rnd["bets"][0]["bet_id"], "raise")
    done = (await decide(api, rnd["round_id"], rnd["bets"][1]["bet_id"], "call")).json()
    b1, b2 = done["bets"]
    # p1 staked 10 + 10 and loses it twice: -40; p2 staked 6 and loses it twice: -12
    check_money(
        done,
        b1,
        [("ante", "debit", 10), ("raise", "debit", 10), ("post_penalty", "debit", 20), ("payout", "credit", 0)],
    )
    check_money(done, b2, [("ante", "debit", 6), ("post_penalty", "debit", 6), ("payout", "credit", 0)])
    assert (b1["net"], b2["net"]) == (-40, -12)


async def test_rounds_on_a_test_table_are_marked_test_and_live_rounds_are_not(api: Signed) -> None:
    test_table = await api.table(mode="test")
    live_table = await api.table()
    assert (await open_round(api, test_table["table_id"], [("p1", 10)], ["5S", "6S"]))["test"] is True
    assert (await open_round(api, live_table["table_id"], [("p1", 10)]))["test"] is False
