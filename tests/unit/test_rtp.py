"""The exact RTP agrees with a closed form counted by hand, and with the published figures for the classic game."""

from __future__ import annotations

import functools
import math
from decimal import Decimal
from fractions import Fraction

import pytest

from paytables.red_dog import loader
from paytables.red_dog.analysis import rtp
from tests.unit.oracle import PAYTABLE_IDS, closed_form

DECKS = [1, 2, 4, 6, 8]


@functools.cache
def figures_for(paytable_id: str, decks: int) -> rtp.Theoretical:
    return rtp.compute(loader.get(paytable_id), decks)


@pytest.mark.parametrize("decks", DECKS)
@pytest.mark.parametrize("paytable_id", PAYTABLE_IDS)
def test_the_exact_house_edge_matches_the_closed_form(paytable_id: str, decks: int) -> None:
    figures = figures_for(paytable_id, decks)
    by_hand = closed_form(paytable_id, decks)
    assert Fraction(figures.house_edge_fraction) == by_hand.house_edge
    assert Fraction(figures.never_raise_house_edge_fraction) == by_hand.never_raise_house_edge
    assert Fraction(figures.rtp_per_total_bet_fraction) == by_hand.rtp_per_total_bet
    assert figures.raise_spreads == by_hand.raise_spreads
    assert figures.min_raise_spread == min(by_hand.raise_spreads)
    assert {name: Fraction(p) for name, p in figures.outcome_probabilities.items()} == by_hand.outcome_probabilities


@pytest.mark.parametrize("decks", DECKS)
@pytest.mark.parametrize("paytable_id", PAYTABLE_IDS)
def test_the_decimal_figures_are_the_fractions_rounded_to_ten_places(paytable_id: str, decks: int) -> None:
    figures = figures_for(paytable_id, decks)
    by_hand = closed_form(paytable_id, decks)
    half_ulp = Fraction(1, 2 * 10**10)
    assert abs(Fraction(Decimal(figures.house_edge)) - by_hand.house_edge) <= half_ulp
    assert abs(Fraction(Decimal(figures.never_raise_house_edge)) - by_hand.never_raise_house_edge) <= half_ulp
    assert abs(Fraction(Decimal(figures.rtp_per_total_bet)) - by_hand.rtp_per_total_bet) <= half_ulp
    assert math.isclose(float(figures.std_dev_per_ante), math.sqrt(by_hand.variance_per_ante), rel_tol=1e-9)


@pytest.mark.parametrize("decks", DECKS)
def test_the_outcome_probabilities_sum_to_one(decks: int) -> None:
    figures = figures_for("standard/v1", decks)
    assert sum(Fraction(p) for p in figures.outcome_probabilities.values()) == 1


def test_the_never_raise_strategy_never_beats_the_derived_one() -> None:
    for paytable_id in PAYTABLE_IDS:
        for decks in DECKS:
            by_hand = closed_form(paytable_id, decks)
            assert by_hand.house_edge < by_hand.never_raise_house_edge


@pytest.mark.parametrize(
    ("decks", "low", "high"),
    [
        # Wizard of Odds, "Red Dog": 3.155% with one deck, 2.80% with six, on the classic 5-4-2-1 table.
        (1, Fraction(3150, 100_000), Fraction(3160, 100_000)),
        (6, Fraction(2795, 100_000), Fraction(2805, 100_000)),
    ],
)
def test_the_classic_table_has_the_published_house_edge(decks: int, low: Fraction, high: Fraction) -> None:
    edge = Fraction(figures_for("standard/v1", decks).house_edge_fraction)
    assert low <= edge <= high


def test_the_classic_table_raises_from_a_spread_of_seven() -> None:
    # The textbook strategy: raise on a spread of 7 or more, where winning is more likely than not.
    assert figures_for("standard/v1", 6).min_raise_spread == 7


def test_the_post_double_table_costs_the_player_more_than_the_standard_one() -> None:
    for decks in DECKS:
        standard = Fraction(figures_for("standard/v1", decks).house_edge_fraction)
        post_double = Fraction(figures_for("post-double/v1", decks).house_edge_fraction)
        assert post_double > standard


@pytest.mark.parametrize(
    ("value", "places", "text"),
    [
        (Fraction(1, 3), 4, "0.3333"),
        (Fraction(2, 3), 4, "0.6667"),
        (Fraction(1, 8), 2, "0.12"),  # half-even: a tie rounds to the even digit
        (Fraction(3, 8), 2, "0.38"),
        (Fraction(-1, 3), 3, "-0.333"),
    ],
)
def test_a_decimal_string_rounds_half_even(value: Fraction, places: int, text: str) -> None:
    assert rtp.decimal_string(value, places) == text
