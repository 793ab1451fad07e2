"""The figures of a PAR sheet (the game's mathematics, figure by figure, as test labs ask for it), all exact.

Every figure comes from pushing each (first, second, third) rank triple of a fresh shoe, with its exact probability,
through `settle`, the function that pays real rounds; the per-seat counting figures come from `red_dog_per_seat`.
Money is per one-unit initial ante. "Debited" is every debit of a bet (ante, raise and any post penalty), "paid" every
credit (stake included): the RTP is expected paid over expected debited, the figure `reddog report rtp` observes.
"""

from __future__ import annotations

import enum
import math
from collections import defaultdict
from fractions import Fraction
from statistics import NormalDist

import msgspec

from paytables.red_dog.analysis.per_seat_deal_law import fresh_composition
from paytables.red_dog.analysis.red_dog_per_seat import per_seat_edges
from paytables.red_dog.analysis.rtp import outcome_key, outcome_keys, raise_gain_by_spread, raise_spreads_of, triples
from paytables.red_dog.paytable import MAX_SPREAD, Paytable
from paytables.red_dog.red_dog import Outcome, classify, round_outcome, settle

TOLERANCES = (Fraction(5, 1000), Fraction(1, 1000))  # ±0.5 and ±0.1 percentage points of RTP
CONFIDENCES = (Fraction(95, 100), Fraction(99, 100))


class Strategy(enum.StrEnum):
    OPTIMAL = "optimal"  # raise the most allowed exactly on the spreads where raising gains
    NEVER_RAISE = "never_raise"


class Third(enum.StrEnum):
    """Where the third card falls, in the rules' words: all that settlement reads of it."""

    NONE = "no third card"
    SAME = "same rank as the pair"
    OTHER = "another rank"
    BETWEEN = "between the posts"
    POST = "equal to a post"
    OUTSIDE = "outside the posts"


class OutcomeLine(msgspec.Struct, frozen=True, kw_only=True):
    """One way a round can end, with what it pays and debits per unit ante and its part of the RTP and net."""

    outcome: str  # as `reddog rtp` names it: consecutive, pair_push, trips, spread_1..spread_11
    third: Third
    probability: Fraction
    raised: bool
    paid: int
    debited: int
    rtp_share: Fraction  # probability * paid / expected debited: the lines add up to the RTP
    net_share: Fraction  # probability * (paid - debited): the lines add up to the expected net per ante


class SpreadLine(msgspec.Struct, frozen=True, kw_only=True):
    """The raise decision on one spread: how likely the third card is between, and what each unit wagered nets."""

    spread: int
    odds: int
    probability: Fraction  # of posts with this spread
    win: Fraction  # of the third card between the posts, given the spread
    unit_net: Fraction  # expected net of each unit wagered (so of each unit raised), given the spread
    raises: bool


class Convergence(msgspec.Struct, frozen=True, kw_only=True):
    """Rounds of one bet each for the observed RTP to lie within `tolerance` of the exact one with `confidence`."""

    tolerance: Fraction
    confidence: Fraction
    z: float  # the two-sided standard normal quantile
    rounds: int


class StrategyFigures(msgspec.Struct, frozen=True, kw_only=True):
    """The exact figures of one way of playing, per one-unit initial ante."""

    strategy: Strategy
    raise_spreads: list[int]
    expected_net: Fraction
    expected_bet: Fraction  # ante + raise
    expected_debited: Fraction  # ante + raise + post penalty
    expected_paid: Fraction
    net_variance: Fraction  # per initial ante
    rtp_variance: Fraction  # of one round's contribution to the observed RTP (delta method): sigma^2 / n for n rounds
    hit_frequency: Fraction  # the round nets more than nothing
    push_frequency: Fraction
    loss_frequency: Fraction
    max_win: int
    max_loss: int
    net_distribution: dict[int, Fraction]
    outcomes: list[OutcomeLine]
    convergence: list[Convergence]

    @property
    def house_edge(self) -> Fraction:
        return -self.expected_net

    @property
    def house_edge_per_total_bet(self) -> Fraction:
        return -self.expected_net / self.expected_bet

    @property
    def rtp(self) -> Fraction:
        return self.expected_paid / self.expected_debited


class CountingSeat(msgspec.Struct, frozen=True, kw_only=True):
    """A per-seat table: one seat that counts the other seats' cards before raising, against the usual strategy."""

    seats: int
    usual_net: Fraction
    counting_net: Fraction
    counting_bet: Fraction
    raises_where_usual_calls: Fraction
    calls_where_usual_raises: Fraction

    @property
    def gain(self) -> Fraction:
        return self.counting_net - self.usual_net


class ParSheet(msgspec.Struct, frozen=True, kw_only=True):
    paytable: Paytable
    decks: int
    spreads: list[SpreadLine]
    optimal: StrategyFigures
    never_raise: StrategyFigures
    counting: CountingSeat | None = None


def par_sheet(paytable: Paytable, decks: int, seats: int | None = None) -> ParSheet:
    """Every figure of the sheet at `decks` decks; with `seats`, a per-seat table's counting seat too."""
    raise_spreads = raise_spreads_of(paytable, decks)
    optimal = strategy_figures(paytable, decks, Strategy.OPTIMAL, raise_spreads)
    counting = None
    if seats is not None:
        edges = per_seat_edges(paytable, fresh_composition(decks), seats, frozenset(raise_spreads))
        counting = CountingSeat(
            seats=seats,
            usual_net=edges.usual_net,
            counting_net=edges.counting_net,
            counting_bet=edges.counting_wager,
            raises_where_usual_calls=edges.raises_where_usual_calls,
            calls_where_usual_raises=edges.calls_where_usual_raises,
        )
    return ParSheet(
        paytable=paytable,
        decks=decks,
        spreads=spread_lines(paytable, decks, raise_spreads, optimal.outcomes),
        optimal=optimal,
        never_raise=strategy_figures(paytable, decks, Strategy.NEVER_RAISE, []),
        counting=counting,
    )


