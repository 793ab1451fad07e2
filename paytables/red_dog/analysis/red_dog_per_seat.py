"""Exact RTP of Red Dog when every seat is dealt its own cards: the usual raise strategy, and a seat that counts.

The per-seat deal, from one freshly shuffled shoe with S seats: the first card to every seat in seat order, then the
second to every seat in seat order; every pair then gets its third card, in seat order; after the shared raise window
every spread gets its third card, in seat order. Consecutive posts push with no third card.

Why the usual strategy (raise the maximum on one's own spread alone, on the spreads where that gains in the shared
deal) gives every seat exactly the shared deal's house edge: a shuffled shoe is a uniformly random order of its cards,
and the deal hands out positions in an order decided only by cards already dealt (a stopping rule). Whatever has been
seen, the unseen cards are still in uniformly random order, so the next card dealt is uniform over them. So a seat's
three cards (its two posts and the next card it is given, whenever that comes) are a uniformly random ordered triple
of distinct cards of the shoe, as the first three cards of a shared deal are: the same law of (first, second, third),
the same settlement, the same edge, for every seat. `per_seat_deal_law.seat_law` does not use this argument: it deals
every card in the real order, and the tests compare the law it finds with the fresh-shoe triple law, seat by seat.

A counting seat sees the other seats' posts and the pairs' third cards before the raise window closes. By the same
argument its third card is uniform over the cards it has not seen, so each unit it wagers on a spread has the expected
net `raise_value / unseen`, with `raise_value = between * odds - outside - L * posts` counted over the unseen cards
(L = 2 when a post loses double, else 1). It raises exactly when that is positive. Its edge is the mean of
`(1 + raise) * raise_value / unseen` over the law of what it sees, which `per_seat_views` finds exactly.
"""

from __future__ import annotations

import decimal
from collections import defaultdict
from fractions import Fraction

import msgspec

from paytables.red_dog.analysis import rtp
from paytables.red_dog.analysis.per_seat_deal_law import (
    LOWEST_RANK,
    Composition,
    Landing,
    SeatLaw,
    View,
    fresh_composition,
    seat_law,
)
from paytables.red_dog.analysis.per_seat_views import view_law
from paytables.red_dog.paytable import Paytable, PostRule
from paytables.red_dog.red_dog import settle

MAX_SEATS = 7  # the largest table the figures are computed for (under 10 s at 8 decks)
HIGHEST_RANK = 14


class Edges(msgspec.Struct, frozen=True, kw_only=True):
    """Exact per-seat means per one-unit ante: net and total wagered by strategy, and how often each raises."""

    usual_net: Fraction
    counting_net: Fraction
    usual_wager: Fraction
    counting_wager: Fraction
    raises_where_usual_calls: Fraction
    calls_where_usual_raises: Fraction


class PerSeatFigures(msgspec.Struct, frozen=True, kw_only=True):
    """The exact per-seat figures for one paytable, deck count and number of seats; fractions as "p/q"."""

    paytable: str
    paytable_sha256: str
    decks: int
    seats: int
    deal: str
    usual_house_edge: str
    usual_house_edge_fraction: str
    shared_house_edge: str
    shared_house_edge_fraction: str
    counting_house_edge: str
    counting_house_edge_fraction: str
    counting_gain: str  # usual minus counting house edge: what counting the other seats is worth, per ante
    counting_gain_fraction: str
    counting_rtp_per_total_bet: str
    counting_raises_where_usual_calls: str  # probability per hand
    counting_calls_where_usual_raises: str
    raise_spreads: list[int]


def raise_value(paytable: Paytable, spread: int, view: View) -> int:
    """`unseen` times the expected net of one unit wagered on `spread`, given what is left unseen."""
    between, posts, unseen = view
    post_loss = 2 if paytable.terms.post_rule is PostRule.LOSE_DOUBLE else 1
    return between * paytable.spread_odds(spread) - (unseen - between - posts) - post_loss * posts


def counting_raises(paytable: Paytable, spread: int, view: View) -> bool:
    """The counting seat's decision: raise exactly when each unit wagered has a positive expected net."""
    return raise_value(paytable, spread, view) > 0


def compute(paytable: Paytable, decks: int, seats: int) -> PerSeatFigures:
    """The exact figures at `seats` seats of a fresh `decks`-deck shoe."""
    shared = rtp.compute(paytable, decks)
    edges = per_seat_edges(paytable, fresh_composition(decks), seats, frozenset(shared.raise_spreads))
    gain = edges.counting_net - edges.usual_net
    return PerSeatFigures(
        paytable=paytable.id,
        paytable_sha256=paytable.sha256,
        decks=decks,
        seats=seats,
        deal="per_seat",
        usual_house_edge=_decimal(-edges.usual_net),
        usual_house_edge_fraction=rtp.fraction_string(-edges.usual_net),
        shared_house_edge=shared.house_edge,
        shared_house_edge_fraction=shared.house_edge_fraction,
        counting_house_edge=_decimal(-edges.counting_net),
        counting_house_edge_fraction=rtp.fraction_string(-edges.counting_net),
        counting_gain=_decimal(gain),
        counting_gain_fraction=rtp.fraction_string(gain),
        counting_rtp_per_total_bet=_decimal(1 + edges.counting_net / edges.counting_wager),
        counting_raises_where_usual_calls=_decimal(edges.raises_where_usual_calls),
        counting_calls_where_usual_raises=_decimal(edges.calls_where_usual_raises),
        raise_spreads=shared.raise_spreads,
    )


