"""The exact law of one seat's hand in the per-seat deal, found by walking the real dealing order card by card.

Nothing here assumes that seats are alike or that the order of the deal does not matter. The walk deals the first
card to every seat, the second to every seat, the pairs' third cards, then the spreads' third cards, each card drawn
from the counts left, and merges two partial deals only when nothing that follows can tell them apart: the counts
left of every rank, the first posts still waiting for a second card, our posts, and how many third cards come before
ours. Once our posts are out, ranks that no waiting seat can pair with are counted by class against our posts
(between, post, outside), since every later draw and our settlement read only those classes.

Reach, one seat's law on a 2-core machine: 2 seats in 0.05 s; 3 seats in 0.5-1.3 s at 1 or 2 decks; 4 seats in
20-80 s and 600 MB. Five seats would hold about 13 times as many partial deals: out of reach this way, which is why
`per_seat_views` (checked against this walk) computes the larger tables.
"""

from __future__ import annotations

import enum
from collections import defaultdict
from collections.abc import Callable, Iterator
from fractions import Fraction
from itertools import accumulate
from math import perm

RANK_COUNT = 13
LOWEST_RANK = 2

Composition = tuple[int, ...]  # cards of each rank 2..14 in the shoe
View = tuple[int, int, int]  # at the raise decision, unseen cards: between the posts, equal to a post, in all


class Landing(enum.StrEnum):
    """Where a seat's third card falls: all that settlement reads once the posts are known."""

    BETWEEN = "between"
    POST = "post"
    OUTSIDE = "outside"
    MATCH = "match"  # a pair's third card of the same rank: trips
    MISS = "miss"
    NONE = "none"  # consecutive posts: no third card


Hand = tuple[int, int, Landing, View | None]  # first post, second post (2..14), landing, view (spreads only)
SeatLaw = dict[Hand, Fraction]
Tally = tuple[int, int, int]  # other seats: pairs before this seat, pairs after it, spreads before it
_Full = tuple[Composition, tuple[int, ...], Tally]  # every rank's count left, first posts waiting for a second, tally
# Once our posts are out: our posts, tally, first posts waiting (later seats), their ranks' counts left, class counts.
_Known = tuple[tuple[int, int], Tally, tuple[int, ...], tuple[int, ...], tuple[int, ...]]
_Lumped = tuple[int, int, tuple[int, ...], int, int]  # our posts, class counts left, draws before the view, after it


def fresh_composition(decks: int) -> Composition:
    """The ranks of a fresh shoe of `decks` decks."""
    return (4 * decks,) * RANK_COUNT


def seat_law(composition: Composition, seats: int, seat: int) -> SeatLaw:
    """The exact law of seat `seat`'s (1-based) posts, view and landing, dealing every card in the real order."""
    if not 1 <= seat <= seats or 3 * seats > sum(composition):
        raise ValueError(f"seat {seat} of {seats} cannot be dealt from {sum(composition)} cards")
    own = seat - 1
    lumped = _deal_posts(composition, seats, own)
    numerators: dict[tuple[Hand, int], int] = defaultdict(int)
    for (first, second, classes, before_view, after_view), weight in lumped.items():
        for hand, numerator, draws in _third_cards(first, second, classes, before_view, after_view):
            numerators[(hand, draws)] += weight * numerator
    # Every hand's weights over perm(N, 2S + draws), brought to the common perm(N, 3S): one Fraction per hand.
    scaled: dict[Hand, int] = defaultdict(int)
    unseen = sum(composition) - 2 * seats
    for (hand, draws), numerator in numerators.items():
        scaled[hand] += numerator * perm(unseen - draws, seats - draws)
    return {hand: Fraction(n, perm(sum(composition), 3 * seats)) for hand, n in scaled.items()}


def _deal_posts(composition: Composition, seats: int, own: int) -> dict[_Lumped, int]:
    """Weights (over perm(N, 2S)) of every post deal: first cards in seat order, then second cards in seat order."""
    full: dict[_Full, int] = {(composition, (), (0, 0, 0)): 1}
    for _ in range(seats):
        full = _deal(full, lambda waiting, tally, r: ((*waiting, r), tally))
    for _ in range(own):
        full = _deal(full, _earlier_second_card)
    known: dict[_Known, int] = defaultdict(int)
    for state, weight in full.items():
        for key, w in _own_second_card(state):
            known[key] += weight * w
    for _ in range(own + 1, seats):
        known = _later_second_card(known)
    lumped: dict[_Lumped, int] = defaultdict(int)
    for (mine, tally, _, _, counts), weight in known.items():
        lumped[_lump(mine, counts, tally)] += weight
    return lumped


def _deal(
    states: dict[_Full, int], card: Callable[[tuple[int, ...], Tally, int], tuple[tuple[int, ...], Tally]]
) -> dict[_Full, int]:
    """Deal one card in every state: each rank still in the shoe, weighted by how many of it are left."""
    following: dict[_Full, int] = defaultdict(int)
    for (left, waiting, tally), weight in states.items():
        for r, count in _nonzero(left):
            following[(_take(left, r), *card(waiting, tally, r))] += weight * count
    return following


