"""Request and response bodies as they travel; money is always integer minor units."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal
from uuid import UUID

import msgspec

from paytables.red_dog.analysis.rtp import Theoretical  # the exact figures are public values: shown as computed

# The domain's enums, spelled out as literals so the schema lists their values inline (a test keeps them equal).
TableStatusName = Literal["open", "closed"]
ShoePolicyName = Literal["per_round", "cut_card"]
TableModeName = Literal["live", "test"]
DealModeName = Literal["shared", "per_seat"]
RoundStatusName = Literal["raise_window", "settled", "void", "rolled_back"]
OutcomeName = Literal["consecutive", "pair", "trips", "spread"]
DecisionName = Literal["raise", "call", "timeout_call"]
ResultName = Literal["win", "lose", "push", "trips", "void", "rolled_back"]
TransactionKindName = Literal["ante", "raise", "payout", "post_penalty", "refund", "rollback"]
DirectionName = Literal["debit", "credit"]
PostRuleName = Literal["lose", "lose_double"]


def whole(pattern: str) -> str:
    """A pattern a value must match as a whole. msgspec uses re.search, where `$` also matches before a final newline
    (so `^[A-Z]{3}$` takes "EUR\\n"); `$(?!\\n)` ends at the very end in Python and reads the same in the OpenAPI
    schema's JavaScript regexes, which `\\Z` would not."""
    return f"^(?:{pattern})$(?!\\n)"


PLAYER_ID = r"[A-Za-z0-9._:@-]+"
LABEL = r"[^\x00-\x1f\x7f]+"  # one line of text: no control characters (PostgreSQL's text cannot hold NUL at all)
PROSE = r"[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f]+"  # text that may run over lines: tab, newline, return allowed

MAX_AMOUNT = 10**12  # a trillion minor units: far above any table limit, far below bigint overflow
Amount = Annotated[int, msgspec.Meta(ge=1, le=MAX_AMOUNT, description="integer minor units of the table currency")]
PlayerId = Annotated[str, msgspec.Meta(min_length=1, max_length=64, pattern=whole(PLAYER_ID))]
CARD_PATTERN = r"^[2-9TJQKA][SHDC]$"  # as the document shows it: anchored in the JavaScript regexes schemas use
CardCode = Annotated[str, msgspec.Meta(pattern=whole("[2-9TJQKA][SHDC]"), description="rank 23456789TJQKA + suit SHDC")]
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=100, pattern=whole(LABEL))]
Actor = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=128,
        pattern=whole(r"[\x20-\x7e]+"),
        description="who asked for this (a dealer, a supervisor, a support ticket): recorded in the audit log",
    ),
]
CHECKPOINT_SIZE = (
    "the tree size (number of audit records) of the latest signed checkpoint of the round's table when this reply "
    "was made (0: none yet); keep it, and GET /v1/audit/consistency proves later logs extend it"
)


