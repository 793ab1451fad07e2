"""The chi-square p-value against printed tables and closed forms; the outcome test against exact probabilities."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paytables.red_dog import loader
from paytables.red_dog.analysis.chi_square import chi_square_p_value, outcome_chi_square, outcome_probabilities

# Upper-tail critical values printed in every statistics table (NIST/SEMATECH e-Handbook, table 1.3.6.7.4).
TABLE = [
    (1, 3.841, 0.05),
    (1, 6.635, 0.01),
    (2, 5.991, 0.05),
    (5, 11.070, 0.05),
    (10, 18.307, 0.05),
    (10, 23.209, 0.01),
    (13, 22.362, 0.05),
    (13, 27.688, 0.01),
    (13, 34.528, 0.001),
    (30, 43.773, 0.05),
    (100, 124.342, 0.05),
]


@pytest.mark.parametrize(("dof", "statistic", "p"), TABLE)
def test_the_printed_critical_values_give_their_printed_p_values(dof: int, statistic: float, p: float) -> None:
    # The table rounds the statistic to 3 places, which moves p by well under 1 percent of itself.
    assert chi_square_p_value(statistic, dof) == pytest.approx(p, rel=2e-3)


@given(st.floats(min_value=0, max_value=400))
def test_two_degrees_of_freedom_is_the_exponential_tail(x: float) -> None:
    assert chi_square_p_value(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-12, abs=1e-300)


@given(st.floats(min_value=0, max_value=200))
def test_one_degree_of_freedom_is_the_normal_two_sided_tail(x: float) -> None:
    assert chi_square_p_value(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-9, abs=1e-300)


@given(st.floats(min_value=0, max_value=300), st.integers(min_value=1, max_value=40))
def test_an_even_number_of_degrees_of_freedom_is_a_poisson_sum(x: float, half: int) -> None:
    # Q(k, y) = exp(-y) * sum_{i<k} y^i / i! for whole k.
    y = x / 2
    poisson = math.exp(-y) * math.fsum(y**i / math.factorial(i) for i in range(half))
    assert chi_square_p_value(x, 2 * half) == pytest.approx(poisson, rel=1e-9, abs=1e-300)


def test_a_zero_statistic_has_p_one_and_a_huge_one_p_zero() -> None:
    assert chi_square_p_value(0, 13) == 1
    assert chi_square_p_value(1e6, 13) == 0


def test_a_negative_statistic_or_no_degrees_of_freedom_is_refused() -> None:
    with pytest.raises(ValueError, match=">= 0"):
        chi_square_p_value(-1, 3)
    with pytest.raises(ValueError, match=">= 0"):
        chi_square_p_value(math.nan, 3)
    with pytest.raises(ValueError, match="at least 1"):
        chi_square_p_value(1, 0)


def test_sixty_heads_in_a_hundred_fair_tosses_is_chi_square_four() -> None:
    got = outcome_chi_square({"heads": 60, "tails": 40}, {"heads": Fraction(1, 2), "tails": Fraction(1, 2)})
    assert (got.statistic, got.degrees_of_freedom, got.rounds) == (4.0, 1, 100)  # 10^2/50 twice
    assert got.p_value == pytest.approx(math.erfc(math.sqrt(2)))


def test_counts_exactly_as_expected_give_p_one_and_a_missing_outcome_counts_as_none_seen() -> None:
    probabilities = outcome_probabilities(loader.get("standard/v1"), 1)
    assert len(probabilities) == 14
    rounds = math.lcm(*(p.denominator for p in probabilities.values()))
    exact = {name: int(p * rounds) for name, p in probabilities.items()}
    assert outcome_chi_square(exact, probabilities).p_value == 1
    # With the N q expected trips missing and the rest exact, the terms add up to N q (here 16575 / 425 = 39).
    without_trips = {name: n for name, n in exact.items() if name != "trips"}
    got = outcome_chi_square(without_trips, probabilities)
    assert got.statistic == pytest.approx(float(rounds * probabilities["trips"])) == 39
    assert got.p_value < 0.001  # tables: 34.528 is the 0.001 point at 13 degrees of freedom


def test_the_one_deck_outcome_probabilities_are_the_hand_counted_ones() -> None:
    got = outcome_probabilities(loader.get("standard/v1"), 1)
    assert got["consecutive"] == Fraction(12 * 2 * 16, 52 * 51)  # 12 adjacent rank pairs, either order, 4 x 4 cards
    assert got["trips"] == Fraction(3, 51) * Fraction(2, 50)  # the second matches the first, then the third
    assert got["spread_11"] == Fraction(2 * 16, 52 * 51)  # only A and 2


def test_an_outcome_without_a_probability_or_probabilities_not_adding_to_one_are_refused() -> None:
    half = {"a": Fraction(1, 2), "b": Fraction(1, 2)}
    with pytest.raises(ValueError, match="without a probability"):
        outcome_chi_square({"c": 1}, half)
    with pytest.raises(ValueError, match="add up"):
        outcome_chi_square({"a": 1}, {"a": Fraction(1, 2), "b": Fraction(1, 3)})
