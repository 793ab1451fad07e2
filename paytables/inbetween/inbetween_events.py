"""The In Between audit events: a tagged union of frozen Structs, enough to replay a game from its events alone."""

from __future__ import annotations

import enum
from datetime import datetime

import msgspec


class AceCall(enum.StrEnum):
    HIGH = "high"
    LOW = "low"


class PairCall(enum.StrEnum):
    HIGHER = "higher"
    LOWER = "lower"


class CardRole(enum.StrEnum):
    FIRST_POST = "first_post"
    SECOND_POST = "second_post"
    THIRD_CARD = "third_card"


class Decision(enum.StrEnum):
    """What the game waits for from the player whose turn it is."""

    ACE_CALL = "ace_call"
    PAIR_CALL = "pair_call"
    BET = "bet"


class ChipReason(enum.StrEnum):
    ANTE = "ante"
    REANTE = "reante"  # a bet emptied the pot mid-round: everyone with chips antes again at once
    STAKE = "stake"  # the banker's stake that makes the pot
    WIN = "win"
    LOSE = "lose"
    POST = "post"
    PAIR_PAID = "pair_paid"
    ADJACENT_LOST = "adjacent_lost"
    BANK_RETURNED = "bank_returned"  # the banker takes back what is left of the pot
    SHARED = "shared"  # the pot shared at the end of the game


class TurnOutcome(enum.StrEnum):
    WIN = "win"
    LOSE = "lose"
    POST = "post"
    PASSED = "passed"
    ADJACENT_PASSED = "adjacent_passed"
    ADJACENT_LOST = "adjacent_lost"
    PAIR_PAID = "pair_paid"
    PAIR_PUSHED = "pair_pushed"


class EndReason(enum.StrEnum):
    ROUNDS_PLAYED = "rounds_played"
    POT_EMPTIED = "pot_emptied"  # a game played until a bet takes the whole pot
    ONE_PLAYER_LEFT = "one_player_left"  # at most one player has chips: the game is decided


class CalledBy(enum.StrEnum):
    PLAYER = "player"
    RULE = "rule"  # the rule set calls every ace high


class SeatSpec(msgspec.Struct, frozen=True, kw_only=True):
    player_id: str
    computer: bool = False


class InBetweenGameStarted(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag="ib_game_started"):
    game_id: str
    ruleset: str
    ruleset_sha256: str
    ante: int
    rounds: int | None  # None: until a bet takes the whole pot
    starting_chips: int
    seats: tuple[SeatSpec, ...]
    dealer: int
    test: bool
    at: datetime


class InBetweenShoeShuffled(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag="ib_shoe_shuffled"):
    """A new pack's commitment, published before any of its cards is dealt; `excluded` stayed on the table."""

    shoe_number: int
    commitment: str
    size: int
    excluded: tuple[str, ...] = ()


class InBetweenShoeRevealed(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag="ib_shoe_revealed"):
    """A retired pack's salt and order: anyone can recompute its commitment."""

    shoe_number: int
    commitment: str
    salt: str
    order: str
    dealt: int


class InBetweenRoundStarted(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag="ib_round_started"):
    round: int
    dealer: int
    order: tuple[int, ...]  # the seats' turns in order (a bank repeats them once per orbit)


class InBetweenChipsMoved(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag="ib_chips_moved"):
    """Chips between a seat and the pot: `delta` is the seat's change; the pot changes by its opposite."""

    seat: int
    player_id: str
    delta: int
    reason: ChipReason
    chips: int  # the seat's chips after the move
    pot: int  # the pot after the move


class InBetweenTurnStarted(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag="ib_turn_started"):
    seat: int
    player_id: str
    index: int  # the turn's place in the round's order


class InBetweenCardDealt(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag="ib_card_dealt"):
    seat: int
    role: CardRole
    card: str
    shoe_number: int
    shoe_index: int


class InBetweenAwaiting(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag="ib_awaiting"):
    """The game waits for this player's decision; for a bet, the least and the most it may be."""

    seat: int
    player_id: str
    decision: Decision
    min_bet: int | None = None
    max_bet: int | None = None


class InBetweenAceCalled(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag="ib_ace_called"):
    seat: int
    call: AceCall
    by: CalledBy


class InBetweenPairCalled(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag="ib_pair_called"):
    seat: int
    call: PairCall


class InBetweenBetPlaced(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag="ib_bet_placed"):
    seat: int
    amount: int


class InBetweenPassed(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag="ib_passed"):
    seat: int


class InBetweenTurnEnded(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag="ib_turn_ended"):
    seat: int
    outcome: TurnOutcome


class InBetweenRoundEnded(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag="ib_round_ended"):
    round: int


class InBetweenGameEnded(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag="ib_game_ended"):
    reason: EndReason
    chips: tuple[int, ...]  # every seat's final chips
    winners: tuple[int, ...]  # the seats with the most chips
    at: datetime


InBetweenEvent = (
    InBetweenGameStarted
    | InBetweenShoeShuffled
    | InBetweenShoeRevealed
    | InBetweenRoundStarted
    | InBetweenChipsMoved
    | InBetweenTurnStarted
    | InBetweenCardDealt
    | InBetweenAwaiting
    | InBetweenAceCalled
    | InBetweenPairCalled
    | InBetweenBetPlaced
    | InBetweenPassed
    | InBetweenTurnEnded
    | InBetweenRoundEnded
    | InBetweenGameEnded
)

_encoder = msgspec.json.Encoder(order="deterministic")
_decoder = msgspec.json.Decoder(list[InBetweenEvent])


def encode_events(events: tuple[InBetweenEvent, ...] | list[InBetweenEvent]) -> bytes:
    """The events as one JSON array (what an audit log stores, one record each)."""
    return _encoder.encode(list(events))


def decode_events(data: bytes) -> list[InBetweenEvent]:
    """Events back from `encode_events` bytes, each as its own Struct."""
    return _decoder.decode(data)
