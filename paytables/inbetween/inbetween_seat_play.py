"""Who plays each seat at a friends' table: the computer's personalities, the timer's default move, and the loop that
plays every seat the computer holds until a person must act. A new module beside the engine: it calls the engine's
`act` and `advance` and the Kelly player's own pieces, and changes none of them.

The personalities bet from the same exact odds of the unseen cards as the Kelly player (`inbetween_bot`) and differ
only in how much of Kelly's share they stake: cautious half of it, steady all of it, bold twice it (never more than the
pot or their chips). The Nepali table's end-game tip, "Late in the game, the leader can pass more often", is a choice
per seat: in the game's last round, a seat that holds more chips than every other passes any bet whose chance of
winning is below TIP_WIN_CHANCE, since a loss could cost the lead and a win adds little to it.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from datetime import datetime
from fractions import Fraction
from math import floor

import msgspec

from paytables.inbetween.inbetween_actions import (
    InBetweenAction,
    PassTurn,
    PlaceBet,
    ShowCards,
    bet_limits,
    can_pass,
)
from paytables.inbetween.inbetween_bot import computers_agreeing, kelly_player, one_chip_player
from paytables.inbetween.inbetween_events import InBetweenEvent, StandIn, StandInBy
from paytables.inbetween.inbetween_game import InBetweenStep, act, advance
from paytables.inbetween.inbetween_odds import bet_value, edge_per_chip, kelly_fraction, third_card_odds
from paytables.inbetween.inbetween_posts import PostsKind
from paytables.inbetween.inbetween_rules import RuleSet
from paytables.inbetween.inbetween_state import Game, GameStatus
from paytables.inbetween.inbetween_views import seat_view
from shoe.random_source import RandomSource
from shoe.shoe import Shoe

TIP_WIN_CHANCE = Fraction(2, 3)  # the leader's least chance of winning a bet worth taking in the last round


class Personality(enum.StrEnum):
    CAUTIOUS = "cautious"
    STEADY = "steady"
    BOLD = "bold"


KELLY_SHARE = {Personality.CAUTIOUS: Fraction(1, 2), Personality.STEADY: Fraction(1), Personality.BOLD: Fraction(2)}


class Computer(msgspec.Struct, frozen=True, kw_only=True):
    """How the computer plays one seat."""

    personality: Personality = Personality.STEADY
    endgame_tip: bool = True

    @property
    def stand_in(self) -> StandIn:
        """What a move this computer makes records of who made it (`ib_stood_in`), so a replay derives it again."""
        return StandIn(by=StandInBy.COMPUTER, personality=self.personality.value, endgame_tip=self.endgame_tip)


TIMER = StandIn(by=StandInBy.TIMER)  # the default move a turn's timer plays


def share_bet(share: Fraction, fraction: Fraction, chips: int, least: int, most: int) -> int:
    """`share` of Kelly's `fraction` of the chips, within the table's least and most bet."""
    return max(least, min(most, floor(share * fraction * chips)))


def leads_in_last_round(game: Game, seat: int) -> bool:
    """Whether this seat holds more chips than every other seat in the game's last round (a game of rounds)."""
    if game.rounds is None or game.round < game.rounds:
        return False
    mine = game.seats[seat].chips
    return all(mine > other.chips for i, other in enumerate(game.seats) if i != seat)


def computer_move(game: Game, ruleset: RuleSet, computer: Computer) -> InBetweenAction:
    """The computer's move for the seat to act (from `game` as that seat sees it): the Kelly player's calls, a bet of
    its personality's share, and face-down posts shown where it would bet on them, else folded unseen."""
    turn, player = game.turn, game.to_act
    if turn is None or player is None:
        raise ValueError(f"the game waits for no player ({game.status})")
    spread = turn.posts is not None and turn.posts.kind is PostsKind.SPREAD
    if game.status is GameStatus.AWAITING_SHOW and spread:
        bet = _bet_move(game, ruleset, computer, player)
        return ShowCards(player_id=player) if isinstance(bet, PlaceBet) else bet
    if game.status is not GameStatus.AWAITING_BET:
        return kelly_player(game, ruleset)  # the ace and pair calls that gain the most, or a pass
    move = _bet_move(game, ruleset, computer, player)
    # shown face-down posts are bet on (pagat), and a rule set that allows no pass is bet on too: the least bet
    if isinstance(move, PassTurn) and (turn.down or not can_pass(ruleset)):
        return PlaceBet(player_id=player, amount=bet_limits(game, ruleset)[0])
    return move


def _bet_move(game: Game, ruleset: RuleSet, computer: Computer, player: str) -> InBetweenAction:
    turn = game.turn
    assert turn is not None
    posts = turn.posts
    assert posts is not None  # a bet is weighed only with both posts on the seat's table
    odds = third_card_odds(posts, game.unseen(), turn.pair_call)
    multiple, chips = ruleset.terms.post.multiple, game.seats[turn.seat].chips
    least, most = bet_limits(game, ruleset)
    if most < 1 or edge_per_chip(odds, multiple) <= 0:
        return PassTurn(player_id=player)
    if computer.endgame_tip and leads_in_last_round(game, turn.seat) and odds.p_win < TIP_WIN_CHANCE:
        return PassTurn(player_id=player)
    amount = share_bet(KELLY_SHARE[computer.personality], kelly_fraction(odds, multiple), chips, least, most)
    if bet_value(odds, amount, chips, multiple) <= 0:
        return PassTurn(player_id=player)
    return PlaceBet(player_id=player, amount=amount)


def default_move(game: Game, ruleset: RuleSet) -> InBetweenAction:
    """What a turn's timer plays for a seat that did not act: an ace called high, a pair called higher (lower for a
    pair of aces, which nothing is higher than), and a pass, or the least bet where passing is not allowed."""
    move = one_chip_player(game, ruleset)  # its calls are the timer's; only its bet becomes a pass where one may pass
    shown = game.turn is not None and bool(game.turn.down)  # shown face-down posts are bet on; down ones folded
    if isinstance(move, ShowCards) or (isinstance(move, PlaceBet) and can_pass(ruleset) and not shown):
        return PassTurn(player_id=move.player_id)
    return move


def play_held_seats(
    game: Game, shoe: Shoe, *, ruleset: RuleSet, held: Mapping[int, Computer], source: RandomSource, now: datetime
) -> InBetweenStep:
    """Move the game on, playing every seat in `held` as its Computer says, until a seat not held must act or the
    game is over: the engine's own computer loop, with the seats it plays named by the table rather than the game, and
    each move it makes recorded as the computer's, with its personality (`ib_stood_in`)."""
    events: list[InBetweenEvent] = []
    while game.status is not GameStatus.GAME_OVER:
        if (agreeing := computers_agreeing(game, ruleset, held)) is not None:
            seat = game.seat_of(agreeing.player_id)
            assert seat is not None  # computers_agreeing names a seat of the game
            step = act(game, shoe, agreeing, ruleset=ruleset, source=source, now=now, stand_in=held[seat].stand_in)
        elif game.turn is not None and game.to_act is not None:
            computer = held.get(game.turn.seat)
            if computer is None:
                break
            move = computer_move(seat_view(game, shoe, game.turn.seat), ruleset, computer)
            step = act(game, shoe, move, ruleset=ruleset, source=source, now=now, stand_in=computer.stand_in)
        else:
            step = advance(game, shoe, ruleset=ruleset, source=source, now=now)
        events.extend(step.events)
        game, shoe = step.game, step.shoe
    return InBetweenStep(game=game, shoe=shoe, events=tuple(events))
