"""Per-seat rounds dealt from seeded shuffled shoes land around the exact figures, for both strategies."""

from __future__ import annotations

import functools
import random
from decimal import Decimal
from fractions import Fraction

import msgspec
import pytest

from paytables.red_dog import loader
from paytables.red_dog.analysis.per_seat_deal_law import fresh_composition
from paytables.red_dog.analysis.red_dog_per_seat import Edges, per_seat_edges
from paytables.red_dog.analysis.red_dog_per_seat_simulate import (
    Estimate,
    PerSeatSimulationReport,
    deal_per_seat,
    simulate_per_seat,
)
from tests.unit.oracle import PAYTABLE_IDS, closed_form
from tests.unit.per_seat_oracle import deal


@functools.cache
def exact(paytable_id: str, decks: int, seats: int) -> Edges:
    spreads = frozenset(closed_form(paytable_id, decks).raise_spreads)
    return per_seat_edges(loader.get(paytable_id), fresh_composition(decks), seats, spreads)


def inside(estimate: Estimate, value: Fraction) -> bool:
    return Fraction(Decimal(estimate.ci99_low)) <= value <= Fraction(Decimal(estimate.ci99_high))


def test_the_cards_are_dealt_round_the_seats_twice_then_to_pairs_then_to_spreads() -> None:
    # seat 1: 5 9 (spread), seat 2: 7 7 (pair), seat 3: 10 11 (consecutive), seat 4: 2 2 (pair)
    ranks = [5, 7, 10, 2, 9, 7, 11, 2, 13, 4, 6, 8]
    hands, face_up = deal_per_seat(ranks, 4)
    assert hands == [(5, 9, 6), (7, 7, 13), (10, 11, None), (2, 2, 4)]
    assert list(face_up) == [5, 7, 10, 2, 9, 7, 11, 2, 13, 4]  # the spread's card comes after the window
    assert [(s.first, s.second, s.third) for s in deal(tuple(ranks), 4)] == hands


@functools.cache
def generous_one_deck_five_seats() -> PerSeatSimulationReport:
    # The counter deviates on about one hand in twenty here and gains about 0.36% of the ante; 40,000 rounds give
    # the paired gain a 99% half-width near 0.002.
    figures = exact("generous/v1", 1, 5)
    return simulate_per_seat(loader.get("generous/v1"), 1, 5, 40_000, random.Random(20261130), figures)


def test_the_exact_per_seat_figures_lie_inside_the_simulated_99_percent_intervals() -> None:
    figures, report = exact("generous/v1", 1, 5), generous_one_deck_five_seats()
    assert (report.paytable, report.decks, report.seats, report.rounds) == ("generous/v1", 1, 5, 40_000)
    assert inside(report.usual_house_edge, closed_form("generous/v1", 1).house_edge)
    assert inside(report.counting_house_edge, -figures.counting_net)
    assert inside(report.counting_gain, figures.counting_net - figures.usual_net)
    assert report.usual_house_edge.exact_inside_ci99
    assert report.counting_house_edge.exact_inside_ci99
    assert report.counting_gain.exact_inside_ci99
    assert report.deviation_rate.exact_inside_ci99
    assert report.deviations > 0


def test_the_paired_gain_interval_is_narrow_enough_to_see_that_counting_gains() -> None:
    assert not inside(generous_one_deck_five_seats().counting_gain, Fraction(0))


def test_a_wrong_exact_figure_is_reported_outside_the_interval() -> None:
    wrong = msgspec.structs.replace(exact("standard/v1", 1, 3), usual_net=Fraction(1, 4), counting_net=Fraction(-1, 4))
    report = simulate_per_seat(loader.get("standard/v1"), 1, 3, 2_000, random.Random(3), wrong)
    assert not report.usual_house_edge.exact_inside_ci99
    assert not report.counting_house_edge.exact_inside_ci99
    assert not report.counting_gain.exact_inside_ci99


def test_a_simulation_needs_at_least_two_rounds() -> None:
    with pytest.raises(ValueError, match="2 rounds"):
        simulate_per_seat(loader.get("standard/v1"), 1, 3, 1, random.Random(1), exact("standard/v1", 1, 3))


@pytest.mark.slow
@pytest.mark.parametrize("decks", [1, 6, 8])
@pytest.mark.parametrize("paytable_id", PAYTABLE_IDS)
def test_at_seven_seats_the_exact_figures_lie_inside_a_long_simulations_intervals(paytable_id: str, decks: int) -> None:
    figures = exact(paytable_id, decks, 7)
    assert -figures.usual_net == closed_form(paytable_id, decks).house_edge
    report = simulate_per_seat(loader.get(paytable_id), decks, 7, 200_000, random.Random(decks), figures)
    assert report.usual_house_edge.exact_inside_ci99
    assert report.counting_house_edge.exact_inside_ci99
    if report.deviations:
        assert report.counting_gain.exact_inside_ci99
        assert report.deviation_rate.exact_inside_ci99
    else:
        # No hand dealt was one where counting changes the decision: fair only if such hands are rare enough that
        # 1.4 million of them miss every one more than 1% of the time (Poisson: fewer than 4.6 expected).
        deviating = figures.raises_where_usual_calls + figures.calls_where_usual_raises
        assert 200_000 * 7 * deviating < Fraction(46, 10)
