"""The moves an In Between player makes, the refusals (each with a stable `code`) and the checks that refuse them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

import msgspec

from paytables.inbetween.inbetween_events import AceCall, PairCall, SeatSpec
from paytables.inbetween.inbetween_rules import FirstRoundBet, MinimumBet, Passing, RuleSet
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


class PassNotAllowed(InBetweenError):
    code = "PASS_NOT_ALLOWED"


class StopNotAllowed(InBetweenError):
    code = "STOP_NOT_ALLOWED"


class BuyNotAllowed(InBetweenError):
    code = "BUY_NOT_ALLOWED"


class BuyOverLimit(InBetweenError):
    code = "BUY_OVER_LIMIT"


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


class SplitPair(msgspec.Struct, frozen=True, kw_only=True, tag_field="action", tag="split"):
    """Pay the rule set's split cost into the pot and play the pair as two hands, each dealt its own second post."""

    player_id: str


class KeepPair(msgspec.Struct, frozen=True, kw_only=True, tag_field="action", tag="keep_pair"):
    """Decline the split: the pair is played as the rule set's `pair` says."""

    player_id: str


class AgreeToStop(msgspec.Struct, frozen=True, kw_only=True, tag_field="action", tag="agree_stop"):
    """Agree to stop the game and share the pot: any player with chips, at any moment, whoever's turn it is."""

    player_id: str


class ShowCards(msgspec.Struct, frozen=True, kw_only=True, tag_field="action", tag="show"):
    """Show both face-down posts; a bet follows (pagat: "expose their two cards, place a bet and receive a third
    card"). Folding them unseen is a pass."""

    player_id: str


class BuyChips(msgspec.Struct, frozen=True, kw_only=True, tag_field="action", tag="buy"):
    """Bring `amount` new chips into the game: any player, at any moment, whoever's turn it is, up to the limit."""

    player_id: str
    amount: int


InBetweenAction = CallAce | CallPair | PlaceBet | PassTurn | SplitPair | KeepPair | AgreeToStop | ShowCards | BuyChips
OUT_OF_TURN = (AgreeToStop, BuyChips)  # moves any player makes whoever's turn it is

ACTION_STATES: dict[type[InBetweenAction], tuple[GameStatus, ...]] = {
    CallAce: (GameStatus.AWAITING_ACE_CALL,),
    CallPair: (GameStatus.AWAITING_PAIR_CALL,),
    PlaceBet: (GameStatus.AWAITING_BET,),
    # no passing before both posts are down; face-down posts are folded unseen with a pass
    PassTurn: (GameStatus.AWAITING_PAIR_CALL, GameStatus.AWAITING_BET, GameStatus.AWAITING_SHOW),
    SplitPair: (GameStatus.AWAITING_SPLIT,),
    KeepPair: (GameStatus.AWAITING_SPLIT,),
    ShowCards: (GameStatus.AWAITING_SHOW,),
    AgreeToStop: tuple(GameStatus),  # out of turn: checked by `check_agreement`, never by `check_action`
    BuyChips: tuple(GameStatus),  # out of turn: checked by `check_buy`
}


def bet_limits(game: Game, ruleset: RuleSet) -> tuple[int, int]:
    """The least and the most the player to act may bet: the rule's minimum, capped by the pot and their chips."""
    if game.turn is None:
        raise WrongAction("no turn is being played")
    most = min(_table_limit(game, ruleset), game.seats[game.turn.seat].chips)
    least = 1 if ruleset.terms.min_bet is MinimumBet.ONE else game.ante
    return min(least, most), most


