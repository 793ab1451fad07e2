"""Random sources and the unbiased bounded-integer draw the shuffle uses."""

from __future__ import annotations

import os
from typing import Protocol


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
        if 0 <= k <= 16:  # a shuffle's draws: the top k bits of one 16-bit word, without slicing bytes
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


def randbelow(n: int, source: RandomSource) -> int:
    """A uniform integer in [0, n) by rejection sampling: draws with no modulo bias."""
    if n <= 0:
        raise ValueError("n must be positive")
    k = (n - 1).bit_length()  # the fewest bits that cover 0..n-1, so at most half the draws are rejected
    while True:
        value = source.getrandbits(k)
        if value < n:
            return value


def random_bytes(n: int, source: RandomSource) -> bytes:
    """n random bytes from the source (used for commitment salts)."""
    return source.getrandbits(8 * n).to_bytes(n, "big")
