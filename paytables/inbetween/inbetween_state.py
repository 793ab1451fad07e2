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
    InBetweenCardDealtDown,
    InBetweenCardsShown,
    InBetweenChipsBought,
    InBetweenChipsMoved,
    InBetweenDealerCard,
    InBetweenDealerChosen,
    InBetweenEvent,
    InBetweenFirstCard,
    InBetweenGameEnded,
    InBetweenGameStarted,
    InBetweenHandEnded,
    InBetweenPairCalled,
    InBetweenPairSplit,
    InBetweenPassed,
    InBetweenRoundEnded,
    InBetweenRoundStarted,
    InBetweenShoeRevealed,
    InBetweenShoeShuffled,
    InBetweenStoodIn,
    InBetweenStopAgreed,
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
    AWAITING_SPLIT = "awaiting_split"
    AWAITING_SHOW = "awaiting_show"
    TURN_OVER = "turn_over"  # another turn of this round follows
    ROUND_OVER = "round_over"  # another round follows
    GAME_OVER = "game_over"


AWAITING = {
    Decision.ACE_CALL: GameStatus.AWAITING_ACE_CALL,
    Decision.PAIR_CALL: GameStatus.AWAITING_PAIR_CALL,
    Decision.BET: GameStatus.AWAITING_BET,
    Decision.SPLIT: GameStatus.AWAITING_SPLIT,
    Decision.SHOW: GameStatus.AWAITING_SHOW,
}


class ReplayError(ValueError):
    """Events that do not follow from each other (a chip count that does not add up, an event out of place)."""


class Seat(msgspec.Struct, frozen=True, kw_only=True):
    player_id: str
    computer: bool = False
    chips: int


class Hand(msgspec.Struct, frozen=True, kw_only=True):
    """The first hand of a split pair, once it is settled: its cards, what was bet and how it ended."""

    first_post: str
    second_post: str
    pair_call: PairCall | None
    bet: int | None
    passed: bool
    third_card: str | None
    outcome: TurnOutcome

    @property
    def cards(self) -> tuple[str, ...]:
        return tuple(c for c in (self.first_post, self.second_post, self.third_card) if c is not None)