def spread_lines(
    paytable: Paytable, decks: int, raise_spreads: list[int], lines: list[OutcomeLine]
) -> list[SpreadLine]:
    """The strategy table: each unit raised on a spread gains what each unit of the ante is expected to net there."""
    gains = raise_gain_by_spread(paytable, decks)
    found = []
    for spread in range(1, MAX_SPREAD + 1):
        mine = [line for line in lines if line.outcome == f"spread_{spread}"]
        posts = sum((line.probability for line in mine), Fraction(0))
        between = sum((line.probability for line in mine if line.third is Third.BETWEEN), Fraction(0))
        found.append(
            SpreadLine(
                spread=spread,
                odds=paytable.spread_odds(spread),
                probability=posts,
                win=between / posts,
                unit_net=gains[spread] / posts / paytable.terms.max_raise_multiple,
                raises=spread in raise_spreads,
            )
        )
    return found


class _Line(msgspec.Struct, kw_only=True):
    """An outcome line while the triples are added up: how often, and the one way it settles."""

    probability: Fraction
    raised: bool
    paid: int
    debited: int


def strategy_figures(paytable: Paytable, decks: int, strategy: Strategy, raise_spreads: list[int]) -> StrategyFigures:
    """One strategy's figures: every triple settled by the rules, grouped by how the round ended."""
    grouped: dict[tuple[str, Third], _Line] = {}
    distribution: dict[int, Fraction] = defaultdict(Fraction)
    bet = Fraction(0)
    for first, second, third, p in triples(decks):
        c = classify(first, second, paytable)
        raise_units = paytable.terms.max_raise_multiple if c.spread in raise_spreads else 0
        third_rank = None if c.outcome is Outcome.CONSECUTIVE else third
        settled = settle(paytable, first, second, third_rank, 1, raise_units)
        key = (outcome_key(round_outcome(c, first, third_rank), c.spread), third_of(first, second, third_rank))
        way = _Line(probability=Fraction(0), raised=bool(raise_units), paid=settled.payout, debited=settled.wagered)
        line = grouped.setdefault(key, way)
        if (line.raised, line.paid, line.debited) != (way.raised, way.paid, way.debited):
            raise AssertionError(f"{key} settles two ways")  # a line is one way to end: one payout, one debit
        line.probability += p
        distribution[settled.net] += p
        bet += p * (1 + raise_units)
    paid = sum((g.probability * g.paid for g in grouped.values()), Fraction(0))
    debited = sum((g.probability * g.debited for g in grouped.values()), Fraction(0))
    net, rtp = paid - debited, paid / debited
    outcomes = [
        OutcomeLine(
            outcome=name,
            third=third,
            probability=g.probability,
            raised=g.raised,
            paid=g.paid,
            debited=g.debited,
            rtp_share=g.probability * g.paid / debited,
            net_share=g.probability * (g.paid - g.debited),
        )
        for (name, third), g in sorted(grouped.items(), key=lambda item: _line_order(*item[0]))
    ]
    # The observed RTP of n rounds, sum paid / sum debited, is near rtp + (sum of paid - rtp * debited) / (n * E
    # debited): a mean of n independent terms, each of mean 0 and this variance (the delta method).
    rtp_variance = sum((o.probability * (o.paid - rtp * o.debited) ** 2 for o in outcomes), Fraction(0)) / debited**2
    return StrategyFigures(
        strategy=strategy,
        raise_spreads=list(raise_spreads),
        expected_net=net,
        expected_bet=bet,
        expected_debited=debited,
        expected_paid=paid,
        net_variance=sum((p * (n - net) ** 2 for n, p in distribution.items()), Fraction(0)),
        rtp_variance=rtp_variance,
        hit_frequency=sum((p for n, p in distribution.items() if n > 0), Fraction(0)),
        push_frequency=distribution.get(0, Fraction(0)),
        loss_frequency=sum((p for n, p in distribution.items() if n < 0), Fraction(0)),
        max_win=max(n for n, p in distribution.items() if p),
        max_loss=-min(n for n, p in distribution.items() if p),
        net_distribution=dict(sorted(distribution.items())),
        outcomes=outcomes,
        convergence=convergence(rtp_variance),
    )


def convergence(rtp_variance: Fraction) -> list[Convergence]:
    """Normal approximation: n rounds put the observed RTP within z * sigma / sqrt(n) of the exact one, so the rounds
    needed for a tolerance t are the least n with n >= (z * sigma / t)^2."""
    found = []
    for tolerance in TOLERANCES:
        for confidence in CONFIDENCES:
            z = NormalDist().inv_cdf(float((1 + confidence) / 2))
            found.append(
                Convergence(
                    tolerance=tolerance,
                    confidence=confidence,
                    z=z,
                    rounds=math.ceil(z * z * float(rtp_variance / tolerance**2)),
                )
            )
    return found


def third_of(first: int, second: int, third: int | None) -> Third:
    """Where the third card fell against the posts."""
    low, high = sorted((first, second))
    if third is None:
        return Third.NONE
    if low == high:
        return Third.SAME if third == low else Third.OTHER
    if low < third < high:
        return Third.BETWEEN
    return Third.POST if third in (low, high) else Third.OUTSIDE


_ORDER = outcome_keys()


def _line_order(name: str, third: Third) -> tuple[int, int]:
    return _ORDER.index(name), list(Third).index(third)