class RequestBody(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """Base of every request body: unknown fields are refused, not ignored."""


class CreateTable(RequestBody):
    name: Name
    paytable: Annotated[str, msgspec.Meta(min_length=1, max_length=64, pattern=whole(LABEL), examples=["standard/v1"])]
    currency: Annotated[str, msgspec.Meta(pattern=whole("[A-Z]{3}"), description="ISO 4217 code", examples=["EUR"])]
    min_ante: Amount
    max_ante: Amount
    decks: Annotated[int, msgspec.Meta(ge=1, le=8)] = 6
    shoe_policy: ShoePolicyName = "per_round"
    penetration: Annotated[int, msgspec.Meta(ge=10, le=90, description="cut card position, percent")] | None = None
    max_bets: Annotated[int, msgspec.Meta(ge=1, le=7)] = 7
    raise_window_seconds: Annotated[int, msgspec.Meta(ge=1, le=300)] = 15
    mode: TableModeName = "live"
    deal: Annotated[
        DealModeName, msgspec.Meta(description="shared: one set of cards for the round; per_seat: each bet its own")
    ] = "shared"


class BetIn(RequestBody):
    player_id: PlayerId
    ante: Amount


class CreateRound(RequestBody):
    bets: Annotated[list[BetIn], msgspec.Meta(min_length=1, max_length=7)]
    forced_cards: (
        Annotated[
            list[CardCode],
            msgspec.Meta(
                min_length=2,
                max_length=21,
                description="test tables: the next cards in dealing order (shared: 2-3; per_seat: up to 3 a bet)",
            ),
        ]
        | None
    ) = None


BetId = Annotated[str, msgspec.Meta(min_length=1, max_length=80, pattern=whole(LABEL))]


class RaiseIn(RequestBody, tag_field="action", tag="raise"):
    bet_id: BetId
    amount: Annotated[int, msgspec.Meta(ge=0, le=MAX_AMOUNT, description="1..ante; absent: the whole ante")] | None = (
        None
    )


class CallIn(RequestBody, tag_field="action", tag="call"):
    bet_id: BetId
    # Older clients send `"amount": 0` with a call; any other amount is refused (a call raises nothing).
    amount: Annotated[int, msgspec.Meta(ge=0, le=MAX_AMOUNT, description="only 0, or absent")] | None = None


DecisionIn = RaiseIn | CallIn  # tagged by `action`


class VoidIn(RequestBody):
    reason: Annotated[str, msgspec.Meta(min_length=1, max_length=500, pattern=whole(PROSE))]
    requested_by: Actor | None = None


class RollbackIn(RequestBody):
    reason: Annotated[
        str,
        msgspec.Meta(
            min_length=1,
            max_length=500,
            pattern=whole(PROSE),
            description="why the round is undone; kept in the round and its audit record",
            examples=["wallet debit failed"],
        ),
    ]


class PaytableOut(msgspec.Struct, kw_only=True, omit_defaults=True):
    id: str
    name: str
    version: int
    sha256: str
    description: str
    spread_odds: list[int]
    trips_odds: int
    post_rule: PostRuleName
    max_raise_multiple: int
    theoretical: Theoretical | None = None


class PaytableList(msgspec.Struct, kw_only=True):
    items: list[PaytableOut]


class TableOut(msgspec.Struct, kw_only=True):
    table_id: UUID
    name: str
    status: TableStatusName
    paytable: str
    paytable_sha256: str
    decks: int
    shoe_policy: ShoePolicyName
    penetration: int | None
    currency: str
    min_ante: int
    max_ante: int
    max_bets: int
    raise_window_seconds: int
    mode: TableModeName
    deal: DealModeName
    created_at: datetime
    closed_at: datetime | None
    theoretical: Theoretical
    currency_exponent: int  # ISO 4217 minor unit: an amount of n minor units is n / 10**currency_exponent


class TableList(msgspec.Struct, kw_only=True):
    items: list[TableOut]


class TransactionOut(msgspec.Struct, kw_only=True):
    id: str
    kind: TransactionKindName
    type: DirectionName
    amount: int
    currency: str
    reverses: str | None  # a rollback: the id of the transaction it reverses


class BetOut(msgspec.Struct, kw_only=True):
    bet_id: str
    player_id: str
    ante: int
    raise_: int = msgspec.field(name="raise")
    decision: DecisionName | None
    result: ResultName | None
    payout: int | None
    net: int | None
    transactions: list[TransactionOut]
    # The hand this bet plays: a shared deal's bets all repeat the round's; a per-seat bet has its own.
    cards: list[CardOut]
    outcome: OutcomeName | None
    spread: int | None
    payout_odds: int | None


class CardOut(msgspec.Struct, kw_only=True, omit_defaults=True):  # a shared deal's cards have no seat
    position: Annotated[int, msgspec.Meta(description="in its hand: 1 and 2 are the posts, 3 the third card")]
    card: str
    shoe_index: int
    seat: Annotated[int | None, msgspec.Meta(description="per_seat deals: the seat, 1 = the first bet")] = None


class RevealOut(msgspec.Struct, kw_only=True):
    salt: str
    order: str


class ShoeOut(msgspec.Struct, kw_only=True):
    commitment: str
    reveal: RevealOut | None  # always sent: null until the shoe is retired


class RoundOut(msgspec.Struct, kw_only=True):
    round_id: UUID
    table_id: UUID
    status: RoundStatusName
    paytable: str
    paytable_sha256: str
    decks: int
    deal: DealModeName
    cards: list[CardOut]
    outcome: OutcomeName | None
    spread: int | None
    payout_odds: int | None
    raise_window_closes_at: datetime | None
    opened_at: datetime
    settled_at: datetime | None
    void_reason: str | None
    test: bool
    shoe: ShoeOut
    bets: list[BetOut]
    currency: str
    rolled_back_at: datetime | None
    rollback_reason: str | None
    recall_link: str  # where support staff get the round's replay page (POST it, signed)
    checkpoint_size: Annotated[int, msgspec.Meta(ge=0, description=CHECKPOINT_SIZE)] = 0


class CurrencyTotals(msgspec.Struct, kw_only=True):
    currency: str
    rounds: int
    wagered: int
    paid: int
    net: int


class RoundPage(msgspec.Struct, kw_only=True):
    items: list[RoundOut]
    next_cursor: str | None
    totals: list[CurrencyTotals]


# Audit anchors: checkpoints, proofs and the key they are signed with. Hashes travel as standard padded base64.
Base64 = Annotated[str, msgspec.Meta(description="standard padded base64 (RFC 4648 section 4)")]


class CloseIn(RequestBody):
    requested_by: Actor | None = None


class PublicKeyOut(msgspec.Struct, kw_only=True):
    verifier_key: Annotated[
        str, msgspec.Meta(description="c2sp.org/signed-note verifier key: <name>+<key id hex>+<base64(0x01 || key)>")
    ]
    name: str
    key_id: Annotated[str, msgspec.Meta(description="8 hex digits")]
    algorithm: Literal["Ed25519"]
    public_key: Annotated[str, msgspec.Meta(description="base64 of the 32-byte Ed25519 public key")]
    origin_prefix: Annotated[str, msgspec.Meta(description="a table's checkpoint origin is this plus its table id")]


class CheckpointOut(msgspec.Struct, kw_only=True):
    table_id: UUID
    tree_size: int
    root: Base64
    note: Annotated[str, msgspec.Meta(description="the c2sp.org/tlog-checkpoint signed note, byte for byte")]
    created_at: datetime


class RecordProofOut(msgspec.Struct, kw_only=True):
    seq: int
    leaf_index: Annotated[int, msgspec.Meta(description="seq - 1")]
    prev_hash: Base64
    record_hash: Base64
    body: Annotated[str, msgspec.Meta(description="base64 of the canonical record bytes the hash covers")]
    hashes: Annotated[list[Base64], msgspec.Meta(description="RFC 9162 inclusion_path, nearest the leaf first")]


class RoundProofOut(msgspec.Struct, kw_only=True):
    round_id: UUID
    table_id: UUID
    tree_size: int
    checkpoint: Annotated[str, msgspec.Meta(description="the signed checkpoint every record is proved in")]
    records: list[RecordProofOut]


class ConsistencyProofOut(msgspec.Struct, kw_only=True):
    table_id: UUID
    from_size: int
    to_size: int
    hashes: Annotated[list[Base64], msgspec.Meta(description="RFC 9162 consistency_path")]
    checkpoint: Annotated[str, msgspec.Meta(description="the signed checkpoint of to_size")]


class MomentOut(msgspec.Struct, kw_only=True):
    seq: Annotated[int, msgspec.Meta(description="the audit record's seq in the table's chain")]
    at: datetime
    kind: str
    text: Annotated[str, msgspec.Meta(description="what the player saw, in words")]


class PlayerRoundOut(msgspec.Struct, kw_only=True):
    round: Annotated[RoundOut, msgspec.Meta(description="the round, with only this player's bet")]
    currency: str
    timeline: list[MomentOut]


class PlayerRoundsOut(msgspec.Struct, kw_only=True):
    player_id: str
    items: list[PlayerRoundOut]


class RecallLinkIn(RequestBody):
    player_id: Annotated[PlayerId, msgspec.Meta(description="show only this player's bet (recommended)")] | None = None
    ttl_seconds: Annotated[int, msgspec.Meta(ge=60, le=90 * 86_400)] | None = None


class RecallLinkOut(msgspec.Struct, kw_only=True):
    url: Annotated[str, msgspec.Meta(description="opens the replay page; no credentials needed until it expires")]
    expires_at: datetime
