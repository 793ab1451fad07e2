"""Every figure of the PAR sheet against a second count from the rules' words, hand-worked one-deck odds, and the
published figures of the classic game."""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import pytest

from paytables.red_dog import loader
from paytables.red_dog.analysis.par_sheet import ParSheet, StrategyFigures, par_sheet
from paytables.red_dog.analysis.red_dog_expectation import optimal_play_return
from tests.unit.oracle import PAYTABLE_IDS, SPREAD_ODDS, TRIPS_ODDS, closed_form
from tests.unit.par_oracle import Brute, brute_force, raise_spreads_by_hand, seat_one_of_two

DECKS = [1, 2, 8]
# Two-sided standard normal quantiles as printed in tables (e.g. NIST/SEMATECH e-Handbook, 1.3.6.7.1).
Z = {Fraction(95, 100): 1.959963984540054, Fraction(99, 100): 2.5758293035489004}


@functools.cache
def sheet(paytable_id: str, decks: int, seats: int | None = None) -> ParSheet:
    return par_sheet(loader.get(paytable_id), decks, seats)


@functools.cache
def counted(paytable_id: str, decks: int, optimal: bool) -> Brute:
    spreads = raise_spreads_by_hand(paytable_id, decks) if optimal else frozenset()
    return brute_force(paytable_id, decks, spreads)


def strategies(paytable_id: str, decks: int) -> list[tuple[StrategyFigures, Brute]]:
    s = sheet(paytable_id, decks)
    return [(s.optimal, counted(paytable_id, decks, True)), (s.never_raise, counted(paytable_id, decks, False))]


@pytest.mark.parametrize("decks", DECKS)
@pytest.mark.parametrize("paytable_id", PAYTABLE_IDS)
def test_every_outcome_line_has_the_probability_payout_and_shares_the_rules_give(paytable_id: str, decks: int) -> None:
    for figures, brute in strategies(paytable_id, decks):
        lines = {(o.outcome, o.third.value): o for o in figures.outcomes}
        assert set(lines) == set(brute.lines)
        for key, line in lines.items():
            by_hand = brute.lines[key]
            assert (line.probability, line.paid, line.debited, line.raised) == (
                by_hand.probability,
                by_hand.paid,
                by_hand.debited,
                by_hand.raised,
            ), key
            assert line.rtp_share == by_hand.probability * by_hand.paid / brute.debited
            assert line.net_share == by_hand.probability * (by_hand.paid - by_hand.debited)
        assert sum(o.rtp_share for o in figures.outcomes) == brute.rtp
        assert sum(o.net_share for o in figures.outcomes) == brute.net


@pytest.mark.parametrize("decks", DECKS)
@pytest.mark.parametrize("paytable_id", PAYTABLE_IDS)
def test_the_key_figures_are_the_rules_second_count(paytable_id: str, decks: int) -> None:
    for figures, brute in strategies(paytable_id, decks):
        assert figures.expected_net == brute.net
        assert figures.expected_paid == brute.paid
        assert figures.expected_debited == brute.debited
        assert figures.expected_bet == brute.bet
        assert figures.rtp == brute.rtp
        assert figures.net_variance == brute.variance
        assert figures.rtp_variance == brute.rtp_variance
        assert figures.net_distribution == {n: p for n, p in sorted(brute.nets.items()) if p}
        assert figures.hit_frequency == sum(p for n, p in brute.nets.items() if n > 0)
        assert figures.push_frequency == brute.nets[0]
        assert figures.loss_frequency == sum(p for n, p in brute.nets.items() if n < 0)
        assert figures.max_win == max(n for n, p in brute.nets.items() if p)
        assert figures.max_loss == -min(n for n, p in brute.nets.items() if p)


@pytest.mark.parametrize("decks", DECKS)
@pytest.mark.parametrize("paytable_id", PAYTABLE_IDS)
def test_the_strategy_and_edges_are_the_closed_forms(paytable_id: str, decks: int) -> None:
    s, by_hand = sheet(paytable_id, decks), closed_form(paytable_id, decks)
    assert s.optimal.raise_spreads == by_hand.raise_spreads == sorted(raise_spreads_by_hand(paytable_id, decks))
    assert [line.spread for line in s.spreads if line.raises] == by_hand.raise_spreads
    assert s.optimal.house_edge == by_hand.house_edge
    assert s.never_raise.house_edge == by_hand.never_raise_house_edge
    assert 1 - s.optimal.house_edge_per_total_bet == by_hand.rtp_per_total_bet
    assert s.optimal.net_variance == by_hand.variance_per_ante
    assert s.never_raise.raise_spreads == []
    # the sheet's RTP is the theoretical_rtp the live report compares the observed one with
    assert s.optimal.rtp == optimal_play_return(loader.get(paytable_id), decks)


