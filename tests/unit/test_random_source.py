"""The bounded draw is exactly uniform with no modulo bias, and the OS source gives exactly the bits asked for."""

from __future__ import annotations

import itertools
import math
import sys
from collections import Counter

import pytest

from shoe.random_source import (
    OsRandom,
    arrange,
    bounded,
    fisher_yates_plan,
    randbelow,
    random_bytes,
    random_words,
    shuffled,
)


class CycleExhaustedError(Exception):
    """The fake source has handed out every k-bit value once."""


class EveryValueOnce:
    """A source that hands out each k-bit value exactly once, in a scrambled order, then stops."""

    def __init__(self, k: int, stride: int) -> None:
        # An odd stride is a bijection modulo 2**k, so this is every value once in a non-sorted order.
        self.k = k
        self.values: list[int] = [(i * stride + 3) % 2**k for i in range(2**k)]

    def getrandbits(self, k: int, /) -> int:
        assert k == self.k, f"asked for {k} bits, expected {self.k}"
        if not self.values:
            raise CycleExhaustedError
        return self.values.pop()


def draw_until_exhausted(n: int, source: EveryValueOnce) -> list[int]:
    drawn = []
    while True:
        try:
            drawn.append(randbelow(n, source))
        except CycleExhaustedError:
            return drawn


@pytest.mark.parametrize("stride", [1, 5, 37])
def test_a_bounded_draw_returns_each_value_exactly_once_over_every_k_bit_input(stride: int) -> None:
    for n in range(1, 65):
        k = (n - 1).bit_length()
        source = EveryValueOnce(k, stride)
        drawn = draw_until_exhausted(n, source)
        assert sorted(drawn) == list(range(n)), n
        assert source.values == []


class Zeros:
    """A source that records how many bits each draw asks for and always answers 0."""

    def __init__(self) -> None:
        self.asked: list[int] = []

    def getrandbits(self, k: int, /) -> int:
        self.asked.append(k)
        return 0


def test_a_bounded_draw_asks_for_the_fewest_bits_that_cover_the_range() -> None:
    # Fewest bits means at most half the draws are rejected: 2**(k-1) < n <= 2**k.
    for n in range(2, 1025):
        source = Zeros()
        assert randbelow(n, source) == 0
        [k] = source.asked
        assert 2 ** (k - 1) < n <= 2**k, n


@pytest.mark.parametrize("n", [0, -1])
def test_a_bounded_draw_below_nothing_is_refused(n: int) -> None:
    with pytest.raises(ValueError, match="positive"):
        randbelow(n, OsRandom())


def test_the_os_source_returns_fewer_than_k_bits_for_every_k_up_to_64() -> None:
    source = OsRandom()
    for k in range(65):
        assert all(0 <= source.getrandbits(k) < 2**k for _ in range(200)), k


def test_the_os_source_uses_the_top_bit() -> None:
    # 200 draws all below 2**63 would happen with probability 2**-200.
    source = OsRandom()
    assert any(source.getrandbits(64) >= 2**63 for _ in range(200))


def test_the_os_source_reaches_every_small_value() -> None:
    # Missing one of 8 values in 1,000 draws has probability under 8 * (7/8)**1000, about 1e-57.
    source = OsRandom()
    assert {source.getrandbits(3) for _ in range(1000)} == set(range(8))


def test_the_os_source_serves_a_request_larger_than_its_buffer() -> None:
    bits = 8 * 10_000
    assert 0 <= OsRandom().getrandbits(bits) < 2**bits


def test_the_os_source_refuses_a_negative_bit_count() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        OsRandom().getrandbits(-1)


def test_random_bytes_gives_exactly_n_bytes() -> None:
    source = OsRandom()
    assert [len(random_bytes(n, source)) for n in (0, 1, 32, 100)] == [0, 1, 32, 100]


@pytest.mark.parametrize("k", [1, 4, 9, 16])
def test_the_os_source_spreads_small_draws_evenly_across_every_value_of_their_top_bits(k: int) -> None:
    # Bucket each draw by its top 4 bits (all of them when k < 4) and run a chi-square test against uniform.
    # The critical value for p = 1e-9 keeps a fair source from failing once in a lifetime of CI runs while any
    # skew of a few percent, or a stuck bit, still fails at once.
    source = OsRandom()
    shift = max(k - 4, 0)
    buckets = 2 ** min(k, 4)
    draws = 4000 * buckets
    counts = [0] * buckets
    for _ in range(draws):
        counts[source.getrandbits(k) >> shift] += 1
    expected = draws / buckets
    chi_square = sum((c - expected) ** 2 / expected for c in counts)
    critical = {2: 37.32, 16: 73.63}[buckets]  # chi-square quantiles at 1 - 1e-9 for 1 and 15 degrees of freedom
    assert chi_square < critical, counts


