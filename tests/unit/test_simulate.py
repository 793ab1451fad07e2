"""A seeded simulation through the real shoe and rules lands around the exact house edge, and can tell tables apart."""

from __future__ import annotations

import functools
import random
from decimal import Decimal
from fractions import Fraction

import pytest

from paytables.red_dog import loader
from paytables.red_dog.analysis.simulate import SimulationReport, simulate
from tests.unit.oracle import closed_form

ROUNDS = 200_000
DECKS = 6


@functools.cache
def run(paytable_id: str, seed: int) -> SimulationReport:
    exact = closed_form(paytable_id, DECKS).house_edge
    return simulate(loader.get(paytable_id), DECKS, ROUNDS, random.Random(seed), exact)


def inside(report: SimulationReport, edge: Fraction) -> bool:
    return Fraction(Decimal(report.ci99_low)) <= edge <= Fraction(Decimal(report.ci99_high))


@pytest.mark.parametrize(("paytable_id", "seed"), [("standard/v1", 20261129), ("post-double/v1", 7)])
def test_the_exact_house_edge_lies_inside_the_simulated_99_percent_interval(paytable_id: str, seed: int) -> None:
    report = run(paytable_id, seed)
    assert (report.paytable, report.decks, report.rounds) == (paytable_id, DECKS, ROUNDS)
    assert report.exact_inside_ci99
    assert inside(report, closed_form(paytable_id, DECKS).house_edge)


def test_the_simulated_interval_is_narrow_enough_to_tell_the_standard_table_from_the_generous_one() -> None:
    # About 0.025 apart at six decks; 200,000 rounds give a 99% half-width near 0.009.
    report = run("standard/v1", 20261129)
    assert not inside(report, closed_form("generous/v1", DECKS).house_edge)


def test_a_wrong_exact_edge_is_reported_outside_the_interval() -> None:
    report = simulate(loader.get("standard/v1"), DECKS, 20_000, random.Random(3), Fraction(1, 2))
    assert not report.exact_inside_ci99


def test_a_simulation_needs_at_least_two_rounds() -> None:
    with pytest.raises(ValueError, match="2 rounds"):
        simulate(loader.get("standard/v1"), DECKS, 1, random.Random(1), Fraction(0))
