"""The PAR sheet's figures computed a second way: every card triple counted by hand and settled from the English rules
(`oracle.expected`), never through the code's enumeration or `settle`."""

from __future__ import annotations

import functools
from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction

from tests.unit.oracle import RANKS, expected, third_card_class

# Where the third card falls, in the words of `oracle.third_card_class` and of the pair rule, as the sheet says it.
WHERE = {
    "strictly between": "between the posts",
    "equal to the low post": "equal to a post",
    "equal to the high post": "equal to a post",
    "below the low post": "outside the posts",
    "above the high post": "outside the posts",
}


@dataclass
class Line:
    probability: Fraction = Fraction(0)
    paid: int = 0
    debited: int = 0
    raised: bool = False


@dataclass
class Brute:
    """One strategy's figures per one-unit ante, summed over every ordered triple of cards."""

    lines: dict[tuple[str, str], Line] = field(default_factory=dict)
    nets: dict[int, Fraction] = field(default_factory=lambda: defaultdict(Fraction))
    paid: Fraction = Fraction(0)
    debited: Fraction = Fraction(0)
    bet: Fraction = Fraction(0)

    @property
    def net(self) -> Fraction:
        return self.paid - self.debited

    @property
    def variance(self) -> Fraction:
        mean = self.net
        return sum((p * (n - mean) ** 2 for n, p in self.nets.items()), Fraction(0))

    @property
    def rtp(self) -> Fraction:
        return self.paid / self.debited

    @property
    def rtp_variance(self) -> Fraction:
        """Of paid - rtp * debited over the expected debit: the delta method's variance of one round's term."""
        r = self.rtp
        square = sum((x.probability * (x.paid - r * x.debited) ** 2 for x in self.lines.values()), Fraction(0))
        return square / self.debited**2


def name_and_place(first: int, second: int, third: int) -> tuple[str, str]:
    """The outcome (as `reddog rtp` names it) and where the third card fell, from the rules' words."""
    low, high = min(first, second), max(first, second)
    if high - low == 1:
        return "consecutive", "no third card"
    if low == high:
        return ("trips", "same rank as the pair") if third == low else ("pair_push", "another rank")
    return f"spread_{high - low - 1}", WHERE[third_card_class(first, second, third)]


def brute_force(paytable_id: str, decks: int, raise_spreads: frozenset[int]) -> Brute:
    """Every ordered triple of distinct cards of a fresh shoe, counted rank by rank, each settled by the rules."""
    per_rank, size = 4 * decks, 52 * decks
    triples = size * (size - 1) * (size - 2)
    out = Brute()
    for a in RANKS:
        for b in RANKS:
            for c in RANKS:
                ways = per_rank * (per_rank - (a == b)) * (per_rank - (c == a) - (c == b))
                if not ways:
                    continue
                p = Fraction(ways, triples)
                spread = abs(a - b) - 1
                raised = 1 if spread >= 1 and spread in raise_spreads else 0
                e = expected(paytable_id, a, b, None if spread == 0 else c, 1, raised)
                debited = 1 + raised + e.penalty
                line = out.lines.setdefault(name_and_place(a, b, c), Line(paid=e.paid, debited=debited))
                assert (line.paid, line.debited) == (e.paid, debited)
                line.probability += p
                line.raised = bool(raised)
                out.nets[e.net] += p
                out.paid += p * e.paid
                out.debited += p * debited
                out.bet += p * (1 + raised)
    return out


def raise_spreads_by_hand(paytable_id: str, decks: int) -> frozenset[int]:
    """The spreads where raising one unit has a positive expected net, by counting the third cards."""
    per_rank = 4 * decks
    found = set()
    for spread in range(1, 12):
        low, high = 2, 2 + spread + 1  # any posts with this spread: only the counts of the classes matter
        gain = 0
        for c in RANKS:
            left = per_rank - (c in (low, high))
            gain += left * (
                expected(paytable_id, low, high, c, 1, 1).net - expected(paytable_id, low, high, c, 1, 0).net
            )
        if gain > 0:
            found.add(spread)
    return frozenset(found)


@dataclass
class SeatOne:
    """Seat 1 of a two-seat per-seat deal, per one-unit ante: the usual and the counting strategy."""

    usual_net: Fraction = Fraction(0)
    counting_net: Fraction = Fraction(0)
    counting_bet: Fraction = Fraction(1)
    raises_where_usual_calls: Fraction = Fraction(0)
    calls_where_usual_raises: Fraction = Fraction(0)


@functools.cache
def seat_one_of_two(paytable_id: str, decks: int, raise_spreads: frozenset[int]) -> SeatOne:
    """Deal as the rules say: first posts to seats 1 and 2, second posts to 1 and 2, the pairs' third cards in seat
    order, the raise window, then the spreads' third cards in seat order. Seat 1's third card is then the next card
    of the shoe, so uniform over the cards it has not seen. It counts: it raises when that favours the raise."""
    counts = dict.fromkeys(RANKS, 4 * decks)
    settled = {
        (a, b, c, r): expected(paytable_id, a, b, c, 1, r).net
        for a in RANKS
        for b in RANKS
        for c in RANKS
        for r in (0, 1)
    }
    out = SeatOne()
    for (a1, a2, b1, b2), p in _draws(counts, 4):
        spread = abs(a1 - b1) - 1
        if spread < 1:  # consecutive or a pair: no decision, the same for both strategies
            if a1 == b1:
                left = _less(counts, (a1, a2, b1, b2))
                net = sum(n * settled[a1, b1, c, 0] for c, n in left.items())
                out.usual_net += p * Fraction(net, sum(left.values()))
                out.counting_net += p * Fraction(net, sum(left.values()))
            continue
        seen_first = _less(counts, (a1, a2, b1, b2))
        views = _draws(seen_first, 1) if a2 == b2 else [((), Fraction(1))]  # seat 2's pair deals its third now
        for more, q in views:
            unseen = _less(seen_first, more)
            cards = sum(unseen.values())
            nets = {r: sum(n * settled[a1, b1, c, r] for c, n in unseen.items()) for r in (0, 1)}
            usual = 1 if spread in raise_spreads else 0
            counts_raise = 1 if nets[1] > nets[0] else 0
            w = p * q
            out.usual_net += w * Fraction(nets[usual], cards)
            out.counting_net += w * Fraction(nets[counts_raise], cards)
            out.counting_bet += w * counts_raise
            out.raises_where_usual_calls += w * (counts_raise > usual)
            out.calls_where_usual_raises += w * (counts_raise < usual)
    return out


def _draws(counts: dict[int, int], k: int) -> list[tuple[tuple[int, ...], Fraction]]:
    """Every sequence of k ranks drawn without replacement, with its probability."""
    found: list[tuple[tuple[int, ...], Fraction]] = [((), Fraction(1))]
    for _ in range(k):
        following = []
        for ranks, p in found:
            left = _less(counts, ranks)
            total = sum(left.values())
            following += [((*ranks, r), p * Fraction(n, total)) for r, n in left.items() if n]
        found = following
    return found


def _less(counts: dict[int, int], ranks: tuple[int, ...]) -> dict[int, int]:
    left = dict(counts)
    for r in ranks:
        left[r] -= 1
    return left
