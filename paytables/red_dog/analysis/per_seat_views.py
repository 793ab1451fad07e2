"""What a spread seat sees before it raises in the per-seat deal: the exact law of the unseen cards' counts."""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Iterator
from fractions import Fraction
from math import perm

from paytables.red_dog.analysis.per_seat_deal_law import LOWEST_RANK, Composition, View

# The ranks left in the shoe by class against our posts (between, equal to a post, outside): for each class the sorted
# counts left of its ranks. Ranks of one class are interchangeable for everything that follows, so only the multiset
# of their counts is kept; that is what makes seven seats and eight decks exact in seconds.
Profiles = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]


def view_law(composition: Composition, seats: int, low: int, high: int) -> dict[View, Fraction]:
    """The law of (between, posts, unseen) left after our spread `low`-`high` (2..14) and the others' face-up cards.

    The other seats' hands are drawn one seat at a time (two posts, and a third card when they pair): the per-seat
    deal gives every set of dealt positions the same law, which `per_seat_deal_law` checks by walking the real order.
    """
    left = list(composition)
    left[low - LOWEST_RANK] -= 1
    left[high - LOWEST_RANK] -= 1
    between = left[low - LOWEST_RANK + 1 : high - LOWEST_RANK]
    posts = (left[low - LOWEST_RANK], left[high - LOWEST_RANK])
    outside = left[: low - LOWEST_RANK] + left[high - LOWEST_RANK + 1 :]
    return _view_law((_profile(between), _profile(posts), _profile(outside)), seats - 1)


@functools.cache
def _view_law(start: Profiles, others: int) -> dict[View, Fraction]:
    unseen = sum(map(sum, start))
    if others == 0:
        return {_view_after(_totals(start), ()): Fraction(1)}
    states = {start: 1}
    for _ in range(others - 2):
        states = _seat(states)
    # The last seat needs less than a profile: see `_last_seat`. So the seat before it keeps only that.
    sums = _sums_after_seat(states) if others > 1 else {_totals(start): (1, *_couples(start))}
    numerators: dict[View, int] = defaultdict(int)
    for totals, weights in sums.items():
        for view, w in _last_seat(totals, weights):
            numerators[view] += w
    return {view: Fraction(n, perm(unseen, unseen - view[2])) for view, n in numerators.items()}


def _seat(states: dict[Profiles, int]) -> dict[Profiles, int]:
    """One more seat's face-up cards: two posts and, when they pair, the third card (weights over perm(unseen, t))."""
    following: dict[Profiles, int] = defaultdict(int)
    for profiles, weight in states.items():
        for c, v, ranks in _groups(profiles):
            after_first = _take(profiles, c, v)
            first = weight * ranks * v
            if v > 1:
                paired = _take(after_first, c, v - 1)
                for c3, v3, ranks3 in _groups(paired):
                    following[_take(paired, c3, v3)] += first * (v - 1) * ranks3 * v3
            for c2, v2, ranks2 in _groups(after_first):
                others = ranks2 - ((c2, v2) == (c, v - 1))  # not the first post's own rank: that would pair
                if others:
                    following[_take(after_first, c2, v2)] += first * others * v2
    return following


Totals = tuple[int, int, int]  # cards left by class
Sums = tuple[int, int, int, int]  # over the states with these totals: the weight, and weight times couples by class


def _sums_after_seat(states: dict[Profiles, int]) -> dict[Totals, Sums]:
    """As `_seat`, keeping only what the last seat reads: cards left by class, and the weighted same-rank couples."""
    following: dict[Totals, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for profiles, weight in states.items():
        totals, couples = _totals(profiles), _couples(profiles)
        for c, v, ranks in _groups(profiles):
            first = weight * ranks * v
            after = _less(totals, c, 1), _less(couples, c, 2 * (v - 1))
            for c2 in range(3):
                # a second post of another rank: n cards, whose ranks hold s same-rank couples
                n = after[0][c2] - (v - 1) * (c2 == c)
                s = after[1][c2] - (v - 1) * (v - 2) * (c2 == c)
                _add(following, after, c2, first * n, first * 2 * s)
            if v > 1:
                paired = _less(after[0], c, 1), _less(after[1], c, 2 * (v - 2))
                for c3 in range(3):
                    pair = first * (v - 1)
                    _add(following, paired, c3, pair * paired[0][c3], pair * 2 * paired[1][c3])
    return {totals: (s[0], s[1], s[2], s[3]) for totals, s in following.items()}


def _add(sums: dict[Totals, list[int]], state: tuple[Totals, Totals], c: int, weight: int, fewer: int) -> None:
    """Add `weight` ways to take one more class-c card from `state`, which take `fewer` couples from class c in all."""
    if not weight:
        return
    totals, couples = state
    entry = sums[_less(totals, c, 1)]
    entry[0] += weight
    for k in range(3):
        entry[1 + k] += weight * couples[k] - (fewer if k == c else 0)


def _less(values: Totals, c: int, amount: int) -> Totals:
    if c == 0:
        return values[0] - amount, values[1], values[2]
    if c == 1:
        return values[0], values[1] - amount, values[2]
    return values[0], values[1], values[2] - amount


def _last_seat(totals: Totals, sums: Sums) -> Iterator[tuple[View, int]]:
    """The last seat's cards straight into views: its weights are linear in the same-rank couples left by class."""
    weight, couples = sums[0], sums[1:]
    for c in range(3):
        for c2 in range(3):
            # first post from class c, second from c2 of another rank: summed over ranks, v * (T_c2 - [c2 == c] v)
            different = weight * totals[c] * totals[c2] - (couples[c] + weight * totals[c] if c2 == c else 0)
            if different:
                yield _view_after(totals, (c, c2)), different
            # a pair in class c, then its third card from class c2
            third = totals[c2] - 2 * (c2 == c)
            if couples[c] and third:
                yield _view_after(totals, (c, c, c2)), couples[c] * third


def _view_after(totals: tuple[int, ...], classes: tuple[int, ...]) -> View:
    between, posts, outside = (totals[c] - classes.count(c) for c in range(3))
    return between, posts, between + posts + outside


def _totals(profiles: Profiles) -> tuple[int, int, int]:
    return sum(profiles[0]), sum(profiles[1]), sum(profiles[2])


def _couples(profiles: Profiles) -> tuple[int, int, int]:
    between, posts, outside = (sum(v * (v - 1) for v in p) for p in profiles)
    return between, posts, outside


def _groups(profiles: Profiles) -> Iterator[tuple[int, int, int]]:
    """(class, count left, how many ranks of the class have that count left) for every nonzero count."""
    for c, profile in enumerate(profiles):
        start = 0
        for i in range(1, len(profile) + 1):
            if i == len(profile) or profile[i] != profile[start]:
                yield c, profile[start], i - start
                start = i


def _take(profiles: Profiles, c: int, v: int) -> Profiles:
    """The profiles after one card of a class-c rank that had v left (profiles stay sorted: v-1 takes v's place)."""
    profile = profiles[c]
    i = profile.index(v)
    changed = (*profile[:i], v - 1, *profile[i + 1 :]) if v > 1 else (*profile[:i], *profile[i + 1 :])
    if c == 0:
        return changed, profiles[1], profiles[2]
    return (profiles[0], changed, profiles[2]) if c == 1 else (profiles[0], profiles[1], changed)


def _profile(counts: list[int] | tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted(v for v in counts if v))
