"""The In Between game engine: a `Game` and its shoe in, the next `Game`, shoe and audit events out. No I/O.

Play follows the rule set (`inbetween_rules`). The points the rules leave open are settled here:

- A post costs the rule's multiple of the bet (1, 2 or 3), or everything the player has left when that is less:
  chips never go below zero, and the bet itself is never more than the player holds.
- A bet is 1 (or the ante, by the rule) up to the pot and the player's chips; when the pot or the player's chips are
  below that minimum, the minimum is what they allow. A player with fewer chips than the ante antes all they have.
- A bet (or a pair's payment) that empties the pot: if another turn follows in this round, everyone with chips antes
  again at once (`reante`) before it; after the round's last turn the next round's antes refill it. In a game played
  "until the pot is empty" that bet ends the game instead.
- The game ends early when at most one player has chips (that player then holds every chip once the pot is shared).
- At the end the pot is shared equally by the players who still have chips; the odd chips go one each to them in turn
  order from the dealer's left. If no one has chips left (the last antes took them all) the round's players share it.
- The dealer's bank (`DealerBanks`): the dealer stakes `stake_antes` x ante (or all they have) as the pot; every other
  player with chips plays against it in turn, `orbits` times round, until the pot is empty; the dealer then takes back
  what is left. Nobody else antes. A round is one bank, and the deal (with the bank) moves on.
- The deal moves one seat each round, to the next seat with chips; a player with no chips sits out.
- The pack is one deck; when it runs out, every card not on the table is shuffled into a new committed pack (the old
  one revealed). A first-post ace is called high or low before the second post (or is high, by the rule); a second
  post ace is high. Every seat conserves chips: chips held + pot = players x starting chips at every step, the bank
  included (the banker's stake is in the pot until it comes back).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

import msgspec

from paytables.inbetween_events import (
    AceCall,
    CalledBy,
    CardRole,
    ChipReason,
    Decision,
    EndReason,
    InBetweenAceCalled,
    InBetweenAwaiting,
    InBetweenBetPlaced,
    InBetweenCardDealt,
    InBetweenChipsMoved,
    InBetweenEvent,
    InBetweenGameEnded,
    InBetweenGameStarted,
    InBetweenPairCalled,
    InBetweenPassed,
    InBetweenRoundEnded,
    InBetweenRoundStarted,
    InBetweenShoeRevealed,
    InBetweenShoeShuffled,
    InBetweenTurnEnded,
    InBetweenTurnStarted,
    PairCall,
    SeatSpec,
    TurnOutcome,
)
from paytables.inbetween_posts import PostsKind, ThirdOutcome, possible_pair_calls
from paytables.inbetween_rules import (
    UNTIL_EMPTY,
    AdjacentLoses,
    FirstAce,
    MinimumBet,
    PairIsCalled,
    PairPays,
    RuleSet,
)
from paytables.inbetween_state import Game, GameStatus, apply, begin
from paytables.round import GameError
from shoe.cards import ACE, DECK, rank, rank_symbol
from shoe.random_source import RandomSource
from shoe.shoe import Shoe, shoe_of


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

_ACTION_STATES: dict[type[InBetweenAction], tuple[GameStatus, ...]] = {
    CallAce: (GameStatus.AWAITING_ACE_CALL,),
    CallPair: (GameStatus.AWAITING_PAIR_CALL,),
    PlaceBet: (GameStatus.AWAITING_BET,),
    PassTurn: (GameStatus.AWAITING_PAIR_CALL, GameStatus.AWAITING_BET),
}


class InBetweenStep(msgspec.Struct, frozen=True, kw_only=True):
    """The outcome of one move: the game and shoe after it, and the events to append to the audit log."""

    game: Game
    shoe: Shoe
    events: tuple[InBetweenEvent, ...]


class _Tape:
    """A step being written: each event is recorded and applied at once, so the game is always its events' sum."""

    def __init__(self, game: Game, shoe: Shoe, rules: RuleSet, source: RandomSource, now: datetime) -> None:
        self.game, self.shoe, self.rules, self.source, self.now = game, shoe, rules, source, now
        self.events: list[InBetweenEvent] = []

    def emit(self, event: InBetweenEvent) -> None:
        self.events.append(event)
        self.game = apply(self.game, event)

    def step(self) -> InBetweenStep:
        return InBetweenStep(game=self.game, shoe=self.shoe, events=tuple(self.events))


