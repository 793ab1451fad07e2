"""The values of a Red Dog round: its bets, its cards and where it stands; moves live in `round.py`."""

from __future__ import annotations

import enum
from datetime import datetime

import msgspec

from paytables.red_dog.events import Event
from paytables.red_dog.red_dog import Decision, Outcome, Result, Transaction
from paytables.red_dog.table import DealMode
from paytables.refusals import GameError
from shoe.shoe import Shoe

SYSTEM = "system"  # the actor of what the deadline does, rather than an operator


class RoundStatus(enum.StrEnum):
    RAISE_WINDOW = "raise_window"
    SETTLED = "settled"
    VOID = "void"
    ROLLED_BACK = "rolled_back"


class DealtCard(msgspec.Struct, frozen=True, kw_only=True):
    position: int  # in its hand: 1 and 2 are the posts, 3 the third card
    card: str
    shoe_index: int
    seat: int | None = None  # per-seat deals: the seat (1 = the first bet) whose hand it is


class Bet(msgspec.Struct, frozen=True, kw_only=True):
    bet_id: str
    player_id: str
    ante: int
    raise_amount: int = 0
    decision: Decision | None = None
    result: Result | None = None
    payout: int | None = None
    net: int | None = None
    transactions: tuple[Transaction, ...] = ()
    # Per-seat deals only: the bet's own hand; a shared deal's bets play the round's cards.
    cards: tuple[DealtCard, ...] = ()
    outcome: Outcome | None = None
    spread: int | None = None
    payout_odds: int | None = None

    @property
    def awaits_decision(self) -> bool:
        """In the raise window and not yet decided (a per-seat pair or push settled at the deal decides nothing)."""
        return self.decision is None and self.result is None


class Round(msgspec.Struct, frozen=True, kw_only=True):
    round_id: str
    table_id: str
    status: RoundStatus
    paytable: str = msgspec.field(name="paytable_id")  # stored rounds name it so
    paytable_sha256: str
    decks: int
    test: bool
    commitment: str
    bets: tuple[Bet, ...]
    opened_at: datetime
    deal: DealMode = DealMode.SHARED
    cards: tuple[DealtCard, ...] = ()  # every card dealt, in dealing order
    outcome: Outcome | None = None  # shared deals; a per-seat round's outcomes are its bets'
    spread: int | None = None
    payout_odds: int | None = None
    raise_window_closes_at: datetime | None = None
    settled_at: datetime | None = None
    void_reason: str | None = None
    rolled_back_at: datetime | None = None
    rollback_reason: str | None = None

    @property
    def is_open(self) -> bool:
        return self.status is RoundStatus.RAISE_WINDOW

    @property
    def per_seat(self) -> bool:
        return self.deal is DealMode.PER_SEAT


class Raise(msgspec.Struct, frozen=True, kw_only=True):
    bet_id: str
    amount: int | None = None  # None: the most the rules allow


class Call(msgspec.Struct, frozen=True, kw_only=True):
    bet_id: str


PlayerDecision = Raise | Call


class Step(msgspec.Struct, frozen=True, kw_only=True):
    """The outcome of one move: the round and shoe after it, its audit events, and a refusal to report after commit."""

    round: Round
    shoe: Shoe
    events: tuple[Event, ...]
    refusal: GameError | None = None

    @property
    def ended(self) -> bool:
        return not self.round.is_open


def bet_id_for(round_id: str, index: int) -> str:
    return f"{round_id}.{index + 1}"
