"""Decisions in the raise window: raise, call, refusals, the dealer's close, voids and the deadline."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.helpers import check_money, check_reveal, decide, open_round, problem
from tests.support.client import Signed
from tests.support.clock import ManualClock

# 4 and T: spread 5, standard/v1 pays 1 to 1; the 7 wins.
SPREAD_5 = ["4S", "TH", "7D"]


async def _spread(api: Signed, *antes: int) -> Any:
    """A round on SPREAD_5 with one bet per ante, its window open."""
    table = await api.table(mode="test")
    return await open_round(api, table["table_id"], [(f"p{i + 1}", a) for i, a in enumerate(antes)], SPREAD_5)


async def test_a_raise_with_an_amount_raises_that_much(api: Signed) -> None:
    rnd = await _spread(api, 10, 10)
    response = await decide(api, rnd["round_id"], rnd["bets"][0]["bet_id"], "raise", 6)
    assert response.status_code == 200, response.text
    bet = response.json()["bets"][0]
    assert (bet["decision"], bet["raise"], bet["result"]) == ("raise", 6, None)


async def test_a_raise_without_an_amount_raises_the_ante(api: Signed) -> None:
    rnd = await _spread(api, 13, 10)
    bet = (await decide(api, rnd["round_id"], rnd["bets"][0]["bet_id"], "raise")).json()["bets"][0]
    assert (bet["decision"], bet["raise"]) == ("raise", 13)


@pytest.mark.parametrize("amount", [11, 20, 10**12])
async def test_a_raise_above_the_ante_is_refused(api: Signed, amount: int) -> None:
    rnd = await _spread(api, 10)
    problem(await decide(api, rnd["round_id"], rnd["bets"][0]["bet_id"], "raise", amount), 422, "RAISE_EXCEEDS_ANTE")
    assert (await api.ok("GET", f"/v1/rounds/{rnd['round_id']}"))["bets"][0]["decision"] is None


async def test_a_raise_of_the_full_ante_is_allowed(api: Signed) -> None:
    rnd = await _spread(api, 10, 10)
    bet = (await decide(api, rnd["round_id"], rnd["bets"][0]["bet_id"], "raise", 10)).json()["bets"][0]
    assert bet["raise"] == 10


async def test_a_call_with_an_amount_is_refused_and_a_call_with_zero_is_a_call(api: Signed) -> None:
    rnd = await _spread(api, 10, 10)
    refused = await decide(api, rnd["round_id"], rnd["bets"][0]["bet_id"], "call", 5)
    assert refused.status_code == 422, refused.text
    assert refused.json()["code"] in ("VALIDATION_ERROR", "RAISE_EXCEEDS_ANTE")
    bet = (await decide(api, rnd["round_id"], rnd["bets"][0]["bet_id"], "call", 0)).json()["bets"][0]
    assert (bet["decision"], bet["raise"]) == ("call", 0)


async def test_deciding_twice_is_refused(api: Signed) -> None:
    rnd = await _spread(api, 10, 10)
    bet_id = rnd["bets"][0]["bet_id"]
    assert (await decide(api, rnd["round_id"], bet_id, "call")).status_code == 200
    problem(await decide(api, rnd["round_id"], bet_id, "raise"), 409, "ALREADY_DECIDED")
    after = await api.ok("GET", f"/v1/rounds/{rnd['round_id']}")
    assert (after["bets"][0]["decision"], after["bets"][0]["raise"]) == ("call", 0)


async def test_a_decision_on_a_settled_round_is_refused(api: Signed) -> None:
    rnd = await _spread(api, 10)
    bet_id = rnd["bets"][0]["bet_id"]
    assert (await decide(api, rnd["round_id"], bet_id, "call")).json()["status"] == "settled"
    problem(await decide(api, rnd["round_id"], bet_id, "raise"), 409, "NOT_IN_RAISE_WINDOW")


async def test_a_decision_on_a_round_that_settled_at_once_is_refused(api: Signed) -> None:
    table = await api.table(mode="test")
    rnd = await open_round(api, table["table_id"], [("p1", 10)], ["9S", "TS"])  # consecutive
    problem(await decide(api, rnd["round_id"], rnd["bets"][0]["bet_id"], "call"), 409, "NOT_IN_RAISE_WINDOW")


@pytest.mark.parametrize("suffix", [".9", ".0", "x"])
async def test_a_decision_for_an_unknown_bet_is_not_found(api: Signed, suffix: str) -> None:
    rnd = await _spread(api, 10)
    problem(await decide(api, rnd["round_id"], rnd["round_id"] + suffix, "call"), 404, "NOT_FOUND")


async def test_a_bet_of_another_round_is_not_found_in_this_one(api: Signed) -> None:
    one, two = await _spread(api, 10), await _spread(api, 10)
    problem(await decide(api, one["round_id"], two["bets"][0]["bet_id"], "call"), 404, "NOT_FOUND")


async def test_the_dealer_close_calls_every_undecided_bet_and_settles(api: Signed) -> None:
    rnd = await _spread(api, 10, 20, 5)
    await decide(api, rnd["round_id"], rnd["bets"][0]["bet_id"], "raise")
    closed = await api.post(f"/v1/rounds/{rnd['round_id']}/close")
    assert closed.status_code == 200, closed.text
    done = closed.json()
    assert done["status"] == "settled"
    assert [c["card"] for c in done["cards"]] == SPREAD_5
    check_reveal(done)
    assert [b["decision"] for b in done["bets"]] == ["raise", "timeout_call", "timeout_call"]
    # spread 5 pays 1 to 1 and the 7 is between: 20 -> 40, 20 -> 40, 5 -> 10
    check_money(done, done["bets"][0], [("ante", "debit", 10), ("raise", "debit", 10), ("payout", "credit", 40)])
    check_money(done, done["bets"][1], [("ante", "debit", 20), ("payout", "credit", 40)])
    check_money(done, done["bets"][2], [("ante", "debit", 5), ("payout", "credit", 10)])
    problem(await api.post(f"/v1/rounds/{rnd['round_id']}/close"), 409, "NOT_IN_RAISE_WINDOW")


async def test_a_void_refunds_every_stake_and_keeps_its_reason(api: Signed) -> None:
    rnd = await _spread(api, 10, 7)
    await decide(api, rnd["round_id"], rnd["bets"][0]["bet_id"], "raise", 8)
    response = await api.post(f"/v1/rounds/{rnd['round_id']}/void", {"reason": "shuffler jammed"})
    assert response.status_code == 200, response.text
    void = response.json()
    assert (void["status"], void["void_reason"]) == ("void", "shuffler jammed")
    assert [c["card"] for c in void["cards"]] == SPREAD_5[:2]  # the third card was never dealt
    assert check_reveal(void)[4:6] == "7D"  # the retired shoe is shown, with the card that would have come
    b1, b2 = void["bets"]
    # p1 staked 10 + 8 and gets 18 back; p2 staked 7 and gets 7 back
    check_money(void, b1, [("ante", "debit", 10), ("raise", "debit", 8), ("refund", "credit", 18)])
    check_money(void, b2, [("ante", "debit", 7), ("refund", "credit", 7)])
    assert [(b["result"], b["payout"], b["net"]) for b in (b1, b2)] == [("void", 18, 0), ("void", 7, 0)]
    assert await api.ok("GET", f"/v1/rounds/{rnd['round_id']}") == void
    problem(await decide(api, rnd["round_id"], b2["bet_id"], "call"), 409, "NOT_IN_RAISE_WINDOW")
    problem(await api.post(f"/v1/rounds/{rnd['round_id']}/void", {"reason": "again"}), 409, "NOT_IN_RAISE_WINDOW")
    problem(await api.post(f"/v1/rounds/{rnd['round_id']}/close"), 409, "NOT_IN_RAISE_WINDOW")


async def test_a_settled_round_cannot_be_voided(api: Signed) -> None:
    rnd = await _spread(api, 10)
    settled = (await decide(api, rnd["round_id"], rnd["bets"][0]["bet_id"], "call")).json()
    problem(await api.post(f"/v1/rounds/{rnd['round_id']}/void", {"reason": "too late"}), 409, "NOT_IN_RAISE_WINDOW")
    assert await api.ok("GET", f"/v1/rounds/{rnd['round_id']}") == settled


async def test_after_the_raise_window_passes_decisions_are_refused_and_the_round_settles_with_timeout_calls(
    api: Signed, clock: ManualClock
) -> None:
    table = await api.table(mode="test", raise_window_seconds=1)
    late_decision, late_void, late_close, late_read = [
        await open_round(api, table["table_id"], [("p1", 10), ("p2", 4)], SPREAD_5) for _ in range(4)
    ]
    # one player decides in time
    for rnd in (late_decision, late_void, late_close, late_read):
        assert (await decide(api, rnd["round_id"], rnd["bets"][0]["bet_id"], "raise")).status_code == 200
    clock.advance(1)  # the window closes at the instant its deadline arrives

    refused = await decide(api, late_decision["round_id"], late_decision["bets"][1]["bet_id"], "raise")
    problem(refused, 409, "RAISE_WINDOW_CLOSED")
    problem(await api.post(f"/v1/rounds/{late_void['round_id']}/void", {"reason": "late"}), 409, "NOT_IN_RAISE_WINDOW")
    closed = await api.ok("POST", f"/v1/rounds/{late_close['round_id']}/close")
    read = await api.ok("GET", f"/v1/rounds/{late_read['round_id']}")
    for done in (await api.ok("GET", f"/v1/rounds/{late_decision['round_id']}"), closed, read):
        assert done["status"] == "settled"
        check_reveal(done)
        assert [b["decision"] for b in done["bets"]] == ["raise", "timeout_call"]
        # the 7 is between 4 and T at 1 to 1: p1 staked 10 + 10 -> 40, p2 staked 4 -> 8
        assert [b["payout"] for b in done["bets"]] == [40, 8]
    voided = await api.ok("GET", f"/v1/rounds/{late_void['round_id']}")
    assert (voided["status"], [b["decision"] for b in voided["bets"]]) == ("settled", ["raise", "timeout_call"])