class Turn(msgspec.Struct, frozen=True, kw_only=True):
    """One player's turn: the cards on the table and what was called and bet (a split pair's hand being played)."""

    seat: int
    index: int  # the turn's place in the round's order
    hand: int = 0  # a split pair: the hand being played (1 or 2); 0 when the pair was not split
    split_card: str | None = None  # a split pair's other card, waiting as the second hand's first post
    hands: tuple[Hand, ...] = ()  # a split pair's first hand, once it is settled
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
    down: tuple[int, ...] = ()  # face-down posts: their places in the pack in play (the cards are never in the game)

    @property
    def hidden(self) -> bool:
        """Whether the turn's posts are face down and not yet shown: only the seat's own view holds them."""
        return bool(self.down) and self.first_post is None

    @property
    def posts(self) -> Posts | None:
        """The posts' values once both are on the table."""
        if self.first_post is None or self.second_post is None:
            return None
        return Posts(first=first_value(self.first_post, self.ace_call), second=rank(self.second_post))

    @property
    def table_cards(self) -> tuple[str, ...]:
        """Every card of the turn still on the table: a split's settled hand, the hand in play, the card waiting."""
        cards = (self.first_post, self.second_post, self.third_card, self.split_card)
        return (*(c for hand in self.hands for c in hand.cards), *(c for c in cards if c is not None))


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
    round_shoe: int = 0  # a bank played twice through the deck: the pack it began with (0 otherwise)
    agreed: tuple[int, ...] = ()  # the seats that agreed to stop the game and share the pot, in the order they did
    down_out: int = 0  # cards dealt face down from the current pack and never shown: out of the pack, unknown
    folded: tuple[tuple[int, int], ...] = ()  # (seat, place in the current pack) of each face-down post folded unseen
    firsts: tuple[tuple[int, str], ...] = ()  # the dealer's game bank: each player's first card this round
    bought: tuple[int, ...] = ()  # chips each seat bought into the game (empty: nobody has bought)

    @property
    def bought_total(self) -> int:
        return sum(self.bought)

    @property
    def table_cards(self) -> tuple[str, ...]:
        """The cards on the table: the turn's, and the round's first cards still waiting for their turns."""
        turn = self.turn
        waiting = tuple(card for seat, card in self.firsts if turn is None or seat != turn.seat)
        return (*(turn.table_cards if turn else ()), *waiting)

    def all_agreed(self) -> bool:
        """Whether every player with chips has agreed to stop (and at least one has)."""
        return bool(self.agreed) and all(seat in self.agreed for seat in self.seats_with_chips())

    @property
    def to_act(self) -> str | None:
        """The player the game waits for, if any."""
        if self.turn is None or self.status not in AWAITING.values():
            return None
        return self.seats[self.turn.seat].player_id

    @property
    def total_chips(self) -> int:
        return sum(seat.chips for seat in self.seats) + self.pot

    def seat_of(self, player_id: str) -> int | None:
        """The seat of this player, if the game has one."""
        return next((i for i, seat in enumerate(self.seats) if seat.player_id == player_id), None)

    def seats_with_chips(self) -> list[int]:
        return [i for i, seat in enumerate(self.seats) if seat.chips > 0]

    def from_dealers_left(self) -> list[int]:
        """Every seat in turn order: the dealer's left neighbour first, the dealer last."""
        return self.turn_cycle(1)

    def turn_cycle(self, step: int) -> list[int]:
        """Every seat from the dealer's neighbour on the side play goes (step +1: left, -1: right), the dealer last."""
        n = len(self.seats)
        return [(self.dealer + step * (1 + i)) % n for i in range(n)]

    def unseen(self) -> Counter[int]:
        """How many cards of each rank the next card can be: the public count since the last shuffle.

        When the pack is spent the next card comes from a new one made of every card not on the table.
        A card dealt face down and not shown is out of the pack but unknown: it counts as unseen, like the pack's own.
        """
        left = full_pack_ranks()
        left.subtract(_RANK_OF[card] for card in self.seen)
        if left.total() == self.down_out:
            left = full_pack_ranks()
            left.subtract(_RANK_OF[card] for card in self.table_cards)
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
                game,
                shoe_number=event.shoe_number,
                shoe_commitment=event.commitment,
                seen=event.excluded,
                count=0,
                down_out=0,
                folded=(),
            )
        case InBetweenShoeRevealed():
            if event.commitment != game.shoe_commitment:
                raise ReplayError(f"revealed shoe {event.shoe_number} is not the shoe in play")
            return game
        case InBetweenDealerCard():
            return replace(game, seen=(*game.seen, event.card), count=game.count + 1)
        case InBetweenDealerChosen():
            return replace(game, dealer=event.dealer)
        case InBetweenRoundStarted():
            first_shoe = game.round_shoe if event.first_shoe is None else event.first_shoe
            return replace(game, round=event.round, dealer=event.dealer, order=event.order, turn=None,
                           round_shoe=first_shoe, firsts=())  # fmt: skip
        case InBetweenChipsMoved():
            return _move(game, event)
        case InBetweenTurnStarted():
            first = dict(game.firsts).get(event.seat)  # the dealer's game bank dealt it before the first turn
            return replace(game, turn=Turn(seat=event.seat, index=event.index, first_post=first))
        case InBetweenFirstCard():
            firsts = (*game.firsts, (event.seat, event.card))
            return replace(game, firsts=firsts, seen=(*game.seen, event.card), count=game.count + 1)
        case InBetweenCardDealtDown():
            turn = _turn(game, event.seat)
            turn = replace(turn, down=(*turn.down, event.shoe_index))
            return replace(game, turn=turn, count=game.count + 1, down_out=game.down_out + 1)
        case InBetweenCardsShown():
            return _shown(game, event)
        case InBetweenChipsBought():
            return _bought(game, event)
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
        case InBetweenPairSplit():
            turn = _turn(game, event.seat)
            split = replace(turn, hand=1, split_card=turn.second_post, second_post=None)
            return replace(game, turn=split)
        case InBetweenHandEnded():
            return replace(game, turn=_next_hand(_turn(game, event.seat), event))
        case InBetweenStopAgreed():
            if event.seat in game.agreed:
                raise ReplayError(f"seat {event.seat} agreed to stop twice")
            return replace(game, agreed=(*game.agreed, event.seat))
        case InBetweenStoodIn():
            if not 0 <= event.seat < len(game.seats):
                raise ReplayError(f"a move made for seat {event.seat}, which the game does not have")
            return game  # who made the move changes nothing the move itself does not
        case InBetweenBetPlaced():
            return replace(game, turn=replace(_turn(game, event.seat), bet=event.amount))
        case InBetweenPassed():
            turn = _turn(game, event.seat)
            folded = tuple((event.seat, place) for place in turn.down) if turn.hidden else ()
            return replace(game, turn=replace(turn, passed=True), folded=(*game.folded, *folded))
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
    rest = list(it)
    for event in rest:
        game = apply(game, event)
    check_hidden_cards(rest)
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


