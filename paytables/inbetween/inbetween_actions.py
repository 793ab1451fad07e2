"""The moves an In Between player makes, the refusals (each with a stable `code`) and the checks that refuse them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

import msgspec

from paytables.inbetween.inbetween_events import AceCall, PairCall, SeatSpec
from paytables.inbetween.inbetween_rules import MinimumBet, RuleSet
from paytables.inbetween.inbetween_state import Game, GameStatus
from paytables.refusals import GameError
from shoe.cards import DECK
from shoe.shoe import Shoe


class InBetweenError(GameError):
    code = "INBETWEEN_ERROR"


class InvalidGame(InBetweenError):
    code = "INVALID_GAME"


class GameOver(InBetweenError):
    code = "GAME_OVER"


class NotYourTurn(InBetweenError):
    code = "NOT_YOUR_TURN"


class WrongAction(InBetweenError):
    code = "WRONG_ACTION"


class ImpossibleCall(InBetweenError):
    code = "IMPOSSIBLE_CALL"


class BetOverPot(InBetweenError):
    code = "BET_OVER_POT"


class BetOverChips(InBetweenError):
    code = "BET_OVER_CHIPS"


class BetBelowMinimum(InBetweenError):
    code = "BET_BELOW_MINIMUM"


class CallAce(msgspec.Struct, frozen=True, kw_only=True, tag_field="action", tag="call_ace"):
    player_id: str
    call: AceCall


class CallPair(msgspec.Struct, frozen=True, kw_only=True, tag_field="action", tag="call_pair"):
    player_id: str
    call: PairCall


class PlaceBet(msgspec.Struct, frozen=True, kw_only=True, tag_field="action", tag="bet"):
    player_id: str
    amount: int


class PassTurn(msgspec.Struct, frozen=True, kw_only=True, tag_field="action", tag="pass"):
    player_id: str


InBetweenAction = CallAce | CallPair | PlaceBet | PassTurn

ACTION_STATES: dict[type[InBetweenAction], tuple[GameStatus, ...]] = {
    CallAce: (GameStatus.AWAITING_ACE_CALL,),
    CallPair: (GameStatus.AWAITING_PAIR_CALL,),
    PlaceBet: (GameStatus.AWAITING_BET,),
    PassTurn: (GameStatus.AWAITING_PAIR_CALL, GameStatus.AWAITING_BET),  # no passing before both posts are down
}


def bet_limits(game: Game, ruleset: RuleSet) -> tuple[int, int]:
    """The least and the most the player to act may bet: the rule's minimum, capped by the pot and their chips."""
    if game.turn is None:
        raise WrongAction("no turn is being played")
    most = min(game.pot, game.seats[game.turn.seat].chips)
    least = 1 if ruleset.terms.min_bet is MinimumBet.ONE else game.ante
    return min(least, most), most


def post_cost(bet: int, chips: int, ruleset: RuleSet) -> int:
    """What hitting a post costs: the rule's multiple of the bet, or everything the player has left."""
    return min(ruleset.terms.post.multiple * bet, chips)


def check_action(game: Game, action: InBetweenAction) -> None:
    """Refuse a move when the game is over, waits for someone else, or waits for another kind of move."""
    if game.status is GameStatus.GAME_OVER:
        raise GameOver(f"game {game.game_id} is over")
    if game.to_act is None:
        raise WrongAction(f"game {game.game_id} waits for no player now ({game.status})")
    if action.player_id != game.to_act:
        raise NotYourTurn(f"it is {game.to_act}'s turn, not {action.player_id}'s")
    if game.status not in ACTION_STATES[type(action)]:
        raise WrongAction(f"game {game.game_id} is {game.status}: no {type(action).__name__} now")


def check_bet(game: Game, ruleset: RuleSet, amount: int) -> None:
    """Refuse a bet over the pot, over the player's chips, or under the least bet."""
    least, _ = bet_limits(game, ruleset)
    chips = game.seats[game.turn.seat].chips if game.turn else 0
    if amount > game.pot:
        raise BetOverPot(f"a bet of {amount} is more than the pot of {game.pot}")
    if amount > chips:
        raise BetOverChips(f"a bet of {amount} is more than the {chips} chips the player holds")
    if amount < least:
        raise BetBelowMinimum(f"a bet must be at least {least}, got {amount}")


def check_setup(
    ruleset: RuleSet, ante: int, rounds: int | str, seats: Sequence[SeatSpec], dealer: int, shoe: Shoe
) -> None:
    """Refuse a game the rule set does not offer, or one dealt from anything but a full, undealt pack."""
    terms = ruleset.terms
    if not terms.min_players <= len(seats) <= terms.max_players:
        raise InvalidGame(f"{ruleset.id} is for {terms.min_players}..{terms.max_players} players, not {len(seats)}")
    if len({s.player_id for s in seats}) != len(seats):
        raise InvalidGame("a player may hold only one seat")
    if ante not in terms.antes:
        raise InvalidGame(f"the ante must be one of {terms.antes}, not {ante}")
    if rounds not in terms.rounds:
        raise InvalidGame(f"the rounds must be one of {terms.rounds}, not {rounds!r}")
    if not 0 <= dealer < len(seats):
        raise InvalidGame(f"the dealer must be a seat 0..{len(seats) - 1}")
    if sorted(shoe.order[i : i + 2] for i in range(0, len(shoe.order), 2)) != sorted(DECK) or shoe.position:
        raise InvalidGame("In Between is dealt from one full, undealt 52-card pack")


def check_ruleset(game: Game, ruleset: RuleSet) -> None:
    """Refuse to play a game by any rule set but the one (and the sha256) it started with."""
    if (game.ruleset, game.ruleset_sha256) != (ruleset.id, ruleset.sha256):
        raise InvalidGame(f"game {game.game_id} is played by {game.ruleset} ({game.ruleset_sha256[:12]})")


def check_now(now: datetime) -> None:
    if now.utcoffset() != timedelta(0):
        raise ValueError("`now` must be an aware UTC datetime")
