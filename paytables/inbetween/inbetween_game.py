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
from datetime import datetime

from paytables.inbetween.inbetween_actions import (
    CallAce,
    CallPair,
    GameOver,
    ImpossibleCall,
    InBetweenAction,
    PassTurn,
    PlaceBet,
    WrongAction,
    bet_limits,
    check_action,
    check_bet,
    check_now,
    check_ruleset,
    check_setup,
    post_cost,
)
from paytables.inbetween.inbetween_events import (
    AceCall,
    CalledBy,
    CardRole,
    ChipReason,
    Decision,
    EndReason,
    InBetweenAceCalled,
    InBetweenBetPlaced,
    InBetweenGameEnded,
    InBetweenGameStarted,
    InBetweenPairCalled,
    InBetweenPassed,
    InBetweenRoundEnded,
    InBetweenRoundStarted,
    InBetweenShoeShuffled,
    InBetweenTurnEnded,
    InBetweenTurnStarted,
    SeatSpec,
    TurnOutcome,
)
from paytables.inbetween.inbetween_posts import PostsKind, ThirdOutcome, possible_pair_calls
from paytables.inbetween.inbetween_rules import UNTIL_EMPTY, AdjacentLoses, FirstAce, PairIsCalled, PairPays, RuleSet
from paytables.inbetween.inbetween_state import Game, GameStatus, begin
from paytables.inbetween.inbetween_tape import InBetweenStep, Tape
from shoe.cards import ACE, rank, rank_symbol
from shoe.random_source import RandomSource
from shoe.shoe import Shoe

__all__ = ["InBetweenStep", "act", "advance", "start_game"]


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
    check_now(now)
    check_setup(ruleset, ante, rounds, seats, dealer, shoe)
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
    tape = Tape(begin(started), shoe, ruleset, source, now)
    tape.events.append(started)
    tape.emit(InBetweenShoeShuffled(shoe_number=1, commitment=shoe.commitment, size=shoe.size))
    _begin_round(tape, dealer)
    return tape.step()


def act(
    game: Game, shoe: Shoe, action: InBetweenAction, *, ruleset: RuleSet, source: RandomSource, now: datetime
) -> InBetweenStep:
    """A player's call, bet or pass; refused with an `InBetweenError` (and nothing written) when the rules say no."""
    check_ruleset(game, ruleset)
    check_now(now)
    check_action(game, action)
    tape = Tape(game, shoe, ruleset, source, now)
    seat = tape.turn.seat
    match action:
        case CallAce():
            tape.emit(InBetweenAceCalled(seat=seat, call=action.call, by=CalledBy.PLAYER))
            _second_post(tape)
        case CallPair():
            posts = tape.turn.posts
            assert posts is not None  # a pair call is awaited only with both posts down
            if action.call not in possible_pair_calls(posts.first):
                raise ImpossibleCall(f"nothing is {action.call} than a pair of {rank_symbol(posts.first)}s")
            tape.emit(InBetweenPairCalled(seat=seat, call=action.call))
            tape.await_decision(Decision.BET, *bet_limits(tape.game, tape.rules))
        case PlaceBet():
            check_bet(game, ruleset, action.amount)
            tape.emit(InBetweenBetPlaced(seat=seat, amount=action.amount))
            _third_card(tape)
        case PassTurn():
            tape.emit(InBetweenPassed(seat=seat))
            _end_turn(tape, TurnOutcome.PASSED)
    return tape.step()


def advance(game: Game, shoe: Shoe, *, ruleset: RuleSet, source: RandomSource, now: datetime) -> InBetweenStep:
    """Move on from a finished turn to the next, or from a finished round to the next round's antes and first turn."""
    check_ruleset(game, ruleset)
    check_now(now)
    tape = Tape(game, shoe, ruleset, source, now)
    if game.status is GameStatus.TURN_OVER and game.turn is not None:
        _next_turn(tape, game.turn.index + 1)
    elif game.status is GameStatus.ROUND_OVER:
        _begin_round(tape, _next_dealer(game))
    elif game.status is GameStatus.GAME_OVER:
        raise GameOver(f"game {game.game_id} is over")
    else:
        raise WrongAction(f"game {game.game_id} waits for {game.to_act}: {game.status}")
    return tape.step()


def _begin_round(tape: Tape, dealer: int) -> None:
    game, banker = tape.game, tape.rules.banker
    cycle = [(dealer + 1 + i) % len(game.seats) for i in range(len(game.seats))]
    players = [s for s in cycle if game.seats[s].chips > 0 and not (banker and s == dealer)]
    order = tuple(players * banker.orbits) if banker else tuple(players)
    tape.emit(InBetweenRoundStarted(round=game.round + 1, dealer=dealer, order=order))
    if banker:
        tape.move(dealer, -min(banker.stake_antes * game.ante, game.seats[dealer].chips), ChipReason.STAKE)
    else:
        _antes(tape, ChipReason.ANTE)
        if len(tape.game.seats_with_chips()) <= 1:
            _end_game(tape, EndReason.ONE_PLAYER_LEFT)
            return
    _next_turn(tape, 0)


