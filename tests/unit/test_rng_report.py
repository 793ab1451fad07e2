"""The RNG report's counting and tests, at unit size: the production shuffle passes, a biased one is caught."""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter

from bench.rng_report import (
    CARDS,
    card_indices,
    draw_stream_bytes,
    fisher_yates_draws,
    mixed_radix,
    position_table,
    production_orders,
    tally,
    usable_bits,
    verdicts,
)
from shoe.cards import DECK
from shoe.random_source import OsRandom, arrange, randbelow

SHOES = 20_000
# A fair shuffle fails below this once in a billion runs of one line; the naive shuffle below lands far under it.
P_FLOOR = 1e-9


def test_twenty_thousand_production_shoes_pass_every_chi_square_of_the_report() -> None:
    found, positions = verdicts(tally(production_orders(1, SHOES)), decks=1)
    assert [v.name for v in found] == ["card by position", "rank by position", "first two cards (52 x 52 pairs)"]
    assert all(v.p_value > P_FLOOR for v in found), found
    assert all(s.bonferroni_p > P_FLOOR for s in positions), positions
    assert [v.degrees_of_freedom for v in found] == [51 * 51, 51 * 12, 52 * 51 - 1]


def naive_order(rng: random.Random) -> str:
    """The classic mistake: swap each card with any position, not only the ones after it (n^n paths, not n!)."""
    cards = list(DECK)
    for i in range(len(cards)):
        j = randbelow(len(cards), rng)
        cards[i], cards[j] = cards[j], cards[i]
    return "".join(cards)


def test_the_same_tests_catch_the_naive_shuffle() -> None:
    rng = random.Random(10)
    found, positions = verdicts(tally([naive_order(rng) for _ in range(SHOES)]), decks=1)
    by_name = {v.name: v.p_value for v in found}
    assert by_name["card by position"] < P_FLOOR
    assert positions[0].bonferroni_p < P_FLOOR


def test_card_indices_are_the_positions_in_the_deck() -> None:
    assert list(card_indices("".join(DECK))) == list(range(52))
    assert list(card_indices("ASKD2C")) == [DECK.index("AS"), DECK.index("KD"), DECK.index("2C")]


def test_a_tally_counts_card_by_position_and_the_first_two_cards() -> None:
    orders = ["".join(random.Random(seed).sample(DECK, 52)) for seed in range(30)]
    expected_positions: Counter[tuple[int, str]] = Counter()
    for order in orders:
        for p in range(52):
            expected_positions[p, order[2 * p : 2 * p + 2]] += 1
    counted = tally(orders)
    table = position_table(counted.card_by_position, 52, 1)
    assert {(p, DECK[c]): n for p, row in enumerate(table) for c, n in enumerate(row) if n} == expected_positions
    ranks = position_table(counted.card_by_position, 52, 4)
    assert ranks[0][12] == sum(order[0] == "A" for order in orders)
    pairs = Counter(DECK.index(o[:2]) * CARDS + DECK.index(o[2:4]) for o in orders)
    assert counted.first_two == dict(pairs)
    assert counted.shoes == 30


def test_the_recovered_draws_number_every_arrangement_once() -> None:
    numbers = {mixed_radix(fisher_yates_draws(order)) for order in itertools.permutations(range(5))}
    assert numbers == set(range(math.factorial(5)))


def test_the_recovered_draws_are_the_ones_the_shuffle_made() -> None:
    # Four items, bits 5: words (r = 7 of 12, then r = 1 of 2) -> swaps (3, 7 // 3 = 2), (2, 7 % 3 = 1), (1, 1), (0, 0).
    words = [20, 16]  # 20 * 12 = 7 * 32 + 16 (low part 16 >= 32 % 12 = 8: kept), 16 * 2 = 1 * 32 + 0
    order = arrange(["0", "1", "2", "3"], words, bits=5)
    assert order is not None
    assert fisher_yates_draws([int(x) for x in order]) == [2, 1, 1]


def test_the_stream_takes_whole_bytes_below_the_largest_power_of_two_under_n_factorial() -> None:
    assert (usable_bits(312), usable_bits(52)) == (2136, 224)
    assert 2 ** (usable_bits(312) + 4) <= math.factorial(312) < 2 ** (usable_bits(312) + 8 + 4)
    data = draw_stream_bytes(52, 200, OsRandom())
    assert len(data) % 28 == 0
    assert 100 * 28 <= len(data) <= 200 * 28  # about 2 in 3 numbers fall below 2**225
