"""The In Between game engine: a `Game` and its shoe in, the next `Game`, shoe and audit events out. No I/O.

Play follows the rule set (`inbetween_rules`); who deals first and a bank twice through the deck are in
`inbetween_deal`. The points the rules leave open are settled here, each as docs/inbetween.md lists it: a post costs
the rule's multiple of the bet or all the player has left; a bet is the least bet (1 or the ante) up to the pot (or
the first round's half of it) and the player's chips; a short ante is everything the player has; a pot emptied
mid-round is re-anted at once (or ends an `until_empty` game, when a bet emptied it); the game ends early when at most
one player has chips; the pot left at the end is shared equally by those with chips, odd chips in turn order; the
dealer's bank stakes `stake_antes` antes and takes back what is left; the deal moves one seat the way play goes, to
the next seat with chips; a spent pack is replaced by every card not on the table, shuffled and committed. A split
pair's two hands are played one after the other in one turn, the second only while the pot and the player have
chips. How a game ends, the players' agreement to stop included, is in `inbetween_endings`. Chips held plus the pot
are players x starting chips at every step.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from paytables.inbetween.inbetween_actions import (
    AgreeToStop,
    BuyChips,
    CallAce,
    CallPair,
    GameOver,
    ImpossibleCall,
    InBetweenAction,
    KeepPair,
    PassTurn,
    PlaceBet,
    ShowCards,
    SplitPair,
    WrongAction,
    bet_limits,
    check_action,
    check_agreement,
    check_bet,
    check_buy,
    check_now,
    check_pass,
    check_ruleset,
    check_setup,
    may_split,
    post_cost,
)
from paytables.inbetween.inbetween_deal import (
    bank_done_at_orbit,
    draw_dealer,
    fresh_pack,
    orbits_for,
    twice_through,
)
from paytables.inbetween.inbetween_endings import agree, end_game
from paytables.inbetween.inbetween_events import (
    AceCall,
    CalledBy,
    CardRole,
    ChipReason,
    Decision,
    EndReason,
    InBetweenAceCalled,
    InBetweenBetPlaced,
    InBetweenCardsShown,
    InBetweenGameStarted,
    InBetweenHandEnded,
    InBetweenPairCalled,
    InBetweenPairSplit,
    InBetweenPassed,
    InBetweenRoundEnded,
    InBetweenRoundStarted,
    InBetweenShoeShuffled,
    InBetweenStoodIn,
    InBetweenTurnEnded,
    InBetweenTurnStarted,
    SeatSpec,
    StandIn,
    TurnOutcome,
)
from paytables.inbetween.inbetween_posts import PostsKind, ThirdOutcome, possible_pair_calls
from paytables.inbetween.inbetween_rules import (
    UNTIL_EMPTY,
    AdjacentLoses,
    AdjacentReturnsAnte,
    FirstAce,
    PairIsCalled,
    PairPays,
    PairReturnsAnte,
    RuleSet,
)
from paytables.inbetween.inbetween_state import Game, GameStatus, begin
from paytables.inbetween.inbetween_tape import InBetweenStep, Tape
from shoe.cards import ACE, rank, rank_symbol
from shoe.random_source import RandomSource
from shoe.shoe import Shoe

__all__ = ["InBetweenStep", "act", "advance", "start_game"]
PUSHES = (TurnOutcome.ADJACENT_PUSHED, TurnOutcome.PAIR_PUSHED)  # an ante given back never ends an `until_empty` game


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
    forced: int = 0,
) -> InBetweenStep:
    """Seat the players, publish the pack's commitment (with how many cards a test game forced to its front), take
    the first antes and deal the first turn."""
    check_now(now)
    check_setup(ruleset, ante, rounds, seats, dealer, shoe, forced, test)
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
    tape.emit(InBetweenShoeShuffled(shoe_number=1, commitment=shoe.commitment, size=shoe.size, forced=forced))
    _begin_round(tape, draw_dealer(tape, dealer))
    return tape.step()


def act(
    game: Game,
    shoe: Shoe,
    action: InBetweenAction,
    *,
    ruleset: RuleSet,
    source: RandomSource,
    now: datetime,
    stand_in: StandIn | None = None,
) -> InBetweenStep:
    """A player's call, bet or pass; refused with an `InBetweenError` (and nothing written) when the rules say no.
    A move made for the seat by the computer or the timer (`stand_in`) is written after an `ib_stood_in` naming it."""
    check_ruleset(game, ruleset)
    check_now(now)
    if isinstance(action, AgreeToStop):
        seat = check_agreement(game, ruleset, action.player_id)
        return agree(_stood_in(Tape(game, shoe, ruleset, source, now), seat, stand_in), seat)
    if isinstance(action, BuyChips):
        if stand_in is not None:  # chips are bought by a person, asking: no computer or timer buys them
            raise WrongAction(f"the {stand_in.by} does not buy chips")
        tape = Tape(game, shoe, ruleset, source, now)
        tape.buy(check_buy(game, ruleset, action.player_id, action.amount), action.amount)
        return tape.step()
    check_action(game, action)
    tape = Tape(game, shoe, ruleset, source, now)
    seat = tape.turn.seat
    _stood_in(tape, seat, stand_in)
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
            check_pass(game, ruleset)
            tape.emit(InBetweenPassed(seat=seat))
            _end_turn(tape, TurnOutcome.FOLDED if tape.turn.hidden else TurnOutcome.PASSED)
        case ShowCards():
            cards = tuple(shoe.card_at(place) for place in tape.turn.down)  # no pack is shuffled while they are down
            tape.emit(InBetweenCardsShown(seat=seat, cards=cards))
            if rank(cards[0]) == ACE:  # face-down rule sets play aces high (`check_terms`)
                tape.emit(InBetweenAceCalled(seat=seat, call=AceCall.HIGH, by=CalledBy.RULE))
            _posts_down(tape)
        case SplitPair():
            cost = ruleset.split_cost(game.ante)
            assert cost is not None  # a split is awaited only where the rule set offers one
            tape.move(seat, -cost, ChipReason.SPLIT)
            tape.emit(InBetweenPairSplit(seat=seat))
            _second_post(tape)
        case KeepPair():
            _posts_down(tape)
    return tape.step()


def _stood_in(tape: Tape, seat: int, stand_in: StandIn | None) -> Tape:
    if stand_in is not None:
        tape.emit(
            InBetweenStoodIn(
                seat=seat, by=stand_in.by, personality=stand_in.personality, endgame_tip=stand_in.endgame_tip
            )
        )
    return tape


def advance(game: Game, shoe: Shoe, *, ruleset: RuleSet, source: RandomSource, now: datetime) -> InBetweenStep:
    """Move on from a finished turn to the next, or from a finished round to the next round's antes and first turn."""
    check_ruleset(game, ruleset)
    check_now(now)
    tape = Tape(game, shoe, ruleset, source, now)
    if game.status is GameStatus.TURN_OVER and game.turn is not None:
        _next_turn(tape, game.turn.index + 1)
    elif game.status is GameStatus.ROUND_OVER:
        _begin_round(tape, game.dealer if ruleset.game_bank else _next_dealer(game, ruleset))
    elif game.status is GameStatus.GAME_OVER:
        raise GameOver(f"game {game.game_id} is over")
    else:
        raise WrongAction(f"game {game.game_id} waits for {game.to_act}: {game.status}")
    return tape.step()


