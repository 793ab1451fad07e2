"""The In Between game value and the one reducer that changes it: every change is an event, so events replay a game."""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterable
from datetime import datetime

import msgspec

from paytables.inbetween.inbetween_events import (
    AceCall,
    CardRole,
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
    TurnOutcome,
)
from paytables.inbetween.inbetween_posts import Posts, first_value
from shoe.cards import DECK, RANK_VALUES, rank

replace = msgspec.structs.replace


class GameStatus(enum.StrEnum):
    AWAITING_ACE_CALL = "awaiting_ace_call"
    AWAITING_PAIR_CALL = "awaiting_pair_call"
    AWAITING_BET = "awaiting_bet"
    TURN_OVER = "turn_over"  # another turn of this round follows
    ROUND_OVER = "round_over"  # another round follows
    GAME_OVER = "game_over"


AWAITING = {
    Decision.ACE_CALL: GameStatus.AWAITING_ACE_CALL,
    Decision.PAIR_CALL: GameStatus.AWAITING_PAIR_CALL,
    Decision.BET: GameStatus.AWAITING_BET,
}


class ReplayError(ValueError):
    """Events that do not follow from each other (a chip count that does not add up, an event out of place)."""


class Seat(msgspec.Struct, frozen=True, kw_only=True):
    player_id: str
    computer: bool = False
    chips: int


class Turn(msgspec.Struct, frozen=True, kw_only=True):
    """One player's turn: the cards on the table and what was called and bet."""

    seat: int
    index: int  # the turn's place in the round's order
    first_post: str | None = None
    ace_call: AceCall | None = None
    second_post: str | None = None
    pair_call: PairCall | None = None
    min_bet: int | None = None
    max_bet: int | None = None
    bet: int | None = None
    passed: bool = False
    third_card: str | None = None
    outcome: TurnOutcome | None = None

    @property
    def posts(self) -> Posts | None:
        """The posts' values once both are on the table."""
        if self.first_post is None or self.second_post is None:
            return None
        return Posts(first=first_value(self.first_post, self.ace_call), second=rank(self.second_post))

    @property
    def table_cards(self) -> tuple[str, ...]:
        return tuple(c for c in (self.first_post, self.second_post, self.third_card) if c is not None)


class Game(msgspec.Struct, frozen=True, kw_only=True):
    """The whole public state of a game; the shoe's undealt order is kept apart, in its `Shoe`."""

    game_id: str
    ruleset: str
    ruleset_sha256: str
    ante: int
    rounds: int | None  # None: until a bet takes the whole pot
    starting_chips: int
    test: bool
    started_at: datetime
    seats: tuple[Seat, ...]
    dealer: int
    pot: int = 0
    status: GameStatus = GameStatus.ROUND_OVER
    round: int = 0
    order: tuple[int, ...] = ()
    turn: Turn | None = None
    shoe_number: int = 0
    shoe_commitment: str = ""
    seen: tuple[str, ...] = ()  # the cards out of the current pack: dealt from it, or left on the table at its shuffle
    count: int = 0  # cards dealt since the last shuffle (public)
    ended_reason: EndReason | None = None
    ended_at: datetime | None = None
    winners: tuple[int, ...] = ()

    @property
    def to_act(self) -> str | None:
        """The player the game waits for, if any."""
        if self.turn is None or self.status not in AWAITING.values():
            return None
        return self.seats[self.turn.seat].player_id

    @property
    def total_chips(self) -> int:
        return sum(seat.chips for seat in self.seats) + self.pot

    def seats_with_chips(self) -> list[int]:
        return [i for i, seat in enumerate(self.seats) if seat.chips > 0]

    def from_dealers_left(self) -> list[int]:
        """Every seat in turn order: the dealer's left neighbour first, the dealer last."""
        n = len(self.seats)
        return [(self.dealer + 1 + i) % n for i in range(n)]

    def unseen(self) -> Counter[int]:
        """How many cards of each rank the next card can be: the public count since the last shuffle.

        When the pack is spent the next card comes from a new one made of every card not on the table.
        """
        left = full_pack_ranks()
        left.subtract(_RANK_OF[card] for card in self.seen)
        if left.total() == 0:
            left = full_pack_ranks()
            left.subtract(_RANK_OF[card] for card in (self.turn.table_cards if self.turn else ()))
        return left


