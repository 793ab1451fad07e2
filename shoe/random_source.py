"""Random sources, the unbiased bounded-integer draws, and the Fisher-Yates arrangement the shoe uses."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Sequence
from typing import Protocol

WORD_BITS = 32  # the shuffle's draws are made from 32-bit words: one word per two cards
_WORD_BYTES = WORD_BITS // 8

if memoryview(bytes(4)).cast("I").itemsize != _WORD_BYTES:  # pragma: no cover - every supported platform
    raise ImportError("the shuffle reads 32-bit words through memoryview format 'I'")


class RandomSource(Protocol):
    """Anything that yields k uniformly random bits: the OS CSPRNG in production, a seeded one in tests."""

    def getrandbits(self, k: int, /) -> int: ...


class OsRandom:
    """The operating system's CSPRNG, read in blocks so a shuffle does not pay one syscall per card."""

    _BLOCK = 4096

    def __init__(self) -> None:
        self._buffer = b""
        self._offset = 0
        self._words = memoryview(b"").cast("H")
        self._word = 0

    def getrandbits(self, k: int, /) -> int:
        if 0 <= k <= 16:  # a prefix shuffle's draws: the top k bits of one 16-bit word, without slicing bytes
            if self._word >= len(self._words):
                self._words = memoryview(os.urandom(self._BLOCK)).cast("H")
                self._word = 0
            word: int = self._words[self._word]
            self._word += 1
            return word >> (16 - k)
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        nbytes = (k + 7) // 8
        if self._offset + nbytes > len(self._buffer):
            self._buffer = os.urandom(max(self._BLOCK, nbytes))
            self._offset = 0
        chunk = self._buffer[self._offset : self._offset + nbytes]
        self._offset += nbytes
        return int.from_bytes(chunk, "big") >> (nbytes * 8 - k)

    def words(self, count: int) -> list[int]:
        """`count` uniform 32-bit words straight from the OS, one read for a whole shuffle."""
        return memoryview(os.urandom(_WORD_BYTES * count)).cast("I").tolist()


def random_words(count: int, source: RandomSource) -> list[int]:
    """`count` independent uniform 32-bit words: every bit of the source's draw lands in exactly one word."""
    if isinstance(source, OsRandom):
        return source.words(count)
    value = source.getrandbits(WORD_BITS * count)
    return memoryview(value.to_bytes(_WORD_BYTES * count, sys.byteorder)).cast("I").tolist()


def randbelow(n: int, source: RandomSource) -> int:
    """A uniform integer in [0, n) by rejection sampling: draws with no modulo bias."""
    if n <= 0:
        raise ValueError("n must be positive")
    k = (n - 1).bit_length()  # the fewest bits that cover 0..n-1, so at most half the draws are rejected
    while True:
        value = source.getrandbits(k)
        if value < n:
            return value


def bounded(word: int, bound: int, bits: int = WORD_BITS) -> int | None:
    """Lemire's multiply-shift draw in [0, bound) from one `bits`-bit word, or None when the word must be rejected.

    word * bound spans [0, bound * 2**bits); its top part (>> bits) is the draw. Each draw value is hit by either
    floor(2**bits / bound) or one more words; the low part of the product is below 2**bits % bound for exactly the
    surplus words, so rejecting those leaves every value exactly floor(2**bits / bound) words: no modulo bias.
    """
    if not 0 < bound <= 1 << bits:
        raise ValueError(f"bound must be 1..2**{bits}, got {bound}")
    product = word * bound
    if product & ((1 << bits) - 1) < (1 << bits) % bound:
        return None
    return product >> bits


@functools.cache
def fisher_yates_plan(n: int, bits: int = WORD_BITS) -> tuple[tuple[int, int, int, int, int], ...]:
    """The steps of a Fisher-Yates shuffle of n items from the back, two positions per word.

    Each step fills positions i and i - 1 from one draw r uniform in [0, (i + 1) * i): r // i picks the swap for
    position i among 0..i and r % i the swap for position i - 1 among 0..i-1 (a bijection, so both are uniform and
    independent). A step is (i, i - 1, i, (i + 1) * i, 2**bits % ((i + 1) * i)): positions, second bound, the
    product bound and its Lemire rejection limit. An odd last step pairs position 1 with a bound of 1 (a no-op swap).
    """
    steps = []
    for i in range(n - 1, 0, -2):
        product = (i + 1) * i
        if product > 1 << bits:
            raise ValueError(f"{n} items need draws below {product}, more than {bits}-bit words give")
        steps.append((i, i - 1, i, product, (1 << bits) % product))
    return tuple(steps)


def arrange(items: Sequence[str], words: Sequence[int], bits: int = WORD_BITS) -> list[str] | None:
    """The items in Fisher-Yates order driven by `words` (one per plan step), or None if a draw was rejected.

    A rejected draw throws the whole attempt away: the caller starts again with fresh words, and the attempts that
    are kept are the ones whose every draw was accepted, each draw uniform in its range, so every one of the n!
    arrangements of the positions is exactly equally likely. At 32 bits that happens to under 0.3% of 6-deck shoes.
    """
    order = list(items)
    plan = fisher_yates_plan(len(order), bits)
    mask = (1 << bits) - 1
    for (i, k, low, product, limit), word in zip(plan, words, strict=True):
        m = word * product
        if m & mask < limit:
            return None
        r = m >> bits
        j = r // low
        order[i], order[j] = order[j], order[i]
        j = r % low
        order[k], order[j] = order[j], order[k]
    return order


def shuffled(items: Sequence[str], source: RandomSource) -> list[str]:
    """A uniformly random arrangement of `items`: Fisher-Yates with Lemire's draws, all words in one read."""
    steps = len(fisher_yates_plan(len(items)))
    while True:
        order = arrange(items, random_words(steps, source))
        if order is not None:
            return order


def random_bytes(n: int, source: RandomSource) -> bytes:
    """n random bytes from the source (used for commitment salts)."""
    return source.getrandbits(8 * n).to_bytes(n, "big")