def _begin_round(tape: Tape, dealer: int) -> None:
    if tape.rules.game_bank:
        _begin_bank_round(tape, dealer)
        return
    game, banker, twice = tape.game, tape.rules.banker, twice_through(tape.rules)
    n, step = len(game.seats), tape.rules.terms.direction.step
    cycle = [(dealer + step * (1 + i)) % n for i in range(n)]
    players = [s for s in cycle if game.seats[s].chips > 0 and not (banker and s == dealer)]
    if twice:
        fresh_pack(tape, game)
    orbits = (orbits_for(len(players)) if twice else int(banker.orbits)) if banker else 1
    first_shoe = tape.game.shoe_number if twice else None
    order = tuple(players * orbits)
    tape.emit(InBetweenRoundStarted(round=game.round + 1, dealer=dealer, order=order, first_shoe=first_shoe))
    if banker:
        tape.move(dealer, -min(banker.stake_antes * game.ante, game.seats[dealer].chips), ChipReason.STAKE)
    else:
        _antes(tape, ChipReason.ANTE)
        if len(tape.game.seats_with_chips()) <= 1:
            end_game(tape, EndReason.ONE_PLAYER_LEFT)
            return
    _next_turn(tape, 0)


def _begin_bank_round(tape: Tape, dealer: int) -> None:
    """A round of the dealer's game bank (pagat): the cards gathered and shuffled (after the first round), the stake
    put up once, "one card face up to each of the other players", then their turns from the dealer's neighbour."""
    game, bank = tape.game, tape.rules.game_bank
    assert bank is not None
    if game.round > 0:
        tape.reshuffle(table=())  # "the dealer gathers the cards, they are shuffled and cut again"
    n, step = len(game.seats), tape.rules.terms.direction.step
    players = [s for s in ((dealer + step * (1 + i)) % n for i in range(n - 1)) if game.seats[s].chips > 0]
    tape.emit(InBetweenRoundStarted(round=game.round + 1, dealer=dealer, order=tuple(players)))
    if game.round == 0:  # "The dealer begins each game by putting chips into the pot"
        tape.move(dealer, -min(bank.stake_antes * game.ante, game.seats[dealer].chips), ChipReason.STAKE)
    for seat in players:
        tape.first_card(seat)
    _next_turn(tape, 0)