def test_one_deck_odds_worked_by_hand() -> None:
    # 52 * 51 = 2652 ordered posts. Consecutive: 12 neighbouring rank pairs, both orders, 4 * 4 cards each: 384.
    # A pair: 13 ranks, 4 * 3 cards: 156 = 1/17; its third card matches with 2 of the 50 left: trips 1/425.
    s = sheet("standard/v1", 1).optimal
    lines = {(o.outcome, o.third.value): o.probability for o in s.outcomes}
    assert lines["consecutive", "no third card"] == Fraction(384, 2652) == Fraction(32, 221)
    assert lines["trips", "same rank as the pair"] == Fraction(1, 17) * Fraction(2, 50) == Fraction(1, 425)
    assert lines["pair_push", "another rank"] == Fraction(1, 17) - Fraction(1, 425) == Fraction(24, 425)
    for line in sheet("standard/v1", 1).spreads:
        # Posts s ranks apart: 12 - s low ranks, both orders, 16 card pairs; then 4s of the 50 left lie between.
        assert line.probability == Fraction(2 * (12 - line.spread) * 16, 2652)
        assert line.win == Fraction(4 * line.spread, 50)
        odds = SPREAD_ODDS["standard/v1"][line.spread]
        assert line.unit_net == line.win * odds - (1 - line.win)
    # Trips pays 11 to 1: the largest win. Raising and losing the doubled wager: the largest loss.
    assert (s.max_win, s.max_loss) == (TRIPS_ODDS["standard/v1"], 2)
    post_double = sheet("post-double/v1", 1).optimal
    assert post_double.max_loss == 4  # raised, and the third card on a post: the wager and as much again


# Wizard of Odds, "Red Dog" (updated July 17, 2007), table "Expected Gain by Raising", six decks: the probability of
# winning and the player's edge per unit wagered on each spread, to six places. The same page and its house-edge
# table: 3.155% with one deck, 2.80% with six (also in tests/unit/test_rtp.py); raise on 7 or more at any deck count.
WIZARD_SIX_DECKS = {
    1: ("0.077419", "-0.535484"),
    2: ("0.154839", "-0.225806"),
    3: ("0.232258", "-0.303226"),
    4: ("0.309677", "-0.380645"),
    5: ("0.387097", "-0.225806"),
    6: ("0.464516", "-0.070968"),
    7: ("0.541935", "0.083871"),
    8: ("0.619355", "0.238710"),
    9: ("0.696774", "0.393548"),
    10: ("0.774194", "0.548387"),
    11: ("0.851613", "0.703226"),
}


def test_the_six_deck_strategy_table_is_the_published_one() -> None:
    lines = sheet("standard/v1", 6).spreads
    assert {
        line.spread: (f"{float(line.win):.6f}", f"{float(line.unit_net):.6f}") for line in lines
    } == WIZARD_SIX_DECKS
    assert [line.spread for line in lines if line.raises] == [7, 8, 9, 10, 11]


@pytest.mark.parametrize(("decks", "low", "high"), [(1, "0.03150", "0.03160"), (6, "0.02795", "0.02805")])
def test_the_classic_house_edge_is_the_published_one(decks: int, low: str, high: str) -> None:
    assert Fraction(low) <= sheet("standard/v1", decks).optimal.house_edge <= Fraction(high)


@pytest.mark.parametrize("decks", DECKS)
@pytest.mark.parametrize("paytable_id", PAYTABLE_IDS)
def test_the_rounds_needed_are_the_normal_approximation_of_the_exact_variance(paytable_id: str, decks: int) -> None:
    for figures, brute in strategies(paytable_id, decks):
        found = {(c.tolerance, c.confidence): c for c in figures.convergence}
        assert set(found) == {(t, c) for t in (Fraction(1, 200), Fraction(1, 1000)) for c in Z}
        for (tolerance, confidence), c in found.items():
            assert math.isclose(c.z, Z[confidence], rel_tol=1e-12)
            # the least n with z * sigma / sqrt(n) <= tolerance
            n = math.ceil(Z[confidence] ** 2 * float(brute.rtp_variance) / float(tolerance) ** 2)
            assert abs(c.rounds - n) <= 1  # float rounding may move the ceiling by one, nothing more
            assert Z[confidence] * math.sqrt(float(brute.rtp_variance) / c.rounds) <= float(tolerance) * (1 + 1e-9)


def test_on_a_table_without_post_penalties_the_rtp_variance_is_the_net_variance_over_the_mean_bet_squared() -> None:
    # Without a penalty, debited = total bet, so paid - rtp * debited = net - (net mean / bet mean) * bet per round.
    s = sheet("standard/v1", 6).never_raise  # every bet is the ante: the term is net - mean, so the variance is Var
    assert s.rtp_variance == s.net_variance


@pytest.mark.parametrize("paytable_id", ["standard/v1", "post-double/v1"])
def test_a_counting_seat_of_two_on_one_deck_gets_what_dealing_by_the_rules_gives(paytable_id: str) -> None:
    seat = sheet(paytable_id, 1, 2).counting
    assert seat is not None
    assert seat.seats == 2
    by_hand = seat_one_of_two(paytable_id, 1, raise_spreads_by_hand(paytable_id, 1))
    assert seat.usual_net == by_hand.usual_net == -closed_form(paytable_id, 1).house_edge
    assert seat.counting_net == by_hand.counting_net
    assert seat.counting_bet == by_hand.counting_bet
    assert seat.raises_where_usual_calls == by_hand.raises_where_usual_calls
    assert seat.calls_where_usual_raises == by_hand.calls_where_usual_raises
    assert seat.gain == by_hand.counting_net - by_hand.usual_net > 0


def test_a_shared_sheet_has_no_counting_seat() -> None:
    assert sheet("standard/v1", 1).counting is None
