"""Red Dog Poker: each seat is dealt its own hand from one shoe, round-robin, and settles on its own cards."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from fractions import Fraction

import pytest

from paytables.red_dog import loader
from paytables.red_dog.analysis.red_dog_expectation import settled_round_expectation
from paytables.red_dog.events import BetSettled, CardDealt, Decided, DecidedBy, RoundSettled, SpreadAnnounced, kind_of
from paytables.red_dog.paytable import Paytable
from paytables.red_dog.round import (
    SYSTEM,
    Call,
    Raise,
    RoundStatus,
    Step,
    close_window,
    decide,
    open_round,
    settle_if_expired,
    void_round,
)
from paytables.red_dog.table import DealMode
from paytables.refusals import NotInRaiseWindow
from shoe.shoe import new_shoe

STANDARD = loader.get("standard/v1")  # spreads 1, 2, 3 pay 5, 4, 2 to 1; 4..11 pay 1 to 1; trips 11 to 1
POST_DOUBLE = loader.get("post-double/v1")
NOW = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
WINDOW = 15
# Seat 1: 5 and 6 (consecutive, a push). Seat 2: 8 and 8 (a pair; its third card, an 8, is trips). Seat 3: 4 and T
# (a spread of 5 at 1 to 1; its third card, a 7, wins). Dealt round-robin: every first card, then every second.
MIXED = ("5S", "8S", "4D", "6H", "8H", "TC", "8D", "7C")


def opened(*cards: str, antes: tuple[int, ...] = (10, 10, 10), paytable: Paytable = STANDARD) -> Step:
    return open_round(
        round_id="r1",
        table_id="t1",
        paytable=paytable,
        shoe=new_shoe(1, random.Random(7), forced=cards),
        antes=[(f"p{i + 1}", ante) for i, ante in enumerate(antes)],
        now=NOW,
        window_seconds=WINDOW,
        test=True,
        actor="op",
        deal=DealMode.PER_SEAT,
    )


def hands(step: Step) -> list[list[tuple[int, str, int]]]:
    return [[(c.position, c.card, c.shoe_index) for c in bet.cards] for bet in step.round.bets]


def money(step: Step) -> list[tuple[str | None, str | None, int | None, int | None]]:
    return [(b.outcome, b.result, b.payout, b.net) for b in step.round.bets]


def test_each_seat_gets_its_first_card_then_its_second_round_robin_and_a_pair_its_third_at_once() -> None:
    step = opened(*MIXED)
    assert hands(step) == [
        [(1, "5S", 0), (2, "6H", 3)],
        [(1, "8S", 1), (2, "8H", 4), (3, "8D", 6)],
        [(1, "4D", 2), (2, "TC", 5)],
    ]
    # Every card dealt, in dealing order, with its seat.
    assert [(c.seat, c.card) for c in step.round.cards] == [
        (1, "5S"), (2, "8S"), (3, "4D"), (1, "6H"), (2, "8H"), (3, "TC"), (2, "8D"),
    ]  # fmt: skip
    assert step.shoe.position == 7


def test_a_push_and_a_pair_settle_at_the_deal_while_a_spread_waits_in_the_round_window() -> None:
    step = opened(*MIXED)
    assert step.round.status is RoundStatus.RAISE_WINDOW
    assert step.round.raise_window_closes_at == NOW + timedelta(seconds=WINDOW)
    # The push returns the ante; trips pays 11 to 1 on the ante: 10 + 110 back.
    assert money(step) == [("consecutive", "push", 10, 0), ("trips", "trips", 120, 110), ("spread", None, None, None)]
    assert [(b.spread, b.payout_odds) for b in step.round.bets] == [(None, None), (None, None), (5, 1)]
    assert (step.round.outcome, step.round.spread, step.round.payout_odds) == (None, None, None)
    assert [e.bet_id for e in step.events if isinstance(e, BetSettled)] == ["r1.1", "r1.2"]
    assert [(e.bet_id, e.spread, e.odds) for e in step.events if isinstance(e, SpreadAnnounced)] == [("r1.3", 5, 1)]


def test_the_last_spread_decision_deals_that_seats_third_card_and_settles_the_round() -> None:
    start = opened(*MIXED)
    step = decide(start.round, start.shoe, STANDARD, Raise(bet_id="r1.3"), now=NOW, actor="op")
    # 4 and T with a 7 between, at 1 to 1: wager 10 + 10 wins 20, 40 back.
    assert money(step)[2] == ("spread", "win", 40, 20)
    assert hands(step)[2] == [(1, "4D", 2), (2, "TC", 5), (3, "7C", 7)]
    assert step.round.status is RoundStatus.SETTLED
    assert [kind_of(e) for e in step.events] == ["decision", "card_dealt", "bet_settled", "round_settled"]
    (settled,) = [e for e in step.events if isinstance(e, RoundSettled)]
    assert (settled.outcome, settled.total_net) == (None, 0 + 110 + 20)
    assert [e.seat for e in step.events if isinstance(e, CardDealt)] == [3]


def test_a_bet_that_settled_at_the_deal_takes_no_decision() -> None:
    start = opened(*MIXED)
    with pytest.raises(NotInRaiseWindow, match=r"r1\.2"):
        decide(start.round, start.shoe, STANDARD, Call(bet_id="r1.2"), now=NOW, actor="op")
    with pytest.raises(NotInRaiseWindow, match=r"r1\.1"):
        decide(start.round, start.shoe, STANDARD, Raise(bet_id="r1.1"), now=NOW, actor="op")


def test_several_spreads_share_one_window_and_their_thirds_come_in_seat_order_when_it_closes() -> None:
    # Seat 1: 2 and A (spread 11); seat 2: 5 and 9 (spread 3, 2 to 1). Thirds: K to seat 1, 5 to seat 2 (a post).
    start = opened("2S", "5H", "AD", "9C", "KS", "5D", antes=(10, 4))
    assert [b.awaits_decision for b in start.round.bets] == [True, True]
    raised = decide(start.round, start.shoe, STANDARD, Raise(bet_id="r1.2", amount=2), now=NOW, actor="op")
    assert raised.round.status is RoundStatus.RAISE_WINDOW
    step = close_window(raised.round, raised.shoe, STANDARD, now=NOW + timedelta(seconds=3), actor="op")
    # Seat 1 calls by the dealer's close and wins 10 at 1 to 1; seat 2 staked 4 + 2 and hits a post: loses 6.
    assert money(step) == [("spread", "win", 20, 10), ("spread", "lose", 0, -6)]
    assert hands(step)[0][2] == (3, "KS", 4)
    assert hands(step)[1][2] == (3, "5D", 5)
    decided = [(e.bet_id, e.action, e.by) for e in step.events if isinstance(e, Decided)]
    assert decided == [("r1.1", "timeout_call", DecidedBy.DEALER)]


def test_the_deadline_calls_every_undecided_spread_bet() -> None:
    start = opened("2S", "5H", "AD", "9C", "KS", "5D", antes=(10, 4))
    step = settle_if_expired(start.round, start.shoe, STANDARD, now=NOW + timedelta(seconds=WINDOW))
    assert step is not None
    assert [(b.decision, b.result) for b in step.round.bets] == [("timeout_call", "win"), ("timeout_call", "lose")]
    assert {e.actor for e in step.events if isinstance(e, Decided)} == {SYSTEM}


def test_a_post_on_post_double_costs_that_seat_twice_its_wager() -> None:
    start = opened("5S", "9D", "9H", "5C", "9C", "6D", antes=(10, 10), paytable=POST_DOUBLE)
    step = close_window(start.round, start.shoe, POST_DOUBLE, now=NOW, actor="op")
    # Seat 1: 5 and 9, third 9 hits a post: ante 10 lost and a penalty of 10. Seat 2: 9 and 5, third 6 wins 10 at 2:1.
    assert money(step) == [("spread", "lose", 0, -20), ("spread", "win", 30, 20)]


def test_a_round_with_no_spread_at_any_seat_settles_at_the_deal() -> None:
    step = opened("5S", "8S", "6H", "8H", "3D", antes=(10, 10))
    assert step.round.status is RoundStatus.SETTLED
    assert money(step) == [("consecutive", "push", 10, 0), ("pair", "push", 10, 0)]
    assert step.round.raise_window_closes_at is None
    assert not [e for e in step.events if isinstance(e, SpreadAnnounced)]


def test_voiding_refunds_only_the_bets_still_open_and_leaves_the_settled_ones_as_they_are() -> None:
    start = opened(*MIXED)
    step = void_round(start.round, start.shoe, STANDARD, reason="fault", now=NOW, actor="op")
    assert step.round.status is RoundStatus.VOID
    assert money(step) == [("consecutive", "push", 10, 0), ("trips", "trips", 120, 110), ("spread", "void", 10, 0)]
    assert [e.bet_id for e in step.events if isinstance(e, BetSettled)] == ["r1.3"]
    assert len(step.round.cards) == 7  # seat 3's third card is never dealt


def test_a_per_seat_rounds_expectation_adds_each_hands_own_given_the_cards_left_when_its_third_was_dealt() -> None:
    start = opened(*MIXED)
    step = decide(start.round, start.shoe, STANDARD, Raise(bet_id="r1.3"), now=NOW, actor="op")
    got = settled_round_expectation(step.round, step.shoe.order, STANDARD)
    # Seat 1 pushes for sure: 10 back of 10. Seat 2's pair of 8s drew from the 46 cards after six dealt, two of them
    # 8s: 120 back with 2/46, else 10. Seat 3 (4 and T, raised to 20) drew from the 45 cards after seven dealt, 15 of
    # them 5-9 (three 5s, three 6s, four 7s, one 8, four 9s): 40 back with 15/45, else nothing.
    p_trips, p_win = Fraction(2, 46), Fraction(15, 45)
    assert got.expected_paid == 10 + (10 + 110 * p_trips) + 40 * p_win
    assert got.expected_wagered == 10 + 10 + 20
    assert got.variance == 110**2 * p_trips * (1 - p_trips) + 40**2 * p_win * (1 - p_win)


def test_a_voided_per_seat_round_expects_only_what_its_settled_bets_risked() -> None:
    start = opened(*MIXED)
    step = void_round(start.round, start.shoe, STANDARD, reason="fault", now=NOW, actor="op")
    got = settled_round_expectation(step.round, step.shoe.order, STANDARD)
    assert (got.expected_paid, got.expected_wagered) == (10 + 10 + 110 * Fraction(2, 46), Fraction(20))
