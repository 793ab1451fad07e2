"""RFC 6962 / RFC 9162 section 2.1 Merkle trees over a chain's record hashes: roots, proofs, a compact tree head.

A leaf's data is a record's 32-byte chain hash, in seq order (leaf index = seq - 1). Every function here takes leaf
*data* and applies the leaf hash itself, so callers never hash twice or forget to.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Sequence

import msgspec

HASH_SIZE = 32
EMPTY_ROOT = hashlib.sha256(b"").digest()  # MTH({}): the root of a tree with no leaves

_sha256 = hashlib.sha256


def leaf_hash(data: bytes) -> bytes:
    """SHA-256(0x00 || data): the prefix keeps a leaf from ever passing for an inner node."""
    return _sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """SHA-256(0x01 || left || right)."""
    return _sha256(b"\x01" + left + right).digest()


def root(leaves: Sequence[bytes]) -> bytes:
    """MTH(D[n]) of a list of leaf data."""
    return build(leaves).root()


def build(leaves: Iterable[bytes]) -> Tree:
    """Hash every leaf and every perfect subtree once (O(n)); proofs from the result cost O(log n)."""
    level = tuple([_sha256(b"\x00" + data).digest() for data in leaves])
    levels = [level]
    while len(level) > 1:
        level = tuple([_sha256(b"\x01" + a + b).digest() for a, b in zip(level[0::2], level[1::2], strict=False)])
        levels.append(level)
    return Tree(levels=tuple(levels))


class Tree(msgspec.Struct, frozen=True, kw_only=True):
    """levels[h][i] is the root of the perfect subtree over leaves [i * 2**h, (i + 1) * 2**h); level 0 = leaf hashes."""

    levels: tuple[tuple[bytes, ...], ...]

    @property
    def size(self) -> int:
        return len(self.levels[0])

    def root(self, size: int | None = None) -> bytes:
        """The root of the tree's first `size` leaves (all of them by default)."""
        size = self.size if size is None else size
        _check_range(0, size, self.size)
        return EMPTY_ROOT if size == 0 else self._subtree(0, size)

    def inclusion_proof(self, index: int, size: int) -> list[bytes]:
        """PATH(index, D[size]) of RFC 9162 section 2.1.3.1, leaf-side sibling first."""
        _check_range(0, size, self.size)
        if not 0 <= index < size:
            raise ValueError(f"leaf index {index} is not in a tree of size {size}")
        path, lo, hi = [], 0, size
        while hi - lo > 1:
            k = _split(hi - lo)
            if index < lo + k:
                path.append(self._subtree(lo + k, hi))
                hi = lo + k
            else:
                path.append(self._subtree(lo, lo + k))
                lo += k
        path.reverse()
        return path

    def consistency_proof(self, old_size: int, new_size: int) -> list[bytes]:
        """PROOF(old_size, D[new_size]) of RFC 9162 section 2.1.4.1; empty when old_size is 0 or equals new_size."""
        _check_range(old_size, new_size, self.size)
        if old_size in (0, new_size):
            return []
        proof, lo, hi, whole = [], 0, new_size, True
        while old_size != hi:
            k = _split(hi - lo)
            if old_size <= lo + k:
                proof.append(self._subtree(lo + k, hi))
                hi = lo + k
            else:
                proof.append(self._subtree(lo, lo + k))
                lo, whole = lo + k, False
        if not whole:  # SUBPROOF(m, D[m], false) = {MTH(D[m])}: the old tree is not itself a complete subtree here
            proof.append(self._subtree(lo, hi))
        proof.reverse()
        return proof

    def _subtree(self, lo: int, hi: int) -> bytes:
        """MTH(D[lo:hi]) for a subtree of the RFC tree: its perfect blocks, largest first, folded from the right."""
        blocks = []
        while lo < hi:
            height = (hi - lo).bit_length() - 1
            if lo:
                height = min(height, (lo & -lo).bit_length() - 1)
            blocks.append(self.levels[height][lo >> height])
            lo += 1 << height
        result = blocks.pop()
        while blocks:
            result = node_hash(blocks.pop(), result)
        return result


