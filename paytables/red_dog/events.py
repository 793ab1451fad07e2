"""Every audit event of a Red Dog table as a frozen Struct in one tagged union: what a replay reads, field by field.

Each event is encoded by the audit chain's one canonical encoder (sorted keys, no whitespace, UTC times with `Z`)
inside the record envelope; `kind` is the tag. New fields must get defaults so older records still decode.
"""

from __future__ import annotations

import enum
from datetime import datetime

import msgspec

from paytables.red_dog.red_dog import Decision, Outcome, Result, Transaction
from paytables.red_dog.table import DealMode, TableSettings
from shoe.shoe import ShoePolicy


class DecidedBy(enum.StrEnum):
    PLAYER = "player"
    DEALER = "dealer"  # the dealer closed the window early
    TIMEOUT = "timeout"  # the window's deadline passed


class _Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind"):
    """Base of every event; the subclass's tag is its record `kind`."""


class TableCreated(_Event, frozen=True, tag="table_created"):
    operator_id: str
    created_at: datetime
    settings: TableSettings


class TableClosed(_Event, frozen=True, tag="table_closed"):
    closed_at: datetime
    actor: str  # the operator that closed it


class ShoeShuffled(_Event, frozen=True, tag="shoe_shuffled"):
    """A new shoe's commitment, published before any of its cards is dealt."""

    commitment: str
    decks: int
    policy: ShoePolicy
    cut_position: int | None  # cut-card shoes: the shoe is replaced between rounds once this many cards are out
    round_id: str | None = None  # per-round shoes: the round it was shuffled for
    forced_cards: tuple[str, ...] = ()  # test tables: the cards moved to the front, in dealing order


class ShoeRevealed(_Event, frozen=True, tag="shoe_revealed"):
    """A retired shoe's salt and order: anyone can recompute the commitment and check every card dealt."""

    commitment: str
    salt: str
    order: str
    dealt: int  # how many cards were dealt from it
    round_id: str | None = None


class OpenedBet(msgspec.Struct, frozen=True, kw_only=True):
    bet_id: str
    player_id: str
    ante: int


class RoundOpened(_Event, frozen=True, tag="round_opened", omit_defaults=True):
    round_id: str
    paytable: str
    paytable_sha256: str
    decks: int
    commitment: str  # the shoe the round is dealt from
    opened_at: datetime
    bets: tuple[OpenedBet, ...]
    actor: str  # the operator that opened it
    deal: DealMode = DealMode.SHARED  # per_seat: each bet is dealt its own hand (written only then)


# The per-seat fields below are left out of the bytes while unset (omit_defaults), so a shared deal's records read
# exactly as they did before per-seat deals existed.
class CardDealt(_Event, frozen=True, tag="card_dealt", omit_defaults=True):
    round_id: str
    position: int  # in its hand: 1 and 2 are the posts, 3 the third card
    card: str
    shoe_index: int  # the card's place in the shoe's committed order, from 0
    commitment: str
    seat: int | None = None  # per-seat deals: whose hand (1 = the round's first bet)


class SpreadAnnounced(_Event, frozen=True, tag="spread_announced", omit_defaults=True):
    round_id: str
    spread: int
    odds: int
    raise_window_closes_at: datetime
    bet_id: str | None = None  # per-seat deals: the bet whose own hand the spread is


# `requested_by` is left out of the bytes while it is None (omit_defaults; the class's only defaulted field), so
# records written before it existed re-encode to their own bytes and a record without it reads the same as before.
class Decided(_Event, frozen=True, tag="decision", omit_defaults=True):
    round_id: str
    bet_id: str
    action: Decision
    raise_amount: int  # 0 for a call
    by: DecidedBy
    actor: str  # the operator that sent the decision, or "system" for a deadline
    requested_by: str | None = None  # a dealer's close: who asked for it, as the operator said (optional)


class BetSettled(_Event, frozen=True, tag="bet_settled", omit_defaults=True):
    round_id: str
    bet_id: str
    player_id: str
    ante: int
    raise_amount: int
    decision: Decision | None  # None where the bet had no raise window
    result: Result
    payout: int
    net: int
    transactions: tuple[Transaction, ...]
    outcome: Outcome | None = None  # per-seat deals: what the bet's own hand came to


class RoundSettled(_Event, frozen=True, tag="round_settled"):
    round_id: str
    outcome: Outcome | None  # None for a per-seat deal: each bet_settled's hand has its own
    settled_at: datetime
    total_net: int


class RoundVoided(_Event, frozen=True, tag="round_voided", omit_defaults=True):
    round_id: str
    reason: str
    voided_at: datetime
    actor: str  # the operator that voided it
    requested_by: str | None = None  # who asked for the void, as the operator said (optional)


class RolledBackBet(msgspec.Struct, frozen=True, kw_only=True):
    bet_id: str
    player_id: str
    # Every transaction of the bet after the rollback: what it had moved (for a round still open, the stakes taken),
    # then one reversal per movement; they add up to nothing.
    transactions: tuple[Transaction, ...]


class RoundRolledBack(_Event, frozen=True, tag="round_rolled_back"):
    """An aggregator undid the round (its wallet debit had failed): every transaction reversed, nothing deleted."""

    round_id: str
    reason: str
    rolled_back_at: datetime
    actor: str  # the operator that asked for it
    previous_status: str  # raise_window, settled or void: what the round was when it was rolled back
    bets: tuple[RolledBackBet, ...]


Event = (
    TableCreated
    | TableClosed
    | ShoeShuffled
    | ShoeRevealed
    | RoundOpened
    | CardDealt
    | SpreadAnnounced
    | Decided
    | BetSettled
    | RoundSettled
    | RoundVoided
    | RoundRolledBack
)


def round_id_of(event: Event) -> str | None:
    """The round an event belongs to, for the audit log's round_id column."""
    return getattr(event, "round_id", None)


def bet_id_of(event: Event) -> str | None:
    return getattr(event, "bet_id", None)


def kind_of(event: Event) -> str:
    tag = type(event).__struct_config__.tag
    assert isinstance(tag, str)
    return tag
