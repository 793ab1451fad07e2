"""Monte Carlo check of the per-seat figures: deal per-seat rounds from shuffled shoes and play both strategies."""

from __future__ import annotations

import decimal
from collections.abc import Sequence
from fractions import Fraction

import msgspec

from paytables.red_dog.analysis.red_dog_per_seat import Edges, counting_raises
from paytables.red_dog.analysis.rtp import decimal_string, raise_gain_by_spread
from paytables.red_dog.analysis.simulate import Z_99
from paytables.red_dog.paytable import Paytable
from paytables.red_dog.red_dog import Outcome, classify, settle
from shoe.cards import DECK, rank
from shoe.random_source import RandomSource
from shoe.shoe import fresh_deck_cards, shuffle_prefix

Cards = tuple[int, int, int | None]  # a seat's first post, second post, third card (None after consecutive posts)
_RANK = {code: rank(code) for code in DECK}


class Estimate(msgspec.Struct, frozen=True, kw_only=True):
    """An observed mean per seat and one-unit ante, its 99% interval, and whether the exact figure lies inside."""

    observed: str
    ci99_low: str
    ci99_high: str
    exact: str
    exact_inside_ci99: bool


class PerSeatSimulationReport(msgspec.Struct, frozen=True, kw_only=True):
    """House edges of the usual and the counting strategy; the counter's gain and deviations, paired on the same cards.

    A gain that comes from hands too rare to be dealt in the run is observed as zero with a zero-width interval:
    `deviations` (hands where the two strategies decided differently) says whether the run could see it at all.
    """

    paytable: str
    decks: int
    seats: int
    rounds: int
    usual_house_edge: Estimate
    counting_house_edge: Estimate
    counting_gain: Estimate
    deviation_rate: Estimate  # per hand: the counter raises where the usual strategy calls, or the other way round
    deviations: int


def deal_per_seat(ranks: Sequence[int], seats: int) -> tuple[list[Cards], Sequence[int]]:
    """Each seat's cards and the cards face up in the raise window, dealing `ranks` in the per-seat order."""
    posts = [(ranks[i], ranks[seats + i]) for i in range(seats)]
    thirds: list[int | None] = [None] * seats
    position = 2 * seats
    for i, (a, b) in enumerate(posts):
        if a == b:
            thirds[i], position = ranks[position], position + 1
    face_up = ranks[:position]  # every post, then the pairs' third cards
    for i, (a, b) in enumerate(posts):
        if abs(a - b) > 1:
            thirds[i], position = ranks[position], position + 1
    return [(a, b, third) for (a, b), third in zip(posts, thirds, strict=True)], face_up


def simulate_per_seat(
    paytable: Paytable, decks: int, seats: int, rounds: int, source: RandomSource, exact: Edges
) -> PerSeatSimulationReport:
    """Play `rounds` per-seat rounds of one-unit antes at every seat; each round from a freshly shuffled shoe."""
    if rounds < 2:
        raise ValueError("simulate at least 2 rounds")
    raise_spreads = frozenset(s for s, gain in raise_gain_by_spread(paytable, decks).items() if gain > 0)
    cards = fresh_deck_cards(decks)
    sums = [[0, 0] for _ in range(4)]  # usual, counting, gain, deviations: sums of round totals and of their squares
    for _ in range(rounds):
        # A prefix shuffle deals the first 3S cards exactly as a fully shuffled shoe would.
        shuffle_prefix(cards, 3 * seats, source)
        hands, face_up = deal_per_seat([_RANK[c] for c in cards[: 3 * seats]], seats)
        unseen = [0, 0, *[4 * decks] * 13]  # indexed by rank 2..14
        for r in face_up:
            unseen[r] -= 1
        usual, counting, deviations = _play(paytable, hands, unseen, raise_spreads)
        for entry, value in zip(sums, (usual, counting, counting - usual, deviations), strict=True):
            entry[0] += value
            entry[1] += value * value
    n, s = rounds, seats
    return PerSeatSimulationReport(
        paytable=paytable.id,
        decks=decks,
        seats=seats,
        rounds=rounds,
        usual_house_edge=_estimate(-sums[0][0], sums[0][1], n, s, -exact.usual_net),
        counting_house_edge=_estimate(-sums[1][0], sums[1][1], n, s, -exact.counting_net),
        counting_gain=_estimate(sums[2][0], sums[2][1], n, s, exact.counting_net - exact.usual_net),
        deviation_rate=_estimate(
            sums[3][0], sums[3][1], n, s, exact.raises_where_usual_calls + exact.calls_where_usual_raises
        ),
        deviations=sums[3][0],
    )


def _play(
    paytable: Paytable, hands: list[Cards], unseen: list[int], raise_spreads: frozenset[int]
) -> tuple[int, int, int]:
    """The round's net over all seats by strategy, usual then counting, and how many seats they decided apart."""
    usual = counting = deviations = 0
    limit = paytable.terms.max_raise_multiple
    for first, second, third in hands:
        c = classify(first, second, paytable)
        if c.outcome is not Outcome.SPREAD or c.spread is None:
            net = settle(paytable, first, second, third, 1).net
            usual, counting = usual + net, counting + net
            continue
        low, high = sorted((first, second))
        view = (sum(unseen[low + 1 : high]), unseen[low] + unseen[high], sum(unseen))
        usually, counts = c.spread in raise_spreads, counting_raises(paytable, c.spread, view)
        usual += settle(paytable, first, second, third, 1, limit * usually).net
        counting += settle(paytable, first, second, third, 1, limit * counts).net
        deviations += usually != counts
    return usual, counting, deviations


def _estimate(total: int, square: int, rounds: int, seats: int, exact: Fraction) -> Estimate:
    """The mean per seat of round totals, with the normal 99% interval from their sample variance."""
    mean = Fraction(total, rounds * seats)
    variance = Fraction(square * rounds - total * total, rounds * (rounds - 1))
    ctx = decimal.Context(prec=40)
    half = ctx.multiply(Z_99, ctx.sqrt(_dec(variance / rounds, ctx))) / seats
    low, high = _dec(mean, ctx) - half, _dec(mean, ctx) + half
    return Estimate(
        observed=decimal_string(mean, 6),
        ci99_low=str(low.quantize(decimal.Decimal("1e-6"))),
        ci99_high=str(high.quantize(decimal.Decimal("1e-6"))),
        exact=decimal_string(exact, 6),
        exact_inside_ci99=low <= _dec(exact, ctx) <= high,
    )


def _dec(value: Fraction, ctx: decimal.Context) -> decimal.Decimal:
    return ctx.divide(decimal.Decimal(value.numerator), decimal.Decimal(value.denominator))
