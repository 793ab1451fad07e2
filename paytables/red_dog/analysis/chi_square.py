"""Pearson's chi-square test of observed round outcomes against their exact probabilities; standard library only."""

from __future__ import annotations

import math
from collections.abc import Mapping
from fractions import Fraction

import msgspec

from paytables.red_dog.analysis.rtp import compute
from paytables.red_dog.paytable import Paytable

_EPSILON = 1e-15
_TINY = 1e-300
_MAX_TERMS = 10_000


class ChiSquare(msgspec.Struct, frozen=True, kw_only=True):
    """The statistic, its degrees of freedom (outcomes - 1) and the chance of one at least as large by luck."""

    statistic: float
    degrees_of_freedom: int
    p_value: float
    rounds: int


def chi_square_p_value(statistic: float, degrees_of_freedom: int) -> float:
    """P(X >= statistic) for X chi-square distributed: the regularized upper incomplete gamma Q(dof/2, x/2)."""
    if degrees_of_freedom < 1:
        raise ValueError(f"degrees of freedom must be at least 1, got {degrees_of_freedom}")
    if not statistic >= 0:  # also refuses nan
        raise ValueError(f"a chi-square statistic is >= 0, got {statistic}")
    return upper_regularized_gamma(degrees_of_freedom / 2, statistic / 2)


def upper_regularized_gamma(a: float, x: float) -> float:
    """Q(a, x) = Gamma(a, x) / Gamma(a): a series below x = a + 1, a continued fraction above (both converge fast)."""
    if x == 0:
        return 1.0
    if math.isinf(x):
        return 0.0
    log_prefix = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:
        return max(0.0, 1.0 - math.exp(log_prefix) * _lower_series(a, x))
    return math.exp(log_prefix) * _upper_continued_fraction(a, x)


def _lower_series(a: float, x: float) -> float:
    """sum x^n / (a (a+1) ... (a+n)), which times the prefix is P(a, x)."""
    term = total = 1 / a
    denominator = a
    for _ in range(_MAX_TERMS):
        denominator += 1
        term *= x / denominator
        total += term
        if abs(term) < abs(total) * _EPSILON:
            return total
    raise ArithmeticError(f"the gamma series did not converge for a={a}, x={x}")


def _upper_continued_fraction(a: float, x: float) -> float:
    """Lentz's method for the continued fraction that times the prefix is Q(a, x)."""
    b = x + 1 - a
    c = 1 / _TINY
    d = 1 / b
    fraction = d
    for i in range(1, _MAX_TERMS):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1 / d
        delta = d * c
        fraction *= delta
        if abs(delta - 1) < _EPSILON:
            return fraction
    raise ArithmeticError(f"the gamma continued fraction did not converge for a={a}, x={x}")


def outcome_chi_square(observed: Mapping[str, int], probabilities: Mapping[str, Fraction]) -> ChiSquare:
    """Observed counts by outcome name (as `rtp` names them) against exact probabilities; absent names count 0."""
    unknown = set(observed) - set(probabilities)
    if unknown:
        raise ValueError(f"outcomes without a probability: {sorted(unknown)}")
    if sum(probabilities.values()) != 1 or any(p <= 0 for p in probabilities.values()):
        raise ValueError("the probabilities must be positive and add up to exactly 1")
    if any(n < 0 for n in observed.values()):
        raise ValueError("observed counts cannot be negative")
    rounds = sum(observed.values())
    dof = len(probabilities) - 1
    if rounds == 0:
        return ChiSquare(statistic=0.0, degrees_of_freedom=dof, p_value=1.0, rounds=0)
    statistic = sum(
        (Fraction(observed.get(name, 0)) - rounds * p) ** 2 / (rounds * p) for name, p in probabilities.items()
    )
    return ChiSquare(
        statistic=float(statistic),
        degrees_of_freedom=dof,
        p_value=chi_square_p_value(float(statistic), dof),
        rounds=rounds,
    )


def outcome_probabilities(paytable: Paytable, decks: int) -> dict[str, Fraction]:
    """The exact chance of each outcome on a fresh shoe, by `rtp`'s names (consecutive, pair_push, trips, spread_n)."""
    return {name: Fraction(p) for name, p in compute(paytable, decks).outcome_probabilities.items()}
