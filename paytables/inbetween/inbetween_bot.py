"""Computer players: the exact-odds Kelly bettor, and the one-chip player it is measured against.

The Kelly bettor reads the public count (the cards seen since the shuffle) and so the exact chances that the next card
wins, hits a post or loses. It bets only when a chip bet gains on average under the rule set's post penalty, and then
the Kelly fraction (edge / second moment) of its own chips, at least the minimum and at most the pot. It calls a first
ace and a pair the way that gives the larger expected gain over every card that can come next.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime
from fractions import Fraction
from math import floor

from paytables.inbetween.inbetween_actions import CallAce, CallPair, InBetweenAction, PassTurn, PlaceBet, bet_limits
from paytables.inbetween.inbetween_events import AceCall, InBetweenEvent, PairCall
from paytables.inbetween.inbetween_game import InBetweenStep, act, advance
from paytables.inbetween.inbetween_odds import TurnOdds, bet_value, edge_per_chip, kelly_fraction, third_card_odds
from paytables.inbetween.inbetween_posts import LOW_ACE, Posts, PostsKind, possible_pair_calls
from paytables.inbetween.inbetween_rules import AdjacentLoses, PairIsCalled, PairPays, RuleSet
from paytables.inbetween.inbetween_state import Game, GameStatus, full_pack_ranks
from shoe.cards import ACE, RANK_VALUES
from shoe.random_source import RandomSource
from shoe.shoe import Shoe

Strategy = Callable[[Game, RuleSet], InBetweenAction]


def kelly_bet(odds: TurnOdds, chips: int, least: int, most: int, post_multiple: int) -> int | None:
    """The bet for these odds, or None to pass: Kelly's share of the chips held, within the table's limits."""
    if most < 1 or edge_per_chip(odds, post_multiple) <= 0:
        return None
    amount = max(least, min(most, floor(kelly_fraction(odds, post_multiple) * chips)))
    return amount if bet_value(odds, amount, chips, post_multiple) > 0 else None


def kelly_player(game: Game, ruleset: RuleSet) -> InBetweenAction:
    """The exact-odds player's move in whatever the game waits for."""
    turn, player = game.turn, game.to_act
    if turn is None or player is None:
        raise ValueError(f"the game waits for no player ({game.status})")
    if game.status is GameStatus.AWAITING_ACE_CALL:
        return CallAce(player_id=player, call=best_ace_call(game, ruleset))
    posts = turn.posts
    assert posts is not None
    if game.status is GameStatus.AWAITING_PAIR_CALL:
        values = {
            call: _bet_gain(game, ruleset, posts, game.unseen(), call) for call in possible_pair_calls(posts.first)
        }
        call = max(values, key=lambda c: values[c])  # the first (higher) wins a tie
        return CallPair(player_id=player, call=call) if values[call] > 0 else PassTurn(player_id=player)
    odds = third_card_odds(posts, game.unseen(), turn.pair_call)
    least, most = bet_limits(game, ruleset)
    amount = kelly_bet(odds, game.seats[turn.seat].chips, least, most, ruleset.terms.post.multiple)
    return PassTurn(player_id=player) if amount is None else PlaceBet(player_id=player, amount=amount)


def one_chip_player(game: Game, ruleset: RuleSet) -> InBetweenAction:
    """Always the least bet (one chip, or the ante's minimum); an ace high, a pair higher when it can be."""
    turn, player = game.turn, game.to_act
    if turn is None or player is None:
        raise ValueError(f"the game waits for no player ({game.status})")
    if game.status is GameStatus.AWAITING_ACE_CALL:
        return CallAce(player_id=player, call=AceCall.HIGH)
    if game.status is GameStatus.AWAITING_PAIR_CALL:
        assert turn.posts is not None
        return CallPair(player_id=player, call=possible_pair_calls(turn.posts.first)[0])
    return PlaceBet(player_id=player, amount=bet_limits(game, ruleset)[0])