def _antes(tape: Tape, reason: ChipReason) -> None:
    for seat in tape.game.turn_cycle(tape.rules.terms.direction.step):
        chips = tape.game.seats[seat].chips
        if chips > 0:
            tape.move(seat, -min(tape.game.ante, chips), reason)


def _next_turn(tape: Tape, start: int) -> None:
    index = _next_index(tape.game, start)
    if index is None or (twice_through(tape.rules) and bank_done_at_orbit(tape, index, start)):
        _end_round(tape)
        return
    seat = tape.game.order[index]
    tape.emit(InBetweenTurnStarted(seat=seat, player_id=tape.game.seats[seat].player_id, index=index))
    if tape.rules.terms.face_down:
        _deal_down(tape)
        return
    first = tape.turn.first_post  # the dealer's game bank dealt every player's first card before the first turn
    if rank(first if first is not None else tape.deal(CardRole.FIRST_POST)) == ACE:
        if tape.rules.terms.first_ace is FirstAce.CHOICE:
            tape.await_decision(Decision.ACE_CALL)
            return
        tape.emit(InBetweenAceCalled(seat=seat, call=AceCall.HIGH, by=CalledBy.RULE))
    _second_post(tape)


def _deal_down(tape: Tape) -> None:
    """Two posts face down; the player shows them and bets, or folds them unseen. A pack that could not give both is
    replaced first, so no pack holding a card still face down is ever revealed."""
    if tape.left_in_pack < 2:
        tape.reshuffle(table=())
    tape.deal_down(CardRole.FIRST_POST)
    tape.deal_down(CardRole.SECOND_POST)
    tape.await_decision(Decision.SHOW)


def _second_post(tape: Tape) -> None:
    tape.deal(CardRole.SECOND_POST)
    posts = tape.turn.posts
    assert posts is not None
    if posts.kind is PostsKind.PAIR and may_split(tape.game, tape.rules):
        tape.await_decision(Decision.SPLIT)
        return
    _posts_down(tape)