# The shuffle's draws: Lemire's multiply-shift with rejection, two positions per word, proven exact by enumeration.


@pytest.mark.parametrize("bits", [4, 8])
def test_lemire_draw_gives_every_value_exactly_as_often_over_every_word(bits: int) -> None:
    words = 2**bits
    for bound in range(1, words + 1):
        counts = Counter(bounded(word, bound, bits) for word in range(words))
        rejected = counts.pop(None, 0)
        assert rejected == words % bound, bound
        assert counts == dict.fromkeys(range(bound), words // bound), bound


def test_lemire_draw_refuses_a_bound_its_words_cannot_cover() -> None:
    for bound in (0, -1, 2**8 + 1):
        with pytest.raises(ValueError, match="bound"):
            bounded(0, bound, 8)


def every_arrangement(n: int, bits: int) -> tuple[Counter[tuple[str, ...]], int]:
    """Run `arrange` over every possible tuple of words: how often each arrangement comes out, and how many rejected."""
    items = [chr(ord("a") + i) for i in range(n)]
    steps = len(fisher_yates_plan(n, bits))
    seen: Counter[tuple[str, ...]] = Counter()
    rejected = 0
    for words in itertools.product(range(2**bits), repeat=steps):
        order = arrange(items, words, bits)
        if order is None:
            rejected += 1
        else:
            seen[tuple(order)] += 1
    return seen, rejected


@pytest.mark.parametrize(("n", "bits"), [(2, 3), (3, 4), (4, 5), (5, 6), (6, 5)])
def test_every_arrangement_comes_out_exactly_as_often_over_every_input_of_the_draw_words(n: int, bits: int) -> None:
    seen, rejected = every_arrangement(n, bits)
    assert len(seen) == math.factorial(n)  # every arrangement is reachable
    assert len(set(seen.values())) == 1, seen  # and each one by exactly as many word tuples
    accepted = math.prod(2**bits - 2**bits % product for *_, product, _ in fisher_yates_plan(n, bits))
    assert sum(seen.values()) == accepted
    assert rejected == 2 ** (bits * len(fisher_yates_plan(n, bits))) - accepted


def test_the_plan_covers_every_position_from_the_back_two_per_word() -> None:
    assert fisher_yates_plan(6) == (
        (5, 4, 5, 30, 2**32 % 30),
        (3, 2, 3, 12, 2**32 % 12),
        (1, 0, 1, 2, 0),
    )
    assert fisher_yates_plan(5, 8) == ((4, 3, 4, 20, 256 % 20), (2, 1, 2, 6, 256 % 6))
    assert fisher_yates_plan(1) == fisher_yates_plan(0) == ()
    assert len(fisher_yates_plan(312)) == 156  # a 6-deck shoe: 156 words, one read of 624 bytes


def test_the_plan_refuses_words_too_narrow_for_the_pairs_it_draws() -> None:
    with pytest.raises(ValueError, match="4-bit"):
        fisher_yates_plan(5, 4)  # 5 * 4 = 20 > 16


class Scripted:
    """A source that answers getrandbits with the given values in turn and records the widths asked for."""

    def __init__(self, *values: int) -> None:
        self.values = list(values)
        self.asked: list[int] = []

    def getrandbits(self, k: int, /) -> int:
        self.asked.append(k)
        return self.values.pop(0)


def test_a_shuffle_whose_draw_is_rejected_starts_over_with_fresh_words() -> None:
    # Three items: one word, product 3 * 2 = 6, limit 2**32 % 6 = 4: the word 0 gives a low part of 0 < 4, rejected.
    word = 5 * 2**32 // 6 + 1  # r = 5: position 2 swaps with 5 // 2 = 2 (itself), then position 1 with 5 % 2 = 1
    source = Scripted(0, word)
    assert shuffled(["a", "b", "c"], source) == ["a", "b", "c"]
    assert source.asked == [32, 32]


def test_random_words_hands_every_bit_of_the_draw_to_exactly_one_word() -> None:
    value = int.from_bytes(bytes(range(1, 13)), sys.byteorder)
    words = random_words(3, Scripted(value))
    assert words == list(memoryview(bytes(range(1, 13))).cast("I"))
    assert all(0 <= w < 2**32 for w in random_words(1000, OsRandom()))
    assert len(set(random_words(1000, OsRandom()))) > 990  # 32-bit words: a repeat among 1,000 is rare (p ~ 1e-4)


def test_a_shuffle_keeps_every_item_of_a_multiset() -> None:
    items = list("aabbbcdddd") * 3
    assert sorted(shuffled(items, OsRandom())) == sorted(items)
    assert shuffled([], OsRandom()) == []
    assert shuffled(["x"], OsRandom()) == ["x"]