STRATEGIES: dict[str, Strategy] = {"kelly": kelly_player, "one-chip": one_chip_player}


def play_computers(
    game: Game,
    shoe: Shoe,
    *,
    ruleset: RuleSet,
    source: RandomSource,
    now: datetime,
    strategies: Sequence[Strategy] | None = None,
) -> InBetweenStep:
    """Move the game on and play its computer seats until a human seat must act or the game is over.

    `strategies[seat]` plays each computer seat; by default every one is the Kelly player.
    """
    events: list[InBetweenEvent] = []
    while game.status is not GameStatus.GAME_OVER:
        if game.turn is not None and game.to_act is not None:
            if not game.seats[game.turn.seat].computer:
                break
            play = kelly_player if strategies is None else strategies[game.turn.seat]
            step = act(game, shoe, play(game, ruleset), ruleset=ruleset, source=source, now=now)
        else:
            step = advance(game, shoe, ruleset=ruleset, source=source, now=now)
        events.extend(step.events)
        game, shoe = step.game, step.shoe
    return InBetweenStep(game=game, shoe=shoe, events=tuple(events))


def best_ace_call(game: Game, ruleset: RuleSet) -> AceCall:
    """High or low, whichever gains more on average over every second post that can come (high on a tie)."""
    values = {call: ace_call_value(game, ruleset, call) for call in (AceCall.HIGH, AceCall.LOW)}
    return AceCall.LOW if values[AceCall.LOW] > values[AceCall.HIGH] else AceCall.HIGH


def ace_call_value(game: Game, ruleset: RuleSet, call: AceCall) -> Fraction:
    """The expected chips the turn gains after this call, played on by this strategy."""
    unseen = game.unseen()
    first = LOW_ACE if call is AceCall.LOW else ACE
    total = sum(unseen.values())
    value = Fraction(0)
    for second in RANK_VALUES:
        if unseen[second]:
            rest = unseen.copy()
            rest[second] -= 1
            if rest.total() == 0:  # the second post is the pack's last card: the third comes from a new pack
                rest = full_pack_ranks()
                rest.subtract((ACE, second))
            value += unseen[second] * _posts_gain(game, ruleset, Posts(first=first, second=second), rest)
    return value / total


def _posts_gain(game: Game, ruleset: RuleSet, posts: Posts, unseen: Counter[int]) -> Fraction:
    """What these posts are worth to the player to act, with the third card still to come from `unseen`."""
    rules, chips = ruleset.terms, game.seats[_seat(game)].chips
    if posts.kind is PostsKind.ADJACENT:
        return Fraction(-min(rules.adjacent.chips, chips)) if isinstance(rules.adjacent, AdjacentLoses) else Fraction(0)
    if posts.kind is PostsKind.PAIR and isinstance(rules.pair, PairPays):
        return Fraction(min(rules.pair.chips, game.pot))
    if posts.kind is PostsKind.PAIR and isinstance(rules.pair, PairIsCalled):
        return max(_bet_gain(game, ruleset, posts, unseen, call) for call in possible_pair_calls(posts.first))
    if posts.kind is PostsKind.PAIR:
        return Fraction(0)
    return _bet_gain(game, ruleset, posts, unseen, None)


def _bet_gain(game: Game, ruleset: RuleSet, posts: Posts, unseen: Counter[int], call: PairCall | None) -> Fraction:
    """The expected chips of the bet this strategy would make on these posts (0 when it would pass)."""
    odds = third_card_odds(posts, unseen, call)
    chips, multiple = game.seats[_seat(game)].chips, ruleset.terms.post.multiple
    least, most = bet_limits(game, ruleset)
    amount = kelly_bet(odds, chips, least, most, multiple)
    return Fraction(0) if amount is None else bet_value(odds, amount, chips, multiple)


def _seat(game: Game) -> int:
    assert game.turn is not None
    return game.turn.seat
