"""Exact In Between odds from the public count: how many unseen cards win, hit a post or lose, and a bet's value."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import msgspec

from paytables.inbetween.inbetween_events import PairCall
from paytables.inbetween.inbetween_posts import Posts, PostsKind, ThirdOutcome
from paytables.inbetween.inbetween_state import Game
from shoe.cards import RANK_VALUES


class TurnOdds(msgspec.Struct, frozen=True, kw_only=True):
    """How many of the unseen cards win, hit a post or lose: each is equally likely to come next."""

    win: int
    post: int
    lose: int

    @property
    def total(self) -> int:
        return self.win + self.post + self.lose

    @property
    def p_win(self) -> Fraction:
        return Fraction(self.win, self.total)

    @property
    def p_post(self) -> Fraction:
        return Fraction(self.post, self.total)

    @property
    def p_lose(self) -> Fraction:
        return Fraction(self.lose, self.total)


def third_card_odds(posts: Posts, unseen: Counter[int], pair_call: PairCall | None = None) -> TurnOdds:
    """The counts for a third card drawn from `unseen` (cards left by rank) against these posts."""
    if posts.kind is PostsKind.ADJACENT or (posts.kind is PostsKind.PAIR and pair_call is None):
        raise ValueError(f"no third card is bet on {posts.kind} posts without a call")
    counts = dict.fromkeys(ThirdOutcome, 0)
    for value in RANK_VALUES:
        counts[posts.outcome(value, pair_call)] += unseen[value]
    return TurnOdds(win=counts[ThirdOutcome.WIN], post=counts[ThirdOutcome.POST], lose=counts[ThirdOutcome.LOSE])


def turn_odds(game: Game) -> TurnOdds | None:
    """The odds shown to the player to act, once the posts (and a pair's call) leave only the bet to decide."""
    turn = game.turn
    if turn is None or turn.posts is None or turn.outcome is not None or turn.posts.kind is PostsKind.ADJACENT:
        return None
    if turn.posts.kind is PostsKind.PAIR and turn.pair_call is None:
        return None
    return third_card_odds(turn.posts, game.unseen(), turn.pair_call)


def bet_value(odds: TurnOdds, bet: int, chips: int, post_multiple: int) -> Fraction:
    """The exact expected chips a bet gains: it wins the bet, loses it, or pays the post (capped at the chips held)."""
    post_cost = min(post_multiple * bet, chips)
    return Fraction(odds.win * bet - odds.lose * bet - odds.post * post_cost, odds.total)


def edge_per_chip(odds: TurnOdds, post_multiple: int) -> Fraction:
    """The expected gain of each chip bet, while a post's cost is not capped by the chips held."""
    return Fraction(odds.win - odds.lose - post_multiple * odds.post, odds.total)


def kelly_fraction(odds: TurnOdds, post_multiple: int) -> Fraction:
    """The share of a bankroll to bet: the edge over the second moment, Kelly's growth-optimal bet to second order."""
    second_moment = Fraction(odds.win + odds.lose + post_multiple**2 * odds.post, odds.total)
    return max(edge_per_chip(odds, post_multiple) / second_moment, Fraction(0))
