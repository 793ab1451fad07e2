"""A step of an In Between game being written: each event is recorded and applied at once, cards dealt, chips moved."""

from __future__ import annotations

from datetime import datetime

import msgspec

from paytables.inbetween.inbetween_events import (
    CardRole,
    ChipReason,
    Decision,
    InBetweenAwaiting,
    InBetweenCardDealt,
    InBetweenChipsMoved,
    InBetweenEvent,
    InBetweenShoeRevealed,
    InBetweenShoeShuffled,
)
from paytables.inbetween.inbetween_rules import RuleSet
from paytables.inbetween.inbetween_state import Game, Turn, apply
from shoe.cards import DECK
from shoe.random_source import RandomSource
from shoe.shoe import Shoe, shoe_of


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

    def reshuffle(self) -> None:
        table = self.turn.table_cards
        self.emit(self.revealed())
        self.shoe = shoe_of([card for card in DECK if card not in table], self.source)
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