def start_game(
    *,
    game_id: str,
    ruleset: RuleSet,
    ante: int,
    rounds: int | str,
    seats: Sequence[SeatSpec],
    shoe: Shoe,
    source: RandomSource,
    now: datetime,
    dealer: int = 0,
    test: bool = False,
) -> InBetweenStep:
    """Seat the players, publish the pack's commitment, take the first antes and deal the first turn."""
    _check_now(now)
    _check_setup(ruleset, ante, rounds, seats, dealer, shoe)
    started = InBetweenGameStarted(
        game_id=game_id,
        ruleset=ruleset.id,
        ruleset_sha256=ruleset.sha256,
        ante=ante,
        rounds=None if rounds == UNTIL_EMPTY else int(rounds),
        starting_chips=ruleset.terms.starting_chips,
        seats=tuple(seats),
        dealer=dealer,
        test=test,
        at=now,
    )
    tape = _Tape(begin(started), shoe, ruleset, source, now)
    tape.events.append(started)
    tape.emit(InBetweenShoeShuffled(shoe_number=1, commitment=shoe.commitment, size=shoe.size))
    _begin_round(tape, dealer)
    return tape.step()


def act(
    game: Game, shoe: Shoe, action: InBetweenAction, *, ruleset: RuleSet, source: RandomSource, now: datetime
) -> InBetweenStep:
    """A player's call, bet or pass; refused with an `InBetweenError` (and nothing written) when the rules say no."""
    _check_ruleset(game, ruleset)
    _check_now(now)
    if game.status is GameStatus.GAME_OVER:
        raise GameOver(f"game {game.game_id} is over")
    if game.to_act is None or game.turn is None:
        raise WrongAction(f"game {game.game_id} waits for no player now ({game.status})")
    if action.player_id != game.to_act:
        raise NotYourTurn(f"it is {game.to_act}'s turn, not {action.player_id}'s")
    if game.status not in _ACTION_STATES[type(action)]:
        raise WrongAction(f"game {game.game_id} is {game.status}: no {type(action).__name__} now")
    tape = _Tape(game, shoe, ruleset, source, now)
    seat = game.turn.seat
    match action:
        case CallAce():
            tape.emit(InBetweenAceCalled(seat=seat, call=action.call, by=CalledBy.PLAYER))
            _second_post(tape)
        case CallPair():
            posts = game.turn.posts
            assert posts is not None  # a pair call is awaited only with both posts down
            if action.call not in possible_pair_calls(posts.first):
                raise ImpossibleCall(f"nothing is {action.call} than a pair of {rank_symbol(posts.first)}s")
            tape.emit(InBetweenPairCalled(seat=seat, call=action.call))
            _await_bet(tape)
        case PlaceBet():
            _check_bet(game, ruleset, action.amount)
            tape.emit(InBetweenBetPlaced(seat=seat, amount=action.amount))
            _third_card(tape)
        case PassTurn():
            tape.emit(InBetweenPassed(seat=seat))
            _end_turn(tape, TurnOutcome.PASSED)
    return tape.step()


def advance(game: Game, shoe: Shoe, *, ruleset: RuleSet, source: RandomSource, now: datetime) -> InBetweenStep:
    """Move on from a finished turn to the next, or from a finished round to the next round's antes and first turn."""
    _check_ruleset(game, ruleset)
    _check_now(now)
    tape = _Tape(game, shoe, ruleset, source, now)
    if game.status is GameStatus.TURN_OVER and game.turn is not None:
        _next_turn(tape, game.turn.index + 1)
    elif game.status is GameStatus.ROUND_OVER:
        _begin_round(tape, _next_dealer(game))
    elif game.status is GameStatus.GAME_OVER:
        raise GameOver(f"game {game.game_id} is over")
    else:
        raise WrongAction(f"game {game.game_id} waits for {game.to_act}: {game.status}")
    return tape.step()


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


def _begin_round(tape: _Tape, dealer: int) -> None:
    game, banker = tape.game, tape.rules.banker
    cycle = [(dealer + 1 + i) % len(game.seats) for i in range(len(game.seats))]
    players = [s for s in cycle if game.seats[s].chips > 0 and not (banker and s == dealer)]
    order = tuple(players * banker.orbits) if banker else tuple(players)
    tape.emit(InBetweenRoundStarted(round=game.round + 1, dealer=dealer, order=order))
    if banker:
        _move(tape, dealer, -min(banker.stake_antes * game.ante, game.seats[dealer].chips), ChipReason.STAKE)
    else:
        _antes(tape, ChipReason.ANTE)
        if len(tape.game.seats_with_chips()) <= 1:
            _end_game(tape, EndReason.ONE_PLAYER_LEFT)
            return
    _next_turn(tape, 0)