def _antes(tape: Tape, reason: ChipReason) -> None:
    for seat in tape.game.from_dealers_left():
        chips = tape.game.seats[seat].chips
        if chips > 0:
            tape.move(seat, -min(tape.game.ante, chips), reason)


def _next_turn(tape: Tape, start: int) -> None:
    index = _next_index(tape.game, start)
    if index is None:
        _end_round(tape)
        return
    seat = tape.game.order[index]
    tape.emit(InBetweenTurnStarted(seat=seat, player_id=tape.game.seats[seat].player_id, index=index))
    if rank(tape.deal(CardRole.FIRST_POST)) == ACE:
        if tape.rules.terms.first_ace is FirstAce.CHOICE:
            tape.await_decision(Decision.ACE_CALL)
            return
        tape.emit(InBetweenAceCalled(seat=seat, call=AceCall.HIGH, by=CalledBy.RULE))
    _second_post(tape)


def _second_post(tape: Tape) -> None:
    tape.deal(CardRole.SECOND_POST)
    posts, seat, rules = tape.turn.posts, tape.turn.seat, tape.rules.terms
    assert posts is not None
    kind = posts.kind
    if kind is PostsKind.SPREAD:
        tape.await_decision(Decision.BET, *bet_limits(tape.game, tape.rules))
    elif kind is PostsKind.PAIR and isinstance(rules.pair, PairIsCalled):
        tape.await_decision(Decision.PAIR_CALL)
    elif kind is PostsKind.PAIR and isinstance(rules.pair, PairPays):
        tape.move(seat, min(rules.pair.chips, tape.game.pot), ChipReason.PAIR_PAID)
        _end_turn(tape, TurnOutcome.PAIR_PAID)
    elif kind is PostsKind.PAIR:
        _end_turn(tape, TurnOutcome.PAIR_PUSHED)
    elif isinstance(rules.adjacent, AdjacentLoses):
        tape.move(seat, -min(rules.adjacent.chips, tape.game.seats[seat].chips), ChipReason.ADJACENT_LOST)
        _end_turn(tape, TurnOutcome.ADJACENT_LOST)
    else:
        _end_turn(tape, TurnOutcome.ADJACENT_PASSED)


def _third_card(tape: Tape) -> None:
    card = tape.deal(CardRole.THIRD_CARD)
    turn = tape.turn
    assert turn.posts is not None
    assert turn.bet is not None
    outcome = turn.posts.outcome(rank(card), turn.pair_call)
    chips = tape.game.seats[turn.seat].chips
    if outcome is ThirdOutcome.WIN:
        tape.move(turn.seat, turn.bet, ChipReason.WIN)
    elif outcome is ThirdOutcome.POST:
        tape.move(turn.seat, -post_cost(turn.bet, chips, tape.rules), ChipReason.POST)
    else:
        tape.move(turn.seat, -turn.bet, ChipReason.LOSE)
    _end_turn(tape, TurnOutcome(outcome.value))


def _end_turn(tape: Tape, outcome: TurnOutcome) -> None:
    """Close the turn, then decide what follows: the game's end, a re-ante, the round's end or another turn."""
    turn = tape.turn
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


def _end_round(tape: Tape) -> None:
    game = tape.game
    if tape.rules.banker and game.pot > 0:
        tape.move(game.dealer, game.pot, ChipReason.BANK_RETURNED)
    tape.emit(InBetweenRoundEnded(round=game.round))
    if len(tape.game.seats_with_chips()) <= 1:
        _end_game(tape, EndReason.ONE_PLAYER_LEFT)
    elif game.rounds is not None and game.round >= game.rounds:
        _end_game(tape, EndReason.ROUNDS_PLAYED)


def _end_game(tape: Tape, reason: EndReason) -> None:
    _share_pot(tape)
    game = tape.game
    tape.emit(tape.revealed())
    chips = tuple(seat.chips for seat in game.seats)
    winners = tuple(i for i, c in enumerate(chips) if c == max(chips))
    tape.emit(InBetweenGameEnded(reason=reason, chips=chips, winners=winners, at=tape.now))


def _share_pot(tape: Tape) -> None:
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
            tape.move(seat, amount, ChipReason.SHARED)


def _next_index(game: Game, start: int) -> int | None:
    """The next turn in the round's order from `start`, skipping players with no chips."""
    for index in range(start, len(game.order)):
        if game.seats[game.order[index]].chips > 0:
            return index
    return None


def _next_dealer(game: Game) -> int:
    return next(s for s in game.from_dealers_left() if game.seats[s].chips > 0)
