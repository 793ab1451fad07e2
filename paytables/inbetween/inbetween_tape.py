"""A step of an In Between game being written: each event is recorded and applied at once, cards dealt, chips moved."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol, runtime_checkable

import msgspec

from paytables.inbetween.inbetween_events import (
    CardRole,
    ChipReason,
    Decision,
    InBetweenAwaiting,
    InBetweenCardDealt,
    InBetweenCardDealtDown,
    InBetweenChipsBought,
    InBetweenChipsMoved,
    InBetweenDealerCard,
    InBetweenEvent,
    InBetweenFirstCard,
    InBetweenShoeRevealed,
    InBetweenShoeShuffled,
)
from paytables.inbetween.inbetween_rules import RuleSet
from paytables.inbetween.inbetween_state import Game, Turn, apply
from shoe.cards import DECK
from shoe.random_source import RandomSource
from shoe.shoe import Shoe, shoe_of


@runtime_checkable
class PackSource(Protocol):
    """A source that hands over each new pack itself instead of shuffling one: an audit replay, whose packs are the
    ones the game's records reveal, so the engine re-deals exactly the recorded cards."""

    def getrandbits(self, k: int, /) -> int: ...

    def pack(self, cards: list[str]) -> Shoe: ...


class InBetweenStep(msgspec.Struct, frozen=True, kw_only=True):
    """The outcome of one move: the game and shoe after it, and the events to append to the audit log."""

    game: Game
    shoe: Shoe
    events: tuple[InBetweenEvent, ...]


class Tape:
    """The game is always the sum of its events: nothing changes it but `emit`."""

    def __init__(self, game: Game, shoe: Shoe, rules: RuleSet, source: RandomSource, now: datetime) -> None:
        self.game, self.shoe, self.rules, self.source, self.now = game, shoe, rules, source, now
        self.events: list[InBetweenEvent] = []

    def emit(self, event: InBetweenEvent) -> None:
        self.events.append(event)
        self.game = apply(self.game, event)

    def step(self) -> InBetweenStep:
        return InBetweenStep(game=self.game, shoe=self.shoe, events=tuple(self.events))

    @property
    def turn(self) -> Turn:
        assert self.game.turn is not None  # only called while a turn is being played
        return self.game.turn

    def move(self, seat: int, delta: int, reason: ChipReason) -> None:
        """Chips from the pot to a seat (a negative delta: from the seat to the pot)."""
        chips, pot = self.game.seats[seat].chips + delta, self.game.pot - delta
        player = self.game.seats[seat].player_id
        self.emit(InBetweenChipsMoved(seat=seat, player_id=player, delta=delta, reason=reason, chips=chips, pot=pot))

    def await_decision(self, decision: Decision, least: int | None = None, most: int | None = None) -> None:
        player = self.game.seats[self.turn.seat].player_id
        self.emit(
            InBetweenAwaiting(seat=self.turn.seat, player_id=player, decision=decision, min_bet=least, max_bet=most)
        )

    def deal(self, role: CardRole) -> str:
        """The next card of the pack; an empty pack is first replaced by the cards off the table, shuffled."""
        if self.shoe.position >= self.shoe.size:
            self.reshuffle()
        card, index, self.shoe = self.shoe.deal()
        number = self.game.shoe_number
        self.emit(InBetweenCardDealt(seat=self.turn.seat, role=role, card=card, shoe_number=number, shoe_index=index))
        return card

    def deal_down(self, role: CardRole) -> None:
        """The next card of the pack, face down to the player in turn: the record names its place, not the card."""
        _, index, self.shoe = self.shoe.deal()
        number = self.game.shoe_number
        self.emit(InBetweenCardDealtDown(seat=self.turn.seat, role=role, shoe_number=number, shoe_index=index))

    def first_card(self, seat: int) -> None:
        """The next card of the pack, face up to a player as their first card before the round's first turn."""
        card, index, self.shoe = self.shoe.deal()
        self.emit(InBetweenFirstCard(seat=seat, card=card, shoe_number=self.game.shoe_number, shoe_index=index))

    def buy(self, seat: int, amount: int) -> None:
        """New chips into a seat's stack: what was bought is counted beside the starting chips."""
        held, bought = self.game.seats[seat], self.game.bought[seat] if self.game.bought else 0
        self.emit(
            InBetweenChipsBought(
                seat=seat, player_id=held.player_id, amount=amount, chips=held.chips + amount, bought=bought + amount
            )
        )

    def draw(self, seat: int | None) -> str:
        """The next card of the pack, turned to choose the first dealer (to `seat`, or to no one)."""
        card, index, self.shoe = self.shoe.deal()
        number = self.game.shoe_number
        self.emit(InBetweenDealerCard(seat=seat, card=card, shoe_number=number, shoe_index=index))
        return card

    @property
    def left_in_pack(self) -> int:
        return self.shoe.size - self.shoe.position

    def reshuffle(self, table: tuple[str, ...] | None = None) -> None:
        """Reveal the pack in play and shuffle every card not on the table (by default the game's) into a new one."""
        table = self.game.table_cards if table is None else table
        self.emit(self.revealed())
        cards = [card for card in DECK if card not in table]
        source = self.source
        self.shoe = source.pack(cards) if isinstance(source, PackSource) else shoe_of(cards, source)
        number = self.game.shoe_number + 1
        self.emit(
            InBetweenShoeShuffled(
                shoe_number=number, commitment=self.shoe.commitment, size=self.shoe.size, excluded=table
            )
        )

    def revealed(self) -> InBetweenShoeRevealed:
        """The pack in play, revealed: its salt and order hash to the commitment published at its shuffle."""
        shoe = self.shoe
        return InBetweenShoeRevealed(
            shoe_number=self.game.shoe_number,
            commitment=shoe.commitment,
            salt=shoe.salt,
            order=shoe.order,
            dealt=shoe.position,
        )