_RANK_OF = {card: rank(card) for card in DECK}


def full_pack_ranks() -> Counter[int]:
    """Four cards of every rank."""
    return Counter(dict.fromkeys(RANK_VALUES, 4))


def begin(event: InBetweenGameStarted) -> Game:
    """The game as its first event describes it, before any card or chip moves."""
    seats = tuple(Seat(player_id=s.player_id, computer=s.computer, chips=event.starting_chips) for s in event.seats)
    return Game(
        game_id=event.game_id,
        ruleset=event.ruleset,
        ruleset_sha256=event.ruleset_sha256,
        ante=event.ante,
        rounds=event.rounds,
        starting_chips=event.starting_chips,
        test=event.test,
        started_at=event.at,
        seats=seats,
        dealer=event.dealer,
    )


def apply(game: Game, event: InBetweenEvent) -> Game:
    """The game after one event: the only place a game changes."""
    match event:
        case InBetweenShoeShuffled():
            return replace(
                game, shoe_number=event.shoe_number, shoe_commitment=event.commitment, seen=event.excluded, count=0
            )
        case InBetweenShoeRevealed():
            if event.commitment != game.shoe_commitment:
                raise ReplayError(f"revealed shoe {event.shoe_number} is not the shoe in play")
            return game
        case InBetweenRoundStarted():
            return replace(game, round=event.round, dealer=event.dealer, order=event.order, turn=None)
        case InBetweenChipsMoved():
            return _move(game, event)
        case InBetweenTurnStarted():
            return replace(game, turn=Turn(seat=event.seat, index=event.index))
        case InBetweenCardDealt():
            turn = _turn(game, event.seat)
            field = {CardRole.FIRST_POST: "first_post", CardRole.SECOND_POST: "second_post"}.get(
                event.role, "third_card"
            )
            turn = replace(turn, **{field: event.card})
            return replace(game, turn=turn, seen=(*game.seen, event.card), count=game.count + 1)
        case InBetweenAwaiting():
            turn = replace(_turn(game, event.seat), min_bet=event.min_bet, max_bet=event.max_bet)
            return replace(game, turn=turn, status=AWAITING[event.decision])
        case InBetweenAceCalled():
            return replace(game, turn=replace(_turn(game, event.seat), ace_call=event.call))
        case InBetweenPairCalled():
            return replace(game, turn=replace(_turn(game, event.seat), pair_call=event.call))
        case InBetweenBetPlaced():
            return replace(game, turn=replace(_turn(game, event.seat), bet=event.amount))
        case InBetweenPassed():
            return replace(game, turn=replace(_turn(game, event.seat), passed=True))
        case InBetweenTurnEnded():
            turn = replace(_turn(game, event.seat), outcome=event.outcome)
            return replace(game, turn=turn, status=GameStatus.TURN_OVER)
        case InBetweenRoundEnded():
            return replace(game, status=GameStatus.ROUND_OVER)
        case InBetweenGameEnded():
            return replace(
                game, status=GameStatus.GAME_OVER, ended_reason=event.reason, ended_at=event.at, winners=event.winners
            )
        case InBetweenGameStarted():
            raise ReplayError("a game starts only once")


def replay(events: Iterable[InBetweenEvent]) -> Game:
    """The game its events describe, from the first (`ib_game_started`) to the last."""
    it = iter(events)
    first = next(it, None)
    if not isinstance(first, InBetweenGameStarted):
        raise ReplayError("a game's events begin with ib_game_started")
    game = begin(first)
    for event in it:
        game = apply(game, event)
    return game


def _move(game: Game, event: InBetweenChipsMoved) -> Game:
    seat = game.seats[event.seat]
    chips, pot = seat.chips + event.delta, game.pot - event.delta
    if (chips, pot) != (event.chips, event.pot) or chips < 0 or pot < 0:
        raise ReplayError(
            f"chips moved for seat {event.seat} do not add up: {chips}/{pot} vs {event.chips}/{event.pot}"
        )
    seats = (*game.seats[: event.seat], replace(seat, chips=chips), *game.seats[event.seat + 1 :])
    return replace(game, seats=seats, pot=pot)


def _turn(game: Game, seat: int) -> Turn:
    if game.turn is None or game.turn.seat != seat:
        raise ReplayError(f"an event for seat {seat} outside its turn")
    return game.turn
