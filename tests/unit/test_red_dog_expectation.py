"""Expected payout and variance of a settled bet: hand calculations, and brute force over every undealt card."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paytables.red_dog import loader
from paytables.red_dog.analysis.red_dog_expectation import (
    Expectation,
    Stake,
    bet_expectation,
    integrity_z,
    optimal_play_return,
    round_expectation,
    total,
    undealt_rank_counts,
)
from paytables.red_dog.analysis.rtp import compute
from paytables.red_dog.red_dog import RuleError, settle
from paytables.refusals import RaiseExceedsAnte
from shoe.cards import DECK, CardError, rank
from tests.unit.oracle import PAYTABLE_IDS

STANDARD = loader.get("standard/v1")
GENEROUS = loader.get("generous/v1")
POST_DOUBLE = loader.get("post-double/v1")


def fresh_shoe_after(decks: int, *posts: int) -> dict[int, int]:
    """Rank counts of a fresh shoe of `decks` decks once the posts are out."""
    counts = dict.fromkeys(range(2, 15), 4 * decks)
    for post in posts:
        counts[post] -= 1
    return counts


def test_posts_4_and_10_from_one_deck_with_a_raise_expect_16_paid_of_20_wagered() -> None:
    # 50 cards left; the 5s to 9s win: 20 cards. Spread 5 pays 1:1 on the 20 staked (10 ante + 10 raise).
    # paid: 40 with p 20/50, else 0 -> 16. net: +20 (20/50) or -20 (30/50): mean -4, mean square 400.
    got = bet_expectation(STANDARD, 4, 10, fresh_shoe_after(1, 4, 10), 10, 10)
    assert got == Expectation(expected_paid=Fraction(16), expected_wagered=Fraction(20), variance=Fraction(384))
    assert got.expected_net == -4


def test_on_post_double_a_third_card_on_a_post_doubles_what_is_wagered() -> None:
    # Same posts: three 4s and three 10s left (6 cards) each cost 20 more. wagered: 20 + 6/50 * 20 = 112/5.
    # net: +20 (20/50), -40 (6/50), -20 (24/50): mean -320/50 = -32/5, mean square 27200/50 = 544.
    got = bet_expectation(POST_DOUBLE, 4, 10, fresh_shoe_after(1, 4, 10), 10, 10)
    assert got.expected_paid == 16
    assert got.expected_wagered == Fraction(112, 5)
    assert got.variance == 544 - Fraction(32, 5) ** 2 == Fraction(12576, 25)


def test_a_pair_of_eights_pays_trips_on_two_of_the_fifty_cards_left() -> None:
    # Ante 5: 60 back (11:1) with p 2/50, else the 5 back. net +55 with p 1/25: mean 11/5, mean square 121.
    got = bet_expectation(STANDARD, 8, 8, fresh_shoe_after(1, 8, 8), 5)
    assert got.expected_paid == 5 + Fraction(2, 50) * 55 == Fraction(36, 5)
    assert got.expected_wagered == 5
    assert got.variance == 121 - Fraction(11, 5) ** 2 == Fraction(2904, 25)


def test_a_pair_whose_rank_is_gone_from_the_shoe_is_a_certain_push() -> None:
    remaining = fresh_shoe_after(1, 8, 8) | {8: 0}
    assert bet_expectation(STANDARD, 8, 8, remaining, 5) == Expectation(
        expected_paid=Fraction(5), expected_wagered=Fraction(5), variance=Fraction(0)
    )


def test_consecutive_posts_return_the_ante_for_certain_and_need_no_cards_left() -> None:
    got = bet_expectation(STANDARD, 9, 10, dict.fromkeys(range(2, 15), 0), 7)
    assert got == Expectation(expected_paid=Fraction(7), expected_wagered=Fraction(7), variance=Fraction(0))


def test_generous_pays_three_to_one_on_a_spread_of_three() -> None:
    # Posts 4 and 8, one deck, a call of 1: 5s, 6s, 7s win (12 of 50) and pay 4 back.
    # net +3 (12/50) or -1 (38/50): mean -2/50 = -1/25, mean square (108 + 38)/50 = 73/25.
    got = bet_expectation(GENEROUS, 4, 8, fresh_shoe_after(1, 4, 8), 1)
    assert got.expected_paid == Fraction(48, 50)
    assert got.variance == Fraction(73, 25) - Fraction(1, 625) == Fraction(1824, 625)
    assert bet_expectation(STANDARD, 4, 8, fresh_shoe_after(1, 4, 8), 1).expected_paid == Fraction(36, 50)


def test_spread_one_from_six_decks_pays_five_to_one_on_24_of_310_cards() -> None:
    got = bet_expectation(STANDARD, 5, 7, fresh_shoe_after(6, 5, 7), 1, 1)
    assert got.expected_paid == Fraction(24, 310) * 12 == Fraction(144, 155)
    assert got.expected_wagered == 2


def test_bets_in_one_round_share_the_third_card_so_their_variances_do_not_simply_add() -> None:
    # Posts 4 and 10, one deck: a raised bet (20 at stake) and a call (10). Together +30 or -30:
    # mean (20*30 - 30*30)/50 = -6, mean square 900, variance 864; alone 384 and 96 would add to only 480.
    remaining = fresh_shoe_after(1, 4, 10)
    stakes = [Stake(ante=10, raise_amount=10), Stake(ante=10)]
    together = round_expectation(STANDARD, 4, 10, remaining, stakes)
    assert together.expected_net == -6
    assert together.variance == 864
    assert bet_expectation(STANDARD, 4, 10, remaining, 10).variance == 96


def test_the_undealt_counts_are_the_ranks_after_the_second_post() -> None:
    order = "2S3H" + "4D" + "TC" + "5S5HAC"  # two burnt cards, posts at indexes 2 and 3, then three undealt
    assert undealt_rank_counts(order, 3) == dict.fromkeys(range(2, 15), 0) | {5: 2, 14: 1}


@given(st.lists(st.sampled_from(DECK), max_size=60), st.integers(min_value=-1, max_value=60))
def test_the_undealt_counts_agree_with_counting_card_by_card(cards: list[str], after: int) -> None:
    by_card = Counter(rank(card) for card in cards[after + 1 :])
    assert undealt_rank_counts("".join(cards), after) == {r: by_card[r] for r in range(2, 15)}


@pytest.mark.parametrize("order", ["2S3H4X", "2S3H1D", "2S3H4"])
def test_undealt_cards_that_are_not_card_codes_are_refused(order: str) -> None:
    with pytest.raises(CardError):
        undealt_rank_counts(order, 0)


def test_an_index_before_the_shoe_is_refused() -> None:
    with pytest.raises(RuleError):
        undealt_rank_counts("2S3H4D", -2)


def test_a_raise_the_rules_refuse_is_refused_here_too() -> None:
    with pytest.raises(RuleError):
        bet_expectation(STANDARD, 8, 8, fresh_shoe_after(1, 8, 8), 5, 5)
    with pytest.raises(RaiseExceedsAnte):
        bet_expectation(STANDARD, 4, 10, fresh_shoe_after(1, 4, 10), 5, 6)


def test_a_third_card_from_an_empty_shoe_or_negative_counts_are_refused() -> None:
    with pytest.raises(RuleError):
        bet_expectation(STANDARD, 4, 10, dict.fromkeys(range(2, 15), 0), 5)
    with pytest.raises(RuleError):
        bet_expectation(STANDARD, 4, 10, fresh_shoe_after(1, 4, 10) | {7: -1}, 5)


def test_z_is_the_net_surprise_in_standard_deviations() -> None:
    expected = total([Expectation(expected_paid=Fraction(16), expected_wagered=Fraction(20), variance=Fraction(384))])
    assert integrity_z(40, 20, expected) == pytest.approx((20 - -4) / math.sqrt(384))
    certain = Expectation(expected_paid=Fraction(5), expected_wagered=Fraction(5), variance=Fraction(0))
    assert math.isnan(integrity_z(5, 5, certain))
    assert integrity_z(6, 5, certain) == math.inf


@pytest.mark.parametrize("paytable_id", ["standard/v1", "generous/v1"])
def test_the_optimal_play_return_is_rtp_per_total_bet_when_no_penalty_is_debited(paytable_id: str) -> None:
    paytable = loader.get(paytable_id)
    assert optimal_play_return(paytable, 6) == Fraction(compute(paytable, 6).rtp_per_total_bet_fraction)


def test_the_optimal_play_return_on_post_double_counts_the_penalty_as_wagered() -> None:
    # Independently: average each pair of posts' exact expectation, raising on the spreads rtp says to raise on.
    decks = 1
    raise_on = set(compute(POST_DOUBLE, decks).raise_spreads)
    paid, wagered, cards = Fraction(0), Fraction(0), 52 * decks
    for first in range(2, 15):
        for second in range(2, 15):
            p = Fraction(4 * decks, cards) * Fraction(4 * decks - (first == second), cards - 1)
            spread = abs(first - second) - 1
            e = bet_expectation(
                POST_DOUBLE, first, second, fresh_shoe_after(decks, first, second), 1, int(spread in raise_on)
            )
            paid, wagered = paid + p * e.expected_paid, wagered + p * e.expected_wagered
    assert optimal_play_return(POST_DOUBLE, decks) == paid / wagered
    assert paid / wagered != Fraction(compute(POST_DOUBLE, decks).rtp_per_total_bet_fraction)


# Brute force: settle the bets once for every single undealt card and average; no counting by class.


@dataclass(frozen=True)
class Deal:
    paytable_id: str
    first: int
    second: int
    remaining: dict[int, int]
    stakes: tuple[Stake, ...]


@st.composite
def deals(draw: st.DrawFn) -> Deal:
    first, second = draw(st.integers(2, 14)), draw(st.integers(2, 14))
    remaining = draw(st.fixed_dictionaries({r: st.integers(0, 12) for r in range(2, 15)}))
    if sum(remaining.values()) == 0:
        remaining[draw(st.integers(2, 14))] = 1
    spread = abs(first - second) > 1
    antes = draw(st.lists(st.integers(1, 10**6), min_size=1, max_size=4))
    stakes = tuple(Stake(ante=a, raise_amount=draw(st.integers(0, a)) if spread else 0) for a in antes)
    return Deal(draw(st.sampled_from(PAYTABLE_IDS)), first, second, remaining, stakes)


def brute_force(deal: Deal) -> Expectation:
    paytable = loader.get(deal.paytable_id)
    third_cards: list[int | None] = [r for r, n in deal.remaining.items() for _ in range(n)]
    if abs(deal.first - deal.second) == 1:
        third_cards = [None]
    outcomes = []
    for third in third_cards:
        bets = [settle(paytable, deal.first, deal.second, third, s.ante, s.raise_amount) for s in deal.stakes]
        outcomes.append((sum(b.payout for b in bets), sum(b.wagered for b in bets)))
    n = len(outcomes)
    mean_paid = Fraction(sum(p for p, _ in outcomes), n)
    mean_wagered = Fraction(sum(w for _, w in outcomes), n)
    mean_net = mean_paid - mean_wagered
    variance = sum(((p - w) - mean_net) ** 2 for p, w in outcomes) / n
    return Expectation(expected_paid=mean_paid, expected_wagered=mean_wagered, variance=Fraction(variance))


@given(deals())
def test_the_expectation_equals_the_average_over_every_undealt_card(deal: Deal) -> None:
    paytable = loader.get(deal.paytable_id)
    got = round_expectation(paytable, deal.first, deal.second, deal.remaining, deal.stakes)
    assert got == brute_force(deal)