def _antes(tape: _Tape, reason: ChipReason) -> None:
    for seat in tape.game.from_dealers_left():
        chips = tape.game.seats[seat].chips
        if chips > 0:
            _move(tape, seat, -min(tape.game.ante, chips), reason)


def _next_turn(tape: _Tape, start: int) -> None:
    index = _next_index(tape.game, start)
    if index is None:
        _end_round(tape)
        return
    seat = tape.game.order[index]
    tape.emit(InBetweenTurnStarted(seat=seat, player_id=tape.game.seats[seat].player_id, index=index))
    if rank(_deal(tape, CardRole.FIRST_POST)) == ACE:
        if tape.rules.terms.first_ace is FirstAce.CHOICE:
            _await(tape, Decision.ACE_CALL)
            return
        tape.emit(InBetweenAceCalled(seat=seat, call=AceCall.HIGH, by=CalledBy.RULE))
    _second_post(tape)


def _second_post(tape: _Tape) -> None:
    _deal(tape, CardRole.SECOND_POST)
    assert tape.game.turn is not None
    assert tape.game.turn.posts is not None
    kind, rules = tape.game.turn.posts.kind, tape.rules.terms
    if kind is PostsKind.SPREAD:
        _await_bet(tape)
    elif kind is PostsKind.PAIR and isinstance(rules.pair, PairIsCalled):
        _await(tape, Decision.PAIR_CALL)
    elif kind is PostsKind.PAIR and isinstance(rules.pair, PairPays):
        _move(tape, tape.game.turn.seat, min(rules.pair.chips, tape.game.pot), ChipReason.PAIR_PAID)
        _end_turn(tape, TurnOutcome.PAIR_PAID)
    elif kind is PostsKind.PAIR:
        _end_turn(tape, TurnOutcome.PAIR_PUSHED)
    elif isinstance(rules.adjacent, AdjacentLoses):
        seat = tape.game.turn.seat
        _move(tape, seat, -min(rules.adjacent.chips, tape.game.seats[seat].chips), ChipReason.ADJACENT_LOST)
        _end_turn(tape, TurnOutcome.ADJACENT_LOST)
    else:
        _end_turn(tape, TurnOutcome.ADJACENT_PASSED)


def _third_card(tape: _Tape) -> None:
    card = _deal(tape, CardRole.THIRD_CARD)
    turn = tape.game.turn
    assert turn is not None
    assert turn.posts is not None
    assert turn.bet is not None
    outcome = turn.posts.outcome(rank(card), turn.pair_call)
    chips = tape.game.seats[turn.seat].chips
    if outcome is ThirdOutcome.WIN:
        _move(tape, turn.seat, turn.bet, ChipReason.WIN)
    elif outcome is ThirdOutcome.POST:
        _move(tape, turn.seat, -post_cost(turn.bet, chips, tape.rules), ChipReason.POST)
    else:
        _move(tape, turn.seat, -turn.bet, ChipReason.LOSE)
    _end_turn(tape, TurnOutcome(outcome.value))


def _end_turn(tape: _Tape, outcome: TurnOutcome) -> None:
    """Close the turn, then decide what follows: the game's end, a re-ante, the round's end or another turn."""
    turn = tape.game.turn
    assert turn is not None
    tape.emit(InBetweenTurnEnded(seat=turn.seat, outcome=outcome))
    game, banker = tape.game, tape.rules.banker
    if not banker and len(game.seats_with_chips()) <= 1:
        _end_game(tape, EndReason.ONE_PLAYER_LEFT)
    elif game.pot == 0 and game.rounds is None:
        _end_game(tape, EndReason.POT_EMPTIED)
    elif (banker and game.pot == 0) or _next_index(game, turn.index + 1) is None:
        _end_round(tape)
    elif game.pot == 0:
        _antes(tape, ChipReason.REANTE)
        if len(tape.game.seats_with_chips()) <= 1:
            _end_game(tape, EndReason.ONE_PLAYER_LEFT)
        elif _next_index(tape.game, turn.index + 1) is None:
            _end_round(tape)  # the players still to come put their last chips in with the re-ante


def _end_round(tape: _Tape) -> None:
    game = tape.game
    if tape.rules.banker and game.pot > 0:
        _move(tape, game.dealer, game.pot, ChipReason.BANK_RETURNED)
    tape.emit(InBetweenRoundEnded(round=game.round))
    if len(tape.game.seats_with_chips()) <= 1:
        _end_game(tape, EndReason.ONE_PLAYER_LEFT)
    elif game.rounds is not None and game.round >= game.rounds:
        _end_game(tape, EndReason.ROUNDS_PLAYED)