def _posts_down(tape: Tape) -> None:
    """Both posts are down (and a split declined): a bet is awaited, a pair called, or the turn settles at once."""
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
    elif kind is PostsKind.PAIR and isinstance(rules.pair, PairReturnsAnte):
        tape.move(seat, min(tape.game.ante, tape.game.pot), ChipReason.ANTE_RETURNED)
        _end_turn(tape, TurnOutcome.PAIR_PUSHED)
    elif kind is PostsKind.PAIR:
        _end_turn(tape, TurnOutcome.PAIR_PUSHED)
    elif isinstance(rules.adjacent, AdjacentReturnsAnte):
        tape.move(seat, min(tape.game.ante, tape.game.pot), ChipReason.ANTE_RETURNED)
        _end_turn(tape, TurnOutcome.ADJACENT_PUSHED)
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
    """Close the turn (or a split pair's first hand), then decide what follows: the game's end, a re-ante, the
    round's end or another turn."""
    turn = tape.turn
    if turn.hand == 1 and tape.game.pot > 0 and tape.game.seats[turn.seat].chips > 0:
        tape.emit(InBetweenHandEnded(seat=turn.seat, hand=1, outcome=outcome))
        _second_post(tape)  # the second hand: the pair's other card is its first post
        return
    tape.emit(InBetweenTurnEnded(seat=turn.seat, outcome=outcome))
    game, banker = tape.game, tape.rules.banker
    if tape.rules.game_bank:
        if game.pot == 0:  # "If anyone bets the whole pot and wins it, that is the end of the game"
            end_game(tape, EndReason.POT_EMPTIED)
        elif _next_index(game, turn.index + 1) is None:
            _end_round(tape)
        return
    if not banker and len(game.seats_with_chips()) <= 1:
        end_game(tape, EndReason.ONE_PLAYER_LEFT)
    elif game.all_agreed():  # the one who had not agreed has lost their last chip: everyone left has agreed
        end_game(tape, EndReason.AGREED)
    elif game.pot == 0 and game.rounds is None and outcome not in PUSHES:
        end_game(tape, EndReason.POT_EMPTIED)
    elif (banker and game.pot == 0) or _next_index(game, turn.index + 1) is None:
        _end_round(tape)
    elif game.pot == 0:
        _antes(tape, ChipReason.REANTE)
        if len(tape.game.seats_with_chips()) <= 1:
            end_game(tape, EndReason.ONE_PLAYER_LEFT)
        elif _next_index(tape.game, turn.index + 1) is None:
            _end_round(tape)  # the players still to come put their last chips in with the re-ante


def _end_round(tape: Tape) -> None:
    game = tape.game
    if tape.rules.game_bank:
        _end_bank_round(tape)
        return
    if tape.rules.banker and game.pot > 0:
        tape.move(game.dealer, game.pot, ChipReason.BANK_RETURNED)
    tape.emit(InBetweenRoundEnded(round=game.round))
    if len(tape.game.seats_with_chips()) <= 1:
        end_game(tape, EndReason.ONE_PLAYER_LEFT)
    elif game.rounds is not None and game.round >= game.rounds:
        end_game(tape, EndReason.ROUNDS_PLAYED)


def _end_bank_round(tape: Tape) -> None:
    """After the agreed rounds "the dealer collects the contents of the pot and the game ends"; so too when no player
    but the dealer has chips left to play with."""
    game = tape.game
    players_left = any(seat.chips > 0 for i, seat in enumerate(game.seats) if i != game.dealer)
    over = game.rounds is not None and game.round >= game.rounds
    if (over or not players_left) and game.pot > 0:
        tape.move(game.dealer, game.pot, ChipReason.BANK_RETURNED)
    tape.emit(InBetweenRoundEnded(round=game.round))
    if over or not players_left:
        end_game(tape, EndReason.ROUNDS_PLAYED if over else EndReason.ONE_PLAYER_LEFT)


def _next_index(game: Game, start: int) -> int | None:
    """The next turn in the round's order from `start`, skipping players with no chips."""
    for index in range(start, len(game.order)):
        if game.seats[game.order[index]].chips > 0:
            return index
    return None


def _next_dealer(game: Game, ruleset: RuleSet) -> int:
    """The deal moves one seat the way play goes (left, or right), to the next seat with chips."""
    return next(s for s in game.turn_cycle(ruleset.terms.direction.step) if game.seats[s].chips > 0)
