"""How long the Merkle functions take over a table of 200,000 records (best of several runs, one core)."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable

from audit.merkle import CompactRange, build, root, verify_consistency, verify_inclusion

RECORDS = 200_000


def best(action: Callable[[], object], runs: int) -> float:
    """The fastest of `runs` timings, in seconds: the least disturbed by other work on a shared machine."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    hashes = [hashlib.sha256(seq.to_bytes(8, "big")).digest() for seq in range(1, RECORDS + 1)]
    tree = build(hashes)
    head = CompactRange().extend(hashes)
    index, old = RECORDS * 3 // 5, RECORDS * 3 // 4
    proof, old_proof = tree.inclusion_proof(index, RECORDS), tree.consistency_proof(old, RECORDS)
    rows = [
        ("root of the list", best(lambda: root(hashes), 5)),
        ("build, then root and inclusion proof", best(lambda: _root_and_proof(hashes, index), 5)),
        ("inclusion proof from a built tree", best(lambda: tree.inclusion_proof(index, RECORDS), 100)),
        ("consistency proof from a built tree", best(lambda: tree.consistency_proof(old, RECORDS), 100)),
        (
            "verify an inclusion proof",
            best(lambda: verify_inclusion(hashes[index], index, RECORDS, proof, tree.root()), 100),
        ),
        (
            "verify a consistency proof",
            best(lambda: verify_consistency(old, RECORDS, tree.root(old), tree.root(), old_proof), 100),
        ),
        ("compact range: extend by every record", best(lambda: CompactRange().extend(hashes), 3)),
        ("compact range: append one record", best(lambda: head.append(hashes[0]), 1000)),
    ]
    print(f"{RECORDS:,} leaves")
    for name, seconds in rows:
        print(f"  {name:<40} {seconds * 1000:10.3f} ms")


def _root_and_proof(hashes: list[bytes], index: int) -> tuple[bytes, list[bytes]]:
    tree = build(hashes)
    return tree.root(), tree.inclusion_proof(index, len(hashes))


if __name__ == "__main__":
    main()
