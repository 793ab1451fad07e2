"""Monte Carlo check of the exact RTP: play rounds through the real shoe and settlement code."""

from __future__ import annotations

import decimal
import functools
from collections.abc import Callable
from fractions import Fraction

import msgspec

from paytables.red_dog.analysis.rtp import decimal_string, optimal_raise, raise_spreads_of
from paytables.red_dog.paytable import Paytable
from paytables.red_dog.red_dog import Outcome, classify, settle
from shoe.cards import rank
from shoe.random_source import RandomSource
from shoe.shoe import fresh_deck_cards, shuffle_prefix

Z_99 = decimal.Decimal("2.5758293035489004")  # two-sided 99% normal quantile


class SimulationReport(msgspec.Struct, frozen=True, kw_only=True):
    paytable: str
    decks: int
    rounds: int
    observed_house_edge: str
    ci99_low: str
    ci99_high: str
    exact_house_edge: str
    exact_inside_ci99: bool


def simulate(
    paytable: Paytable,
    decks: int,
    rounds: int,
    source: RandomSource,
    exact_house_edge: Fraction,
    progress: Callable[[int], None] | None = None,
) -> SimulationReport:
    """Play `rounds` one-unit-ante rounds with the optimal raise strategy on a freshly shuffled shoe each."""
    if rounds < 2:
        raise ValueError("simulate at least 2 rounds")
    raise_spreads = raise_spreads_of(paytable, decks)

    @functools.cache
    def net_of(first: int, second: int, third: int) -> int:
        """A round's net on a one-unit ante by the real rules: the same three ranks always settle alike, so each of
        the 13**3 is settled once and looked up after (the rounds still come from the shoe's own shuffle)."""
        c = classify(first, second, paytable)
        raise_units = optimal_raise(paytable, c, raise_spreads)
        third_rank = None if c.outcome is Outcome.CONSECUTIVE else third
        return settle(paytable, first, second, third_rank, 1, raise_units).net

    ranks = [rank(card) for card in fresh_deck_cards(decks)]  # the shoe by rank: all a round's settlement reads
    total = square = 0
    step = max(rounds // 100, 1)
    for played in range(1, rounds + 1):
        # A prefix shuffle of any arrangement deals three cards exactly as a fresh shoe would.
        shuffle_prefix(ranks, 3, source)
        net = net_of(ranks[0], ranks[1], ranks[2])
        total += net
        square += net * net
        if progress is not None and played % step == 0:
            progress(played)
    return _report(paytable, decks, rounds, total, square, exact_house_edge)


def _report(paytable: Paytable, decks: int, rounds: int, total: int, square: int, exact: Fraction) -> SimulationReport:
    edge = Fraction(-total, rounds)
    variance = Fraction(square * rounds - total * total, rounds * (rounds - 1))
    ctx = decimal.Context(prec=40)
    half = ctx.multiply(Z_99, ctx.sqrt(ctx.divide(_dec(variance, ctx), decimal.Decimal(rounds))))
    centre = _dec(edge, ctx)
    low, high = centre - half, centre + half
    exact_dec = _dec(exact, ctx)
    return SimulationReport(
        paytable=paytable.id,
        decks=decks,
        rounds=rounds,
        observed_house_edge=decimal_string(edge, 6),
        ci99_low=str(low.quantize(decimal.Decimal("1e-6"))),
        ci99_high=str(high.quantize(decimal.Decimal("1e-6"))),
        exact_house_edge=decimal_string(exact, 6),
        exact_inside_ci99=low <= exact_dec <= high,
    )


def _dec(value: Fraction, ctx: decimal.Context) -> decimal.Decimal:
    return ctx.divide(decimal.Decimal(value.numerator), decimal.Decimal(value.denominator))
