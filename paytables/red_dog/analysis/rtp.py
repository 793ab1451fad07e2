"""Exact theoretical return of a paytable on a fresh n-deck shoe, by pushing every rank triple through `settle`."""

from __future__ import annotations

import decimal
from collections.abc import Collection, Iterator
from fractions import Fraction

import msgspec

from paytables.red_dog.paytable import MAX_SPREAD, Paytable
from paytables.red_dog.red_dog import Classification, Outcome, classify, round_outcome, settle

RANKS = range(2, 15)
PLACES = 10


class Theoretical(msgspec.Struct, frozen=True, kw_only=True):
    """The exact figures for one paytable and deck count; fractions as "p/q", decimals as strings."""

    paytable: str
    paytable_sha256: str
    decks: int
    house_edge: str
    house_edge_fraction: str
    rtp_per_total_bet: str
    rtp_per_total_bet_fraction: str
    min_raise_spread: int | None
    raise_spreads: list[int]
    never_raise_house_edge: str
    never_raise_house_edge_fraction: str
    std_dev_per_ante: str
    outcome_probabilities: dict[str, str]


def triples(decks: int) -> Iterator[tuple[int, int, int, Fraction]]:
    """Every (first, second, third) rank triple with its exact probability when dealt from a fresh shoe."""
    per_rank = 4 * decks
    size = 52 * decks
    total = size * (size - 1) * (size - 2)
    for first in RANKS:
        for second in RANKS:
            left_second = per_rank - (second == first)
            for third in RANKS:
                left_third = per_rank - (third == first) - (third == second)
                yield first, second, third, Fraction(per_rank * left_second * left_third, total)


def raise_gain_by_spread(paytable: Paytable, decks: int) -> dict[int, Fraction]:
    """For each spread, the expected extra net of raising one unit on a one-unit ante (joint, not conditional)."""
    gains = dict.fromkeys(range(1, MAX_SPREAD + 1), Fraction(0))
    for first, second, third, p in triples(decks):
        c = classify(first, second, paytable)
        if c.spread is None:
            continue
        raised = settle(paytable, first, second, third, 1, 1).net
        called = settle(paytable, first, second, third, 1, 0).net
        gains[c.spread] += p * (raised - called)
    return gains


def optimal_raise(paytable: Paytable, classification: Classification, raise_spreads: Collection[int]) -> int:
    """The optimal strategy's raise on a one-unit ante: the most allowed on a spread where raising gains, else 0."""
    if classification.spread in raise_spreads:
        return paytable.terms.max_raise_multiple
    return 0


def raise_spreads_of(paytable: Paytable, decks: int) -> list[int]:
    """The spreads on which raising the most gains: the optimal strategy."""
    return sorted(s for s, gain in raise_gain_by_spread(paytable, decks).items() if gain > 0)


def compute(paytable: Paytable, decks: int) -> Theoretical:
    """The exact figures, with the raise strategy derived: raise the maximum exactly when it gains."""
    raise_spreads = raise_spreads_of(paytable, decks)
    mean, square, wager = Fraction(0), Fraction(0), Fraction(0)
    never = Fraction(0)
    probabilities = dict.fromkeys(outcome_keys(), Fraction(0))
    for first, second, third, p in triples(decks):
        c = classify(first, second, paytable)
        raise_units = optimal_raise(paytable, c, raise_spreads)
        third_rank = None if c.outcome is Outcome.CONSECUTIVE else third
        settled = settle(paytable, first, second, third_rank, 1, raise_units)
        mean += p * settled.net
        square += p * settled.net * settled.net
        wager += p * (1 + raise_units)
        never += p * settle(paytable, first, second, third_rank, 1, 0).net
        probabilities[outcome_key(round_outcome(c, first, third), c.spread)] += p
    return Theoretical(
        paytable=paytable.id,
        paytable_sha256=paytable.sha256,
        decks=decks,
        house_edge=decimal_string(-mean),
        house_edge_fraction=fraction_string(-mean),
        rtp_per_total_bet=decimal_string(1 + mean / wager),
        rtp_per_total_bet_fraction=fraction_string(1 + mean / wager),
        min_raise_spread=min(raise_spreads) if raise_spreads else None,
        raise_spreads=raise_spreads,
        never_raise_house_edge=decimal_string(-never),
        never_raise_house_edge_fraction=fraction_string(-never),
        std_dev_per_ante=sqrt_string(square - mean * mean),
        outcome_probabilities={name: fraction_string(p) for name, p in probabilities.items()},
    )


def outcome_keys() -> list[str]:
    """Every outcome key, in the order the reports list them."""
    return ["consecutive", "pair_push", "trips", *(f"spread_{s}" for s in range(1, MAX_SPREAD + 1))]


def outcome_key(outcome: Outcome, spread: int | None) -> str:
    """An outcome as the reports name it: consecutive, pair_push, trips, spread_1..spread_11."""
    if outcome is Outcome.PAIR:
        return "pair_push"
    if outcome is Outcome.SPREAD:
        return f"spread_{spread}"
    return outcome.value  # consecutive or trips


def fraction_string(value: Fraction) -> str:
    return f"{value.numerator}/{value.denominator}"


_context = decimal.Context(prec=60, rounding=decimal.ROUND_HALF_EVEN)


def decimal_string(value: Fraction, places: int = PLACES) -> str:
    """The fraction as a decimal string rounded half-even to `places` places; exact arithmetic throughout."""
    quotient = _context.divide(decimal.Decimal(value.numerator), decimal.Decimal(value.denominator))
    return str(quotient.quantize(decimal.Decimal(1).scaleb(-places), context=_context))


def sqrt_string(value: Fraction, places: int = PLACES) -> str:
    """The square root of a non-negative fraction as a decimal string."""
    quotient = _context.divide(decimal.Decimal(value.numerator), decimal.Decimal(value.denominator))
    return str(_context.sqrt(quotient).quantize(decimal.Decimal(1).scaleb(-places), context=_context))
