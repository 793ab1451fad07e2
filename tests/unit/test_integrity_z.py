"""Over many seeded rounds the integrity z-score stays small for a fair game and passes 4 for a broken one."""

from __future__ import annotations

import functools
import math
import random
from collections import Counter
from dataclasses import dataclass

import msgspec

from paytables.red_dog import loader
from paytables.red_dog.analysis.red_dog_expectation import Expectation, Stake, integrity_z, round_expectation, total
from paytables.red_dog.paytable import Paytable
from paytables.red_dog.red_dog import classify, settle
from shoe.cards import DECK, rank

STANDARD = loader.get("standard/v1")
ALERT = 4  # the alert's threshold in deploy/prometheus


@dataclass
class Tally:
    """What the counters would hold: real credits and debits, and the expectations beside them."""

    paid: int = 0
    wagered: int = 0
    rounds: int = 0

    def add(self, paytable: Paytable, first: int, second: int, third: int | None, stakes: list[Stake]) -> None:
        for s in stakes:
            settled = settle(paytable, first, second, third, s.ante, s.raise_amount)
            self.paid += settled.payout
            self.wagered += settled.wagered
        self.rounds += 1


def random_stakes(rng: random.Random, spread: bool) -> list[Stake]:
    """One to three players, any ante, raising or calling at whim: z must not care how they decide."""
    stakes = []
    for _ in range(rng.randint(1, 3)):
        ante = rng.randint(1, 500)
        stakes.append(Stake(ante=ante, raise_amount=rng.choice([0, ante, rng.randint(0, ante)]) if spread else 0))
    return stakes


def cut_card_game(seed: int, rounds: int, *, pays: Paytable, missing_rank: int | None = None) -> float:
    """A six-deck cut-card shoe; expectations from the declared shoe, payouts by `pays` from the physical one."""
    rng = random.Random(seed)
    declared = [rank(c) for c in DECK] * 6
    physical = [r for r in declared if r != missing_rank]  # a short shoe that nobody declared
    tally, expectations = Tally(), []
    while tally.rounds < rounds:
        shoe = physical[:]
        rng.shuffle(shoe)
        left = Counter(declared)  # what the shoe is said to hold
        position = 0
        while position < 0.75 * len(shoe) and tally.rounds < rounds:
            first, second = shoe[position], shoe[position + 1]
            left -= Counter((first, second))
            c = classify(first, second, STANDARD)
            stakes = random_stakes(rng, c.opens_raise_window)
            expectations.append(round_expectation(STANDARD, first, second, left, stakes))
            third = shoe[position + 2] if c.needs_third_card else None
            tally.add(pays, first, second, third, stakes)
            position += 2
            if third is not None:
                left -= Counter((third,))
                position += 1
    return integrity_z(tally.paid, tally.wagered, total(expectations))


@functools.cache
def per_round_expectation(first: int, second: int, raise_amount: int) -> Expectation:
    left = Counter(rank(c) for c in DECK * 6) - Counter((first, second))
    return round_expectation(STANDARD, first, second, left, [Stake(ante=1, raise_amount=raise_amount)])


def times(n: int, e: Expectation) -> Expectation:
    """n independent rounds alike: means and variances both scale by n."""
    return Expectation(
        expected_paid=n * e.expected_paid, expected_wagered=n * e.expected_wagered, variance=n * e.variance
    )


def fresh_shoe_game(seed: int, rounds: int, *, pays: Paytable) -> float:
    """A new six-deck shoe every round, one unit ante, raising on spreads 1 and 2 as the strategy says."""
    rng = random.Random(seed)
    cards = [rank(c) for c in DECK] * 6
    tally, seen = Tally(), Counter[tuple[int, int, int]]()
    # A round's settlement depends only on its three ranks: settled once per distinct deal (a few thousand), counted
    # as often as dealt, so half a million rounds cost the draws and the sums, not half a million settle() calls.
    deals = Counter[tuple[int, int, int]]()
    for _ in range(rounds):
        first, second, third = rng.sample(cards, 3)
        deals[first, second, third] += 1
    for (first, second, third), n in deals.items():
        c = classify(first, second, STANDARD)
        raise_amount = 1 if c.spread in (1, 2) else 0
        seen[first, second, raise_amount] += n
        settled = settle(pays, first, second, third if c.needs_third_card else None, 1, raise_amount)
        tally.paid += n * settled.payout
        tally.wagered += n * settled.wagered
        tally.rounds += n
    expected = total(times(n, per_round_expectation(*k)) for k, n in seen.items())
    return integrity_z(tally.paid, tally.wagered, expected)


def test_a_fair_game_keeps_z_small_however_the_players_decide() -> None:
    zs = [cut_card_game(seed, 4_000, pays=STANDARD) for seed in range(5)]
    assert all(abs(z) < 3 for z in zs), zs
    assert min(zs) < 0 < max(zs), zs  # no drift in one direction


def test_a_shoe_short_of_its_sevens_drives_z_past_the_alert() -> None:
    z = cut_card_game(7, 20_000, pays=STANDARD, missing_rank=7)
    assert z < -ALERT, z


def test_paying_four_to_one_on_spread_one_drives_z_past_the_alert() -> None:
    short = msgspec.structs.replace(STANDARD.terms, spread_odds=[4, *STANDARD.terms.spread_odds[1:]])
    wrong = msgspec.structs.replace(STANDARD, terms=short)
    # Short by one unit on 2 staked, on a spread of 1 (p 528/4043) won (24/310): 0.0202 a round, against a standard
    # deviation of about 2.01 a round. After 500,000 rounds the shortfall is about 7 standard deviations.
    assert abs(fresh_shoe_game(11, 500_000, pays=STANDARD)) < 3
    z = fresh_shoe_game(11, 500_000, pays=wrong)
    assert z < -ALERT, z
    assert not math.isnan(z)