def _end_game(tape: _Tape, reason: EndReason) -> None:
    _share_pot(tape)
    game, shoe = tape.game, tape.shoe
    tape.emit(_revealed(game, shoe))
    chips = tuple(seat.chips for seat in game.seats)
    winners = tuple(i for i, c in enumerate(chips) if c == max(chips))
    tape.emit(InBetweenGameEnded(reason=reason, chips=chips, winners=winners, at=tape.now))


def _share_pot(tape: _Tape) -> None:
    game = tape.game
    if game.pot == 0:
        return
    sharers = [s for s in game.from_dealers_left() if game.seats[s].chips > 0]
    if not sharers:
        sharers = [s for s in game.from_dealers_left() if s in game.order]
    share, odd = divmod(game.pot, len(sharers))
    for place, seat in enumerate(sharers):
        amount = share + (1 if place < odd else 0)
        if amount:
            _move(tape, seat, amount, ChipReason.SHARED)


def _await_bet(tape: _Tape) -> None:
    least, most = bet_limits(tape.game, tape.rules)
    _await(tape, Decision.BET, least, most)


def _await(tape: _Tape, decision: Decision, least: int | None = None, most: int | None = None) -> None:
    turn = tape.game.turn
    assert turn is not None
    player = tape.game.seats[turn.seat].player_id
    tape.emit(InBetweenAwaiting(seat=turn.seat, player_id=player, decision=decision, min_bet=least, max_bet=most))


def _deal(tape: _Tape, role: CardRole) -> str:
    """The next card of the pack; an empty pack is first replaced by the cards off the table, shuffled."""
    if tape.shoe.position >= tape.shoe.size:
        _reshuffle(tape)
    card, index, tape.shoe = tape.shoe.deal()
    turn = tape.game.turn
    assert turn is not None
    tape.emit(
        InBetweenCardDealt(seat=turn.seat, role=role, card=card, shoe_number=tape.game.shoe_number, shoe_index=index)
    )
    return card


def _reshuffle(tape: _Tape) -> None:
    table = tape.game.turn.table_cards if tape.game.turn else ()
    tape.emit(_revealed(tape.game, tape.shoe))
    rest = [card for card in DECK if card not in table]
    tape.shoe = shoe_of(rest, tape.source)
    number = tape.game.shoe_number + 1
    tape.emit(
        InBetweenShoeShuffled(shoe_number=number, commitment=tape.shoe.commitment, size=tape.shoe.size, excluded=table)
    )


def _revealed(game: Game, shoe: Shoe) -> InBetweenShoeRevealed:
    return InBetweenShoeRevealed(
        shoe_number=game.shoe_number, commitment=shoe.commitment, salt=shoe.salt, order=shoe.order, dealt=shoe.position
    )


def _move(tape: _Tape, seat: int, delta: int, reason: ChipReason) -> None:
    game = tape.game
    chips, pot = game.seats[seat].chips + delta, game.pot - delta
    player = game.seats[seat].player_id
    tape.emit(InBetweenChipsMoved(seat=seat, player_id=player, delta=delta, reason=reason, chips=chips, pot=pot))


def _next_index(game: Game, start: int) -> int | None:
    """The next turn in the round's order from `start`, skipping players with no chips."""
    for index in range(start, len(game.order)):
        if game.seats[game.order[index]].chips > 0:
            return index
    return None


def _next_dealer(game: Game) -> int:
    return next(s for s in game.from_dealers_left() if game.seats[s].chips > 0)


def _check_bet(game: Game, ruleset: RuleSet, amount: int) -> None:
    least, most = bet_limits(game, ruleset)
    chips = game.seats[game.turn.seat].chips if game.turn else 0
    if amount > game.pot:
        raise BetOverPot(f"a bet of {amount} is more than the pot of {game.pot}")
    if amount > chips:
        raise BetOverChips(f"a bet of {amount} is more than the {chips} chips the player holds")
    if amount < least:
        raise BetBelowMinimum(f"a bet must be at least {least}, got {amount}")
    assert amount <= most


def _check_setup(
    ruleset: RuleSet, ante: int, rounds: int | str, seats: Sequence[SeatSpec], dealer: int, shoe: Shoe
) -> None:
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


def _check_ruleset(game: Game, ruleset: RuleSet) -> None:
    if (game.ruleset, game.ruleset_sha256) != (ruleset.id, ruleset.sha256):
        raise InvalidGame(f"game {game.game_id} is played by {game.ruleset} ({game.ruleset_sha256[:12]})")


def _check_now(now: datetime) -> None:
    if now.utcoffset() != timedelta(0):
        raise ValueError("`now` must be an aware UTC datetime")