def _table_limit(game: Game, ruleset: RuleSet) -> int:
    """The pot, or half of it (rounded down, never below one chip) until every player has had a turn, by the rule."""
    turn = game.turn
    first_turns = game.round == 1 and turn is not None and turn.index < len(set(game.order))
    if ruleset.terms.first_round_bet is FirstRoundBet.HALF_POT and first_turns:
        return min(game.pot, max(game.pot // 2, 1))
    return game.pot


def can_pass(ruleset: RuleSet) -> bool:
    """Whether the rule set lets a player pass (fold) instead of betting."""
    return ruleset.terms.passing is Passing.ALLOWED


def check_pass(game: Game, ruleset: RuleSet) -> None:
    """Refuse a pass where the rule set says every player must bet, or after face-down posts were shown (pagat: a
    player folds "without showing their cards", or shows them and places a bet)."""
    if not can_pass(ruleset):
        raise PassNotAllowed(f"{ruleset.id}: a player must bet at least the least bet; passing is not allowed")
    turn = game.turn
    if turn is not None and turn.down and not turn.hidden:
        raise PassNotAllowed("face-down posts once shown are bet on: a fold is made without showing them")


def buy_room(game: Game, ruleset: RuleSet, seat: int) -> int:
    """How many chips this seat may still buy in this game (0 where the rule set lets nobody buy)."""
    buy = ruleset.terms.buy_chips
    if buy is None or game.status is GameStatus.GAME_OVER:
        return 0
    return buy.limit - (game.bought[seat] if game.bought else 0)


def check_buy(game: Game, ruleset: RuleSet, player_id: str, amount: int) -> int:
    """The seat of a player who may buy `amount` chips now: the rule set lets players buy, the game is not over, the
    player has a seat, and the buy is at least one chip and within what the limit leaves them."""
    if game.status is GameStatus.GAME_OVER:
        raise GameOver(f"game {game.game_id} is over")
    buy = ruleset.terms.buy_chips
    if buy is None:
        raise BuyNotAllowed(f"{ruleset.id}: no chips enter the game but the starting chips")
    seat = game.seat_of(player_id)
    if seat is None:
        raise NotYourTurn(f"{player_id} has no seat in game {game.game_id}")
    room = buy_room(game, ruleset, seat)
    if not 1 <= amount <= room:
        raise BuyOverLimit(f"a buy is 1..{room} chips now (at most {buy.limit} a player in a game), not {amount}")
    return seat


def may_split(game: Game, ruleset: RuleSet) -> bool:
    """Whether the player to act, holding a pair of first two cards, may split it: the rule set offers a split, the
    pair is not already a split hand's, and the player holds more than the cost (a chip is left to bet with)."""
    cost, turn = ruleset.split_cost(game.ante), game.turn
    if cost is None or turn is None or turn.hand != 0:
        return False
    return game.seats[turn.seat].chips > cost


def post_cost(bet: int, chips: int, ruleset: RuleSet) -> int:
    """What hitting a post costs: the rule's multiple of the bet, or everything the player has left."""
    return min(ruleset.terms.post.multiple * bet, chips)


def check_agreement(game: Game, ruleset: RuleSet, player_id: str) -> int:
    """The seat of a player who may agree to stop now: the rule set lets players stop by agreement, the game is not
    over, and the player has a seat with chips and has not agreed already."""
    if game.status is GameStatus.GAME_OVER:
        raise GameOver(f"game {game.game_id} is over")
    if not ruleset.terms.stop_by_agreement:
        raise StopNotAllowed(f"{ruleset.id}: the game ends by its own rules, not by the players' agreement")
    seat = game.seat_of(player_id)
    if seat is None:
        raise NotYourTurn(f"{player_id} has no seat in game {game.game_id}")
    if game.seats[seat].chips == 0:
        raise WrongAction(f"{player_id} has no chips left: only players with chips agree to stop")
    if seat in game.agreed:
        raise WrongAction(f"{player_id} has already agreed to stop")
    return seat


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
    """Refuse a bet over the pot (or the first round's half of it), over the player's chips, or under the least bet."""
    least, _ = bet_limits(game, ruleset)
    chips = game.seats[game.turn.seat].chips if game.turn else 0
    limit = _table_limit(game, ruleset)
    if amount > limit:
        what = "the pot" if limit == game.pot else "half the pot, the most a first-round bet may take,"
        raise BetOverPot(f"a bet of {amount} is more than {what} of {limit}")
    if amount > chips:
        raise BetOverChips(f"a bet of {amount} is more than the {chips} chips the player holds")
    if amount < least:
        raise BetBelowMinimum(f"a bet must be at least {least}, got {amount}")


def check_setup(
    ruleset: RuleSet,
    ante: int,
    rounds: int | str,
    seats: Sequence[SeatSpec],
    dealer: int,
    shoe: Shoe,
    forced: int = 0,
    test: bool = False,
) -> None:
    """Refuse a game the rule set does not offer, one dealt from anything but a full, undealt pack, and forced cards
    in a game that is no test (or more of them than the pack holds)."""
    if (forced and not test) or not 0 <= forced <= len(shoe.order) // 2:
        raise InvalidGame("forced cards are for test games only, and no more than the pack holds")
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