def _decimal(value: Fraction) -> str:
    """As `rtp.decimal_string`, but zero reads 0.0000000000 rather than 0E-10."""
    return f"{decimal.Decimal(rtp.decimal_string(value)):f}"


def per_seat_edges(paytable: Paytable, composition: Composition, seats: int, raise_spreads: frozenset[int]) -> Edges:
    """Both strategies' exact means for one seat, the usual one raising on `raise_spreads`, from the views' law."""
    if not 1 <= seats <= MAX_SEATS or 3 * seats > sum(composition):
        raise ValueError(f"{seats} seats cannot be dealt from {sum(composition)} cards")
    size = sum(composition)
    limit = paytable.terms.max_raise_multiple
    means = _Means()
    for low, low_count in enumerate(composition, LOWEST_RANK):
        trips = Fraction(low_count * (low_count - 1) * max(low_count - 2, 0), size * (size - 1) * (size - 2))
        means.add(trips, 1, (settle(paytable, low, low, low, 1).net,) * 2, (0, 0))
        for high, high_count in enumerate(composition[low - LOWEST_RANK + 2 :], low + 2):
            spread = high - low - 1
            usually = limit if spread in raise_spreads else 0
            posts = Fraction(2 * low_count * high_count, size * (size - 1))
            for view, p in view_law(composition, seats, low, high).items() if posts else ():
                value = raise_value(paytable, spread, view)
                counts = limit if value > 0 else 0
                # each unit wagered nets value / unseen on average
                means.add(posts * p, view[2], ((1 + usually) * value, (1 + counts) * value), (usually, counts))
    return means.edges()


def enumerated_edges(
    paytable: Paytable, composition: Composition, seats: int, seat: int, raise_spreads: frozenset[int]
) -> Edges:
    """Both strategies' exact means for seat `seat`, from dealing every card in the real order and `settle`."""
    return edges_of_law(paytable, seat_law(composition, seats, seat), raise_spreads)


def edges_of_law(paytable: Paytable, law: SeatLaw, raise_spreads: frozenset[int]) -> Edges:
    """Both strategies' exact means over one seat's law of hands, each hand settled by the rules."""
    limit = paytable.terms.max_raise_multiple
    means = _Means()
    for (first, second, landing, view), p in law.items():
        spread = abs(first - second) - 1
        usually = limit if view is not None and spread in raise_spreads else 0
        counts = limit if view is not None and counting_raises(paytable, spread, view) else 0
        third = third_rank(first, second, landing)
        nets = (
            settle(paytable, first, second, third, 1, usually).net,
            settle(paytable, first, second, third, 1, counts).net,
        )
        means.add(p, 1, nets, (usually, counts))
    return means.edges()


class _Means:
    """Sums over hands for both strategies, kept in integers by denominator (Fraction sums would cost seconds)."""

    def __init__(self) -> None:
        self._sums: dict[int, list[int]] = defaultdict(lambda: [0] * 6)

    def add(self, p: Fraction, divisor: int, nets: tuple[int, int], raises: tuple[int, int]) -> None:
        """Add a hand of probability `p` whose nets (usual, counting) are to be divided by `divisor`."""
        row, n = self._sums[p.denominator * divisor], p.numerator
        row[0] += n * nets[0]
        row[1] += n * nets[1]
        row[2] += n * divisor * raises[0]
        row[3] += n * divisor * raises[1]
        row[4] += n * divisor * (raises[1] > raises[0])
        row[5] += n * divisor * (raises[1] < raises[0])

    def edges(self) -> Edges:
        usual, counting, usual_wager, counting_wager, up, down = (
            sum((Fraction(row[k], d) for d, row in self._sums.items()), Fraction(0)) for k in range(6)
        )
        return Edges(
            usual_net=usual,
            counting_net=counting,
            usual_wager=1 + usual_wager,
            counting_wager=1 + counting_wager,
            raises_where_usual_calls=up,
            calls_where_usual_raises=down,
        )


def third_rank(first: int, second: int, landing: Landing) -> int | None:
    """A third card that lands where `landing` says: settlement reads nothing else of it."""
    low, high = sorted((first, second))
    match landing:
        case Landing.BETWEEN:
            return low + 1
        case Landing.POST | Landing.MATCH:
            return low
        case Landing.OUTSIDE | Landing.MISS:
            return high + 1 if high < HIGHEST_RANK else low - 1
        case Landing.NONE:
            return None