def verify_inclusion(leaf: bytes, index: int, size: int, proof: Sequence[bytes], root: bytes) -> bool:
    """RFC 9162 section 2.1.3.2: does `proof` show leaf data `leaf` at `index` in the tree of `size` with `root`?"""
    if not 0 <= index < size or not _well_formed(proof, root):  # step 1
        return False
    fn, sn, r = index, size - 1, leaf_hash(leaf)  # steps 2 and 3
    for p in proof:  # step 4
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and hmac.compare_digest(r, root)  # step 5


def verify_consistency(old_size: int, new_size: int, old_root: bytes, new_root: bytes, proof: Sequence[bytes]) -> bool:
    """RFC 9162 section 2.1.4.2: is the tree of `new_size` with `new_root` an append-only extension of the old one?"""
    if not 0 <= old_size <= new_size or not _well_formed(proof, old_root, new_root):
        return False
    if old_size == 0:  # the empty tree precedes every tree; there is nothing to prove
        return not proof and hmac.compare_digest(old_root, EMPTY_ROOT)
    if old_size == new_size:
        return not proof and hmac.compare_digest(old_root, new_root)
    return _verify_consistency_path(old_size, new_size, old_root, new_root, list(proof))


def _verify_consistency_path(first: int, second: int, first_hash: bytes, second_hash: bytes, path: list[bytes]) -> bool:
    """Steps 1-7 of RFC 9162 section 2.1.4.2 for 0 < first < second, in the RFC's own names."""
    if not path:  # step 1
        return False
    if first & (first - 1) == 0:  # step 2
        path.insert(0, first_hash)
    fn, sn = first - 1, second - 1  # step 3
    while fn & 1:  # step 4
        fn, sn = fn >> 1, sn >> 1
    fr = sr = path[0]  # step 5
    for c in path[1:]:  # step 6
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr, sr = node_hash(c, fr), node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            sr = node_hash(sr, c)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and hmac.compare_digest(fr, first_hash) and hmac.compare_digest(sr, second_hash)  # step 7


class CompactRange(msgspec.Struct, frozen=True, kw_only=True):
    """A tree head kept in O(log n): the roots of the perfect subtrees covering leaves [0, size), largest first."""

    size: int = 0
    hashes: tuple[bytes, ...] = ()

    def __post_init__(self) -> None:
        if self.size < 0 or len(self.hashes) != self.size.bit_count():
            raise ValueError(f"a compact range of size {self.size} holds {self.size.bit_count()} hashes")
        if any(len(h) != HASH_SIZE for h in self.hashes):
            raise ValueError(f"a compact range holds {HASH_SIZE}-byte hashes")

    def append(self, leaf: bytes) -> CompactRange:
        """The range with one more leaf: O(log n)."""
        return self.extend((leaf,))

    def extend(self, leaves: Iterable[bytes]) -> CompactRange:
        """The range with these leaves appended, in order; amortised O(1) hashes per leaf."""
        hashes, size = list(self.hashes), self.size
        for data in leaves:
            h, carry = leaf_hash(data), size
            while carry & 1:  # equal-sized neighbours merge, like a binary counter's carries
                h = node_hash(hashes.pop(), h)
                carry >>= 1
            hashes.append(h)
            size += 1
        return CompactRange(size=size, hashes=tuple(hashes))

    def root(self) -> bytes:
        """MTH of the leaves so far: the perfect subtrees folded from the right."""
        if not self.hashes:
            return EMPTY_ROOT
        result = self.hashes[-1]
        for h in reversed(self.hashes[:-1]):
            result = node_hash(h, result)
        return result


def _split(n: int) -> int:
    """k, the largest power of two smaller than n (n > 1): where RFC 6962 splits a tree of n leaves."""
    return 1 << ((n - 1).bit_length() - 1)


def _check_range(old_size: int, new_size: int, size: int) -> None:
    if not 0 <= old_size <= new_size <= size:
        raise ValueError(f"sizes {old_size} <= {new_size} are not within a tree of {size} leaves")


def _well_formed(proof: Sequence[bytes], *roots: bytes) -> bool:
    """Every hash is 32 bytes: a wrong length is a malformed proof, never a crash or a lucky match."""
    return all(len(h) == HASH_SIZE for h in (*proof, *roots))
