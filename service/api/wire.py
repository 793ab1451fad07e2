"""Request and response bodies as they travel; money is always integer minor units."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal
from uuid import UUID

import msgspec

MAX_AMOUNT = 10**12  # a trillion minor units: far above any table limit, far below bigint overflow
Amount = Annotated[int, msgspec.Meta(ge=1, le=MAX_AMOUNT, description="integer minor units of the table currency")]
PlayerId = Annotated[str, msgspec.Meta(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9._:@-]+$")]
CardCode = Annotated[str, msgspec.Meta(pattern=r"^[2-9TJQKA][SHDC]$", description="rank 23456789TJQKA + suit SHDC")]
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=100)]


class Request(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Base of every request body: unknown fields are refused, not ignored."""


class CreateTable(Request):
    name: Name
    paytable: Annotated[str, msgspec.Meta(min_length=1, max_length=64, examples=["standard/v1"])]
    currency: Annotated[str, msgspec.Meta(pattern=r"^[A-Z]{3}$", description="ISO 4217 code", examples=["EUR"])]
    min_ante: Amount
    max_ante: Amount
    decks: Annotated[int, msgspec.Meta(ge=1, le=8)] = 6
    shoe_policy: Literal["per_round", "cut_card"] = "per_round"
    penetration: Annotated[int, msgspec.Meta(ge=10, le=90, description="cut card position, percent")] | None = None
    max_bets: Annotated[int, msgspec.Meta(ge=1, le=7)] = 7
    raise_window_seconds: Annotated[int, msgspec.Meta(ge=1, le=300)] = 15
    mode: Literal["live", "test"] = "live"


class BetIn(Request):
    player_id: PlayerId
    ante: Amount


class CreateRound(Request):
    bets: Annotated[list[BetIn], msgspec.Meta(min_length=1, max_length=7)]
    forced_cards: Annotated[list[CardCode], msgspec.Meta(min_length=2, max_length=3)] | None = None


class DecisionIn(Request):
    bet_id: Annotated[str, msgspec.Meta(min_length=1, max_length=80)]
    action: Literal["raise", "call"]
    amount: Annotated[int, msgspec.Meta(ge=0, le=MAX_AMOUNT)] | None = None


class VoidIn(Request):
    reason: Annotated[str, msgspec.Meta(min_length=1, max_length=500)]


class Theoretical(msgspec.Struct, kw_only=True):
    paytable: str
    paytable_sha256: str
    decks: int
    house_edge: str
    house_edge_fraction: str
    rtp_per_total_bet: str
    rtp_per_total_bet_fraction: str
    min_raise_spread: int | None
    raise_spreads: list[int]
    never_raise_house_edge: str
    never_raise_house_edge_fraction: str
    std_dev_per_ante: str
    outcome_probabilities: dict[str, str]


class PaytableOut(msgspec.Struct, kw_only=True, omit_defaults=True):
    id: str
    name: str
    version: int
    sha256: str
    description: str
    spread_odds: list[int]
    trips_odds: int
    post_rule: str
    max_raise_multiple: int
    theoretical: Theoretical | None = None


class PaytableList(msgspec.Struct, kw_only=True):
    items: list[PaytableOut]


class TableOut(msgspec.Struct, kw_only=True):
    table_id: UUID
    name: str
    status: Literal["open", "closed"]
    paytable: str
    paytable_sha256: str
    decks: int
    shoe_policy: str
    penetration: int | None
    currency: str
    min_ante: int
    max_ante: int
    max_bets: int
    raise_window_seconds: int
    mode: str
    created_at: datetime
    closed_at: datetime | None
    theoretical: Theoretical


class TableList(msgspec.Struct, kw_only=True):
    items: list[TableOut]


class TransactionOut(msgspec.Struct, kw_only=True):
    id: str
    kind: Literal["ante", "raise", "payout", "post_penalty", "refund"]
    type: Literal["debit", "credit"]
    amount: int


class BetOut(msgspec.Struct, kw_only=True):
    bet_id: str
    player_id: str
    ante: int
    raise_: int = msgspec.field(name="raise")
    decision: Literal["raise", "call", "timeout_call"] | None
    result: Literal["win", "lose", "push", "trips", "void"] | None
    payout: int | None
    net: int | None
    transactions: list[TransactionOut]


class CardOut(msgspec.Struct, kw_only=True):
    position: int
    card: str
    shoe_index: int


class RevealOut(msgspec.Struct, kw_only=True):
    salt: str
    order: str


class ShoeOut(msgspec.Struct, kw_only=True):
    commitment: str
    reveal: RevealOut | None = None


class RoundOut(msgspec.Struct, kw_only=True):
    round_id: UUID
    table_id: UUID
    status: Literal["raise_window", "settled", "void"]
    paytable: str
    paytable_sha256: str
    decks: int
    cards: list[CardOut]
    outcome: Literal["consecutive", "pair", "trips", "spread"] | None
    spread: int | None
    payout_odds: int | None
    raise_window_closes_at: datetime | None
    opened_at: datetime
    settled_at: datetime | None
    void_reason: str | None
    test: bool
    shoe: ShoeOut
    bets: list[BetOut]


class RoundPage(msgspec.Struct, kw_only=True):
    items: list[RoundOut]
    next_cursor: str | None