def _shown(game: Game, event: InBetweenCardsShown) -> Game:
    turn = _turn(game, event.seat)
    if not turn.hidden or len(event.cards) != 2 or len(turn.down) != 2:
        raise ReplayError(f"seat {event.seat} showed cards it was not holding face down")
    first, second = event.cards
    turn = replace(turn, first_post=first, second_post=second)
    return replace(game, turn=turn, seen=(*game.seen, first, second), down_out=game.down_out - 2)


def _bought(game: Game, event: InBetweenChipsBought) -> Game:
    seat = game.seats[event.seat]
    bought = game.bought or (0,) * len(game.seats)
    chips, total = seat.chips + event.amount, bought[event.seat] + event.amount
    if event.amount < 1 or (chips, total) != (event.chips, event.bought):
        raise ReplayError(f"chips bought by seat {event.seat} do not add up: {chips}/{total}")
    seats = (*game.seats[: event.seat], replace(seat, chips=chips), *game.seats[event.seat + 1 :])
    return replace(game, seats=seats, bought=(*bought[: event.seat], total, *bought[event.seat + 1 :]))


def check_hidden_cards(events: Iterable[InBetweenEvent]) -> None:
    """Every face-down card shown is the card at its place in its pack, as the pack's reveal proves."""
    shown: dict[tuple[int, int], str] = {}
    down: dict[int, tuple[int, tuple[int, ...]]] = {}  # seat -> (pack, places) of the turn's face-down posts
    for event in events:
        if isinstance(event, InBetweenCardDealtDown):
            pack, places = down.get(event.seat, (event.shoe_number, ()))
            down[event.seat] = (event.shoe_number, (*places, event.shoe_index) if pack == event.shoe_number else ())
        elif isinstance(event, InBetweenCardsShown) and event.seat in down:
            pack, places = down.pop(event.seat)
            shown.update({(pack, place): card for place, card in zip(places, event.cards, strict=False)})
        elif isinstance(event, InBetweenTurnStarted):
            down.pop(event.seat, None)
        elif isinstance(event, InBetweenShoeRevealed):
            for (pack, place), card in shown.items():
                if pack == event.shoe_number and event.order[2 * place : 2 * place + 2] != card:
                    raise ReplayError(f"a card shown as {card} is not the card dealt at place {place} of pack {pack}")


def _next_hand(turn: Turn, event: InBetweenHandEnded) -> Turn:
    """The settled first hand put aside, and the second hand begun with the pair's other card (and its ace call)."""
    if turn.hand != event.hand or turn.split_card is None or turn.first_post is None or turn.second_post is None:
        raise ReplayError(f"hand {event.hand} of seat {event.seat} ended outside a split pair's first hand")
    settled = Hand(
        first_post=turn.first_post,
        second_post=turn.second_post,
        pair_call=turn.pair_call,
        bet=turn.bet,
        passed=turn.passed,
        third_card=turn.third_card,
        outcome=event.outcome,
    )
    return Turn(
        seat=turn.seat,
        index=turn.index,
        hand=turn.hand + 1,
        first_post=turn.split_card,
        ace_call=turn.ace_call,
        hands=(*turn.hands, settled),
    )


def _turn(game: Game, seat: int) -> Turn:
    if game.turn is None or game.turn.seat != seat:
        raise ReplayError(f"an event for seat {seat} outside its turn")
    return game.turn
