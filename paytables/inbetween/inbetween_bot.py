"""Computer players: the exact-odds Kelly bettor, and the one-chip player it is measured against.

The Kelly bettor reads the public count (the cards seen since the shuffle) and so the exact chances that the next card
wins, hits a post or loses. It bets only when a chip bet gains on average under the rule set's post penalty, and then
the Kelly fraction (edge / second moment) of its own chips, at least the minimum and at most the pot. It calls a first
ace and a pair the way that gives the larger expected gain over every card that can come next.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Sequence
from datetime import datetime
from fractions import Fraction
from math import floor

from paytables.inbetween.inbetween_actions import (
    AgreeToStop,
    CallAce,
    CallPair,
    InBetweenAction,
    KeepPair,
    PassTurn,
    PlaceBet,
    ShowCards,
    SplitPair,
    bet_limits,
    can_pass,
    may_split,
)
from paytables.inbetween.inbetween_events import AceCall, InBetweenEvent, PairCall
from paytables.inbetween.inbetween_game import InBetweenStep, act, advance
from paytables.inbetween.inbetween_odds import TurnOdds, bet_value, edge_per_chip, kelly_fraction, third_card_odds
from paytables.inbetween.inbetween_posts import LOW_ACE, Posts, PostsKind, possible_pair_calls
from paytables.inbetween.inbetween_rules import (
    AdjacentLoses,
    AdjacentReturnsAnte,
    PairIsCalled,
    PairPays,
    PairReturnsAnte,
    RuleSet,
)
from paytables.inbetween.inbetween_state import Game, GameStatus, full_pack_ranks
from paytables.inbetween.inbetween_views import seat_view
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
    """The exact-odds player's move in whatever the game waits for, from the game as its seat sees it (`seat_view`:
    face-down posts it holds are on its table; another seat's are unseen cards like the pack's)."""
    turn, player = game.turn, game.to_act
    if turn is None or player is None:
        raise ValueError(f"the game waits for no player ({game.status})")
    if game.status is GameStatus.AWAITING_ACE_CALL:
        return CallAce(player_id=player, call=best_ace_call(game, ruleset))
    posts = turn.posts
    assert posts is not None  # face-down posts are on the table in the seat's own view
    if game.status is GameStatus.AWAITING_SHOW:  # show and bet only where the bet gains: otherwise fold unseen
        shown = _posts_gain(game, ruleset, posts, game.unseen(), split=False)
        return ShowCards(player_id=player) if shown > 0 else PassTurn(player_id=player)
    if game.status is GameStatus.AWAITING_SPLIT:
        kept = _posts_gain(game, ruleset, posts, game.unseen(), split=False)
        split = split_gain(game, ruleset, posts.first, game.unseen())
        return SplitPair(player_id=player) if split > kept else KeepPair(player_id=player)
    if game.status is GameStatus.AWAITING_PAIR_CALL:
        values = {
            call: _bet_gain(game, ruleset, posts, game.unseen(), call) for call in possible_pair_calls(posts.first)
        }
        call = max(values, key=lambda c: values[c])  # the first (higher) wins a tie
        if values[call] > 0 or not can_pass(ruleset):
            return CallPair(player_id=player, call=call)
        return PassTurn(player_id=player)
    amount = chosen_bet(game, ruleset, third_card_odds(posts, game.unseen(), turn.pair_call))
    return PassTurn(player_id=player) if amount is None else PlaceBet(player_id=player, amount=amount)


def chosen_bet(game: Game, ruleset: RuleSet, odds: TurnOdds) -> int | None:
    """Kelly's bet within the table's limits (the half-pot cap included), or None to pass; where passing is not
    allowed, a bet Kelly would not make is the least bet, which loses least when every chip bet loses on average."""
    least, most = bet_limits(game, ruleset)
    amount = kelly_bet(odds, game.seats[_seat(game)].chips, least, most, ruleset.terms.post.multiple)
    if amount is None and (not can_pass(ruleset) or _shown(game)):
        return least
    return amount


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
    if game.status is GameStatus.AWAITING_SPLIT:
        return KeepPair(player_id=player)
    if game.status is GameStatus.AWAITING_SHOW:
        return ShowCards(player_id=player)
    return PlaceBet(player_id=player, amount=bet_limits(game, ruleset)[0])


STRATEGIES: dict[str, Strategy] = {"kelly": kelly_player, "one-chip": one_chip_player}


def computers_agreeing(game: Game, ruleset: RuleSet, computers: Collection[int]) -> AgreeToStop | None:
    """A computer seat's agreement to stop, once every person with chips has agreed (a computer never asks to stop
    and never holds out: the people at the table decide); None when no computer has anything to agree to."""
    if not ruleset.terms.stop_by_agreement or game.status is GameStatus.GAME_OVER:
        return None
    people = [s for s in game.seats_with_chips() if s not in computers]
    if not people or any(s not in game.agreed for s in people):
        return None
    waiting = next((s for s in game.seats_with_chips() if s not in game.agreed), None)
    return None if waiting is None else AgreeToStop(player_id=game.seats[waiting].player_id)


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
    computers = {i for i, seat in enumerate(game.seats) if seat.computer}
    while game.status is not GameStatus.GAME_OVER:
        if (agreeing := computers_agreeing(game, ruleset, computers)) is not None:
            step = act(game, shoe, agreeing, ruleset=ruleset, source=source, now=now)
        elif game.turn is not None and game.to_act is not None:
            if not game.seats[game.turn.seat].computer:
                break
            play = kelly_player if strategies is None else strategies[game.turn.seat]
            move = play(seat_view(game, shoe, game.turn.seat), ruleset)
            step = act(game, shoe, move, ruleset=ruleset, source=source, now=now)
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


def split_gain(game: Game, ruleset: RuleSet, pair: int, unseen: Counter[int]) -> Fraction:
    """What splitting a pair is worth: two hands, each with a first post of the pair's rank and its second post and
    third card from today's count, played on by this strategy (a hand of another pair is played as `pair` says),
    less the cost. The second hand is valued like the first; the cards the first will show are not yet known."""
    cost = ruleset.split_cost(game.ante)
    assert cost is not None
    total, hand = unseen.total(), Fraction(0)
    for second in RANK_VALUES:
        if unseen[second]:
            rest = unseen.copy()
            rest[second] -= 1
            if rest.total() == 0:
                rest = full_pack_ranks()
                rest.subtract((pair, second))
            hand += unseen[second] * _posts_gain(game, ruleset, Posts(first=pair, second=second), rest, split=False)
    return 2 * hand / total - cost


def _posts_gain(game: Game, ruleset: RuleSet, posts: Posts, unseen: Counter[int], *, split: bool = True) -> Fraction:
    """What these posts are worth to the player to act, with the third card still to come from `unseen` (and a pair
    split where that gains more, unless `split` is False: a split hand's pair is never split again)."""
    rules, chips = ruleset.terms, game.seats[_seat(game)].chips
    if split and posts.kind is PostsKind.PAIR and may_split(game, ruleset):
        kept = _posts_gain(game, ruleset, posts, unseen, split=False)
        return max(kept, split_gain(game, ruleset, posts.first, unseen))
    ante_back = Fraction(min(game.ante, game.pot))  # a push that returns the ante, capped by the pot
    if posts.kind is PostsKind.ADJACENT and isinstance(rules.adjacent, AdjacentReturnsAnte):
        return ante_back
    if posts.kind is PostsKind.ADJACENT:
        return Fraction(-min(rules.adjacent.chips, chips)) if isinstance(rules.adjacent, AdjacentLoses) else Fraction(0)
    if posts.kind is PostsKind.PAIR and isinstance(rules.pair, PairPays):
        return Fraction(min(rules.pair.chips, game.pot))
    if posts.kind is PostsKind.PAIR and isinstance(rules.pair, PairReturnsAnte):
        return ante_back
    if posts.kind is PostsKind.PAIR and isinstance(rules.pair, PairIsCalled):
        return max(_bet_gain(game, ruleset, posts, unseen, call) for call in possible_pair_calls(posts.first))
    if posts.kind is PostsKind.PAIR:
        return Fraction(0)
    return _bet_gain(game, ruleset, posts, unseen, None)


def _bet_gain(game: Game, ruleset: RuleSet, posts: Posts, unseen: Counter[int], call: PairCall | None) -> Fraction:
    """The expected chips of the bet this strategy would make on these posts (0 when it would pass)."""
    odds = third_card_odds(posts, unseen, call)
    chips, multiple = game.seats[_seat(game)].chips, ruleset.terms.post.multiple
    amount = chosen_bet(game, ruleset, odds)
    return Fraction(0) if amount is None else bet_value(odds, amount, chips, multiple)


def _shown(game: Game) -> bool:
    """Whether the turn's face-down posts were shown: then a bet must follow (pagat), however small."""
    return game.turn is not None and bool(game.turn.down) and not game.turn.hidden


def _seat(game: Game) -> int:
    assert game.turn is not None
    return game.turn.seat
