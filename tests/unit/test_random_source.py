"""The bounded draw is exactly uniform with no modulo bias, and the OS source gives exactly the bits asked for."""

from __future__ import annotations

import pytest

from shoe.random_source import OsRandom, randbelow, random_bytes


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
