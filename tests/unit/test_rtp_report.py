"""Each ended round's figures as integers over one scale, and the report's lines over many: checked by hand."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from fractions import Fraction

import pytest

from paytables.red_dog import loader
from paytables.red_dog.analysis.chi_square import outcome_probabilities
from paytables.red_dog.analysis.rtp_report import RoundFigures, Totals, add, add_all, round_figures, rtp_line
from paytables.red_dog.round import Call, Raise, RoundStatus, Step, close_window, decide, open_round, void_round
from service.observability.configuration_metrics import OUTCOMES
from shoe.shoe import Shoe, ShoePolicy, new_shoe

NOW = datetime(2026, 11, 1, tzinfo=UTC)
STANDARD = loader.get("standard/v1")


def opened(shoe: Shoe, *antes: int, round_id: str = "r") -> Step:
    bets = [(f"p{i}", a) for i, a in enumerate(antes)]
    return open_round(
        round_id=round_id, table_id="t", paytable=STANDARD, shoe=shoe, antes=bets, now=NOW, window_seconds=5,
        test=True, actor="op",
    )  # fmt: skip


def one_deck(*cards: str) -> Shoe:
    return new_shoe(1, random.Random(3), forced=cards)


def test_a_trips_round_keeps_its_fifths_and_twenty_fifths_over_a_scale_of_25() -> None:
    rnd = opened(one_deck("8S", "8H", "8D"), 5).round
    # 2 eights of 50 pay 60, else 5 back: 36/5 expected; net +55 w.p. 1/25: variance 121 - (11/5)^2 = 2904/25.
    assert round_figures(rnd, one_deck("8S", "8H", "8D").order, STANDARD) == RoundFigures(
        status=RoundStatus.SETTLED, outcome="trips", bets=1, wagered=5, paid=60, refunded=0,
        scale=25, expected_paid=180, expected_wagered=125, net_variance=2904,
    )  # fmt: skip


def test_two_bets_sharing_one_third_card_have_the_variance_of_their_sum() -> None:
    shoe = one_deck("3S", "JH", "9D")
    step = opened(shoe, 10, 4)
    step = decide(step.round, step.shoe, STANDARD, Raise(bet_id="r.1"), now=NOW, actor="op")
    step = close_window(step.round, step.shoe, STANDARD, now=NOW, actor="op")
    figures = round_figures(step.round, shoe.order, STANDARD)
    # 24 staked in all, 28 winning cards of 50: paid 48 w.p. 14/25 -> 672/25; net +-24: variance 576 - (72/25)^2.
    assert (figures.wagered, figures.paid, figures.scale) == (24, 48, 625)
    assert figures.expectation.expected_paid == Fraction(672, 25)
    assert figures.expectation.variance == 576 - Fraction(72, 25) ** 2 == Fraction(354816, 625)


def test_a_voided_round_refunds_and_puts_nothing_at_risk() -> None:
    step = opened(one_deck("5S", "9H"), 10, 7)
    voided = void_round(step.round, step.shoe, STANDARD, reason="fault", now=NOW, actor="op")
    assert round_figures(voided.round, step.shoe.order, STANDARD) == RoundFigures(
        status=RoundStatus.VOID, outcome="spread_3", bets=2, wagered=0, paid=0, refunded=17,
        scale=1, expected_paid=0, expected_wagered=0, net_variance=0,
    )  # fmt: skip


def test_a_cut_card_round_counts_only_the_cards_left_after_its_own_posts() -> None:
    # Round one takes 2 and 3 (consecutive, no third card); round two's posts 4 and K come next from the same shoe.
    shoe = new_shoe(1, random.Random(3), policy=ShoePolicy.CUT_CARD, forced=("2S", "3S", "4H", "KH", "9D"))
    first = opened(shoe, 10, round_id="one")
    second = opened(first.shoe, 10, round_id="two")
    second = decide(second.round, second.shoe, STANDARD, Call(bet_id="two.1"), now=NOW, actor="op")
    figures = round_figures(second.round, second.shoe.order, STANDARD)
    # 48 cards left, every 5..Q among them (32): the called 10 pays 20 w.p. 2/3; net +-10, mean 10/3.
    assert figures.expectation.expected_paid == Fraction(40, 3)  # 50 cards left would give 64/5: the bug it guards
    assert figures.expectation.variance == 100 - Fraction(10, 3) ** 2


def test_a_round_still_in_its_window_has_no_figures_yet() -> None:
    step = opened(one_deck("4S", "TH"), 10)
    with pytest.raises(ValueError, match="has not ended"):
        round_figures(step.round, step.shoe.order, STANDARD)


def test_rounds_added_as_a_group_equal_rounds_added_one_by_one() -> None:
    shoe = one_deck("8S", "8H", "9D")
    one = round_figures(opened(shoe, 5).round, shoe.order, STANDARD)
    three = RoundFigures(
        status=one.status, outcome=one.outcome, bets=3, wagered=15, paid=15, refunded=0, scale=25,
        expected_paid=3 * 180, expected_wagered=3 * 125, net_variance=3 * 2904,
    )  # fmt: skip
    assert add(Totals(), three, 3) == add_all([(one, 1), (one, 1), (one, 1)])
    assert add_all([(one, 1)] * 3).outcomes == {"pair_push": 3}


def test_a_line_shows_observed_expected_and_z_and_a_line_with_nothing_at_risk_has_no_z() -> None:
    shoe = one_deck("8S", "8H", "8D")
    trips = round_figures(opened(shoe, 5).round, shoe.order, STANDARD)
    odds = outcome_probabilities(STANDARD, 1)
    line = rtp_line(STANDARD, 1, "EUR", add_all([(trips, 1)]), probabilities=odds, theoretical_rtp=Fraction(1))
    assert (line.observed_rtp, line.expected_rtp) == (Fraction(60, 5), Fraction(36, 25))
    # (55 - 11/5) / sqrt(2904/25) = 264/5 / (sqrt(2904)/5)
    assert line.integrity_z == pytest.approx(264 / 2904**0.5)
    push = round_figures(opened(one_deck("7S", "8H"), 10).round, one_deck("7S", "8H").order, STANDARD)
    flat = rtp_line(STANDARD, 1, "EUR", add_all([(push, 1)]), probabilities=odds, theoretical_rtp=Fraction(1))
    assert (flat.integrity_z, flat.observed_rtp, flat.expected_rtp) == (None, Fraction(1), Fraction(1))


def test_the_zero_started_outcome_series_are_exactly_the_outcomes_with_a_probability() -> None:
    assert set(OUTCOMES) == set(outcome_probabilities(STANDARD, 6))
