"""Latency percentiles by the nearest-rank rule: every figure reported is a latency that was actually observed."""

from __future__ import annotations

import math
from collections.abc import Sequence

import msgspec

PERCENTILES = (50, 95, 99)


class LatencySummary(msgspec.Struct, frozen=True, kw_only=True):
    count: int
    p50_ms: float
    p95_ms: float
    p99_ms: float
    max_ms: float
    mean_ms: float


def nearest_rank(ordered: Sequence[int], percent: float) -> int:
    """The smallest value with at least `percent` % of the values at or below it (ordered ascending, not empty)."""
    if not ordered:
        raise ValueError("no values")
    if not 0 < percent <= 100:
        raise ValueError(f"percent must be in (0, 100], got {percent}")
    return ordered[math.ceil(percent / 100 * len(ordered)) - 1]


def summarise(micros: Sequence[int]) -> LatencySummary:
    """Percentiles, maximum and mean of latencies given in microseconds, reported in milliseconds."""
    if not micros:
        return LatencySummary(count=0, p50_ms=0.0, p95_ms=0.0, p99_ms=0.0, max_ms=0.0, mean_ms=0.0)
    ordered = sorted(micros)
    p50, p95, p99 = (nearest_rank(ordered, p) / 1000 for p in PERCENTILES)
    return LatencySummary(
        count=len(ordered),
        p50_ms=p50,
        p95_ms=p95,
        p99_ms=p99,
        max_ms=ordered[-1] / 1000,
        mean_ms=round(sum(ordered) / len(ordered) / 1000, 3),
    )
