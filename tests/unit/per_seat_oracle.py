"""An independent model of the per-seat deal on tiny shoes: every order of the cards, dealt and settled by hand."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

from tests.unit.oracle import SPREAD_ODDS, expected


@dataclass(frozen=True)
class SeatDeal:
    """One seat's cards and what was face up on the table when the raise window opened."""

    first: int
    second: int
    third: int | None
    face_up: tuple[int, ...]


def deal(order: tuple[int, ...], seats: int) -> list[SeatDeal]:
    """Deal as the issue says: first cards around, second cards around, pairs' thirds, the window, spreads' thirds."""
    firsts, seconds = order[:seats], order[seats : 2 * seats]
    thirds: dict[int, int] = {}
    next_card = 2 * seats
    for seat in range(seats):
        if firsts[seat] == seconds[seat]:
            thirds[seat] = order[next_card]
            next_card += 1
    face_up = order[:next_card]
    for seat in range(seats):
        if abs(firsts[seat] - seconds[seat]) >= 2:
            thirds[seat] = order[next_card]
            next_card += 1
    return [SeatDeal(firsts[s], seconds[s], thirds.get(s), face_up) for s in range(seats)]


def orders(counts: dict[int, int]) -> Iterator[tuple[int, ...]]:
    """Every distinct order of the shoe's ranks; with the cards shuffled uniformly each is equally likely."""
    if not any(counts.values()):
        yield ()
        return
    for r in sorted(counts):
        if counts[r]:
            counts[r] -= 1
            for rest in orders(counts):
                yield (r, *rest)
            counts[r] += 1


@functools.cache
def raise_pays(paytable_id: str, first: int, second: int, unseen: tuple[int, ...]) -> bool:
    """True when raising the ante again has the higher mean net over the cards this seat has not seen."""
    raised = sum(expected(paytable_id, first, second, c, 1, 1).net for c in unseen)
    called = sum(expected(paytable_id, first, second, c, 1, 0).net for c in unseen)
    return raised > called


def brute_force(
    paytable_id: str, counts: dict[int, int], seats: int, raise_spreads: frozenset[int]
) -> list[tuple[Fraction, Fraction]]:
    """Each seat's mean net per one-unit ante, (usual, counting), over every order of a tiny shoe."""
    shoe = Counter(counts)
    totals = [[0, 0] for _ in range(seats)]
    how_many = 0
    for order in orders(dict(counts)):
        how_many += 1
        for seat, hand in enumerate(deal(order, seats)):
            spread = abs(hand.first - hand.second) - 1
            unseen = tuple(sorted((shoe - Counter(hand.face_up)).elements()))
            usual = 1 if spread >= 1 and spread in raise_spreads else 0
            counting = 1 if spread >= 1 and raise_pays(paytable_id, hand.first, hand.second, unseen) else 0
            for k, raised in enumerate((usual, counting)):
                totals[seat][k] += expected(paytable_id, hand.first, hand.second, hand.third, 1, raised).net
    return [(Fraction(u, how_many), Fraction(c, how_many)) for u, c in totals]


def can_change_a_decision(paytable_id: str, decks: int, seen: int) -> bool:
    """Whether up to `seen` other face-up cards could turn a spread's mean net per unit from one sign to the other."""
    per_rank, size = 4 * decks, 52 * decks
    post_loss = 2 if paytable_id == "post-double/v1" else 1
    for spread, odds in SPREAD_ODDS[paytable_id].items():
        between, posts = per_rank * spread, 2 * (per_rank - 1)
        outside = size - 2 - between - posts
        fresh = between * odds - outside - post_loss * posts > 0
        for b in range(min(seen, between) + 1):
            for p in range(min(seen - b, posts) + 1):
                for o in range(min(seen - b - p, outside) + 1):
                    value = (between - b) * odds - (outside - o) - post_loss * (posts - p)
                    if (value > 0) != fresh:
                        return True
    return False
