"""What two posts and a third card mean in In Between: the rank values, the kind of gap, the third card's outcome."""

from __future__ import annotations

import enum

import msgspec

from paytables.inbetween.inbetween_events import AceCall, PairCall
from shoe.cards import ACE, rank

LOW_ACE = 1  # a first-post ace called low ranks below the two


class PostsKind(enum.StrEnum):
    SPREAD = "spread"  # at least one rank lies between the posts
    ADJACENT = "adjacent"  # posts next to each other (7-8, low ace-2): no card fits
    PAIR = "pair"


class ThirdOutcome(enum.StrEnum):
    WIN = "win"
    LOSE = "lose"
    POST = "post"


class Posts(msgspec.Struct, frozen=True, kw_only=True):
    """The two posts as rank values: 2..14, and 1 for a first-post ace called low (a second-post ace is high)."""

    first: int
    second: int

    @property
    def low(self) -> int:
        return min(self.first, self.second)

    @property
    def high(self) -> int:
        return max(self.first, self.second)

    @property
    def kind(self) -> PostsKind:
        if self.first == self.second:
            return PostsKind.PAIR
        return PostsKind.ADJACENT if self.high - self.low == 1 else PostsKind.SPREAD

    @property
    def spread(self) -> int:
        """How many ranks lie strictly between the posts (0 for a pair or adjacent posts)."""
        return max(self.high - self.low - 1, 0)

    def face_ranks(self) -> set[int]:
        """The posts' ranks as cards (a low ace is still an ace): a third card of one of them hits the post."""
        return {ACE if value == LOW_ACE else value for value in (self.first, self.second)}

    def outcome(self, third_rank: int, pair_call: PairCall | None = None) -> ThirdOutcome:
        """The third card's outcome: between the posts (or beyond a pair, as called) wins; a post's rank hits it."""
        if third_rank in self.face_ranks():
            return ThirdOutcome.POST
        if self.kind is PostsKind.PAIR:
            if pair_call is None:
                raise ValueError("a pair needs a higher or lower call")
            beyond = third_rank > self.first if pair_call is PairCall.HIGHER else third_rank < self.first
            return ThirdOutcome.WIN if beyond else ThirdOutcome.LOSE
        return ThirdOutcome.WIN if self.low < third_rank < self.high else ThirdOutcome.LOSE


def first_value(card: str, call: AceCall | None) -> int:
    """The first post's value: its rank, or 1 for an ace called low."""
    value = rank(card)
    return LOW_ACE if value == ACE and call is AceCall.LOW else value


def possible_pair_calls(pair_rank: int) -> tuple[PairCall, ...]:
    """Nothing is higher than aces or lower than twos."""
    calls = []
    if pair_rank < ACE:
        calls.append(PairCall.HIGHER)
    if pair_rank > 2:
        calls.append(PairCall.LOWER)
    return tuple(calls)