def _earlier_second_card(waiting: tuple[int, ...], tally: Tally, r: int) -> tuple[tuple[int, ...], Tally]:
    """A seat before ours gets its second card: a pair or a spread deals a third card before ours."""
    first, waiting = waiting[0], waiting[1:]
    pairs_before, pairs_after, spreads_before = tally
    if first == r:
        return waiting, (pairs_before + 1, pairs_after, spreads_before)
    if abs(first - r) != 1:
        return waiting, (pairs_before, pairs_after, spreads_before + 1)
    return waiting, tally


def _own_second_card(state: _Full) -> Iterator[tuple[_Known, int]]:
    """Our second post: from here on only our classes, and the ranks later seats may pair with, are counted."""
    left, waiting, tally = state
    first, waiting = waiting[0], waiting[1:]
    below = list(accumulate(left, initial=0))  # cards left of lower ranks, for the count between any two posts
    for r, count in _nonzero(left):
        refs = tuple(left[w] - (w == r) for w in waiting)
        low, high = sorted((first, r))
        unseen = below[-1] - 1
        if low == high:
            counts: tuple[int, ...] = (left[low] - 1, unseen - left[low] + 1)
        else:
            between, posts = below[high] - below[low + 1], left[low] + left[high] - 1
            counts = (between, posts, unseen - between - posts)
        yield ((first, r), tally, waiting, refs, counts), count


def _later_second_card(states: dict[_Known, int]) -> dict[_Known, int]:
    """A seat after ours gets its second card: all that matters is whether it pairs, and the class it takes."""
    following: dict[_Known, int] = defaultdict(int)
    for state, weight in states.items():
        mine, (pairs_before, pairs_after, spreads_before), waiting, refs, counts = state
        first = waiting[0]
        unnamed = list(counts)
        for r, count in dict(zip(waiting, refs, strict=True)).items():
            unnamed[_class_of(r, *mine)] -= count
            tally = (pairs_before, pairs_after + (r == first), spreads_before)
            following[_take_known(state, r, tally)] += weight * count
        for c, count in enumerate(unnamed):
            if count:
                refs_after = refs[1:]
                following[(mine, state[1], waiting[1:], refs_after, _less(counts, c))] += weight * count
    return following


def _take_known(state: _Known, r: int, tally: Tally) -> _Known:
    """The state after a card of rank r that a waiting seat's first post names, given to the first waiting seat."""
    mine, _, waiting, refs, counts = state
    refs = tuple(count - (w == r) for w, count in zip(waiting, refs, strict=True))
    return mine, tally, waiting[1:], refs[1:], _less(counts, _class_of(r, *mine))


def _class_of(r: int, first: int, second: int) -> int:
    """A rank's class against our posts: for a pair its rank (0) or not (1); else between (0), post (1), outside (2)."""
    low, high = sorted((first, second))
    if low == high:
        return 0 if r == low else 1
    return 0 if low < r < high else 1 if r in (low, high) else 2


def _lump(mine: tuple[int, ...], counts: tuple[int, ...], tally: Tally) -> _Lumped:
    """Keep what the rest of the deal needs: counts left by class and how many cards are dealt before ours."""
    first, second = mine
    pairs_before, pairs_after, spreads_before = tally
    if first == second:
        return first, second, counts, pairs_before, 0
    if abs(first - second) == 1:
        return first, second, (), 0, 0
    return first, second, counts, pairs_before + pairs_after, spreads_before


def _less(counts: tuple[int, ...], c: int) -> tuple[int, ...]:
    return (*counts[:c], counts[c] - 1, *counts[c + 1 :])


def _third_cards(
    first: int, second: int, classes: tuple[int, ...], before_view: int, after_view: int
) -> Iterator[tuple[Hand, int, int]]:
    """Every landing of our third card with its weight (over perm(unseen, draws)) and the cards drawn up to it."""
    a, b = first + LOWEST_RANK, second + LOWEST_RANK
    if not classes:
        yield (a, b, Landing.NONE, None), 1, 0
        return
    landings = (Landing.MATCH, Landing.MISS) if first == second else (Landing.BETWEEN, Landing.POST, Landing.OUTSIDE)
    for seen, w_seen in _draw(classes, before_view).items():
        view = None if first == second else (seen[0], seen[1], sum(seen))
        for left, w_left in _draw(seen, after_view).items():
            for landing, count in zip(landings, left, strict=True):
                if count:
                    yield (a, b, landing, view), w_seen * w_left * count, before_view + after_view + 1


def _draw(classes: tuple[int, ...], cards: int) -> dict[tuple[int, ...], int]:
    """Counts by class after drawing `cards` cards whose ranks do not matter to us, with their weights."""
    states = {classes: 1}
    for _ in range(cards):
        following: dict[tuple[int, ...], int] = defaultdict(int)
        for state, weight in states.items():
            for c, count in enumerate(state):
                if count:
                    following[(*state[:c], count - 1, *state[c + 1 :])] += weight * count
        states = following
    return states


def _nonzero(left: Composition) -> Iterator[tuple[int, int]]:
    return ((r, count) for r, count in enumerate(left) if count)


def _take(left: Composition, r: int) -> Composition:
    return (*left[:r], left[r] - 1, *left[r + 1 :])
