"""The In Between audit events: a tagged union of frozen Structs, enough to replay a game from its events alone."""

from __future__ import annotations

import enum
from collections.abc import Sequence
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
    SPLIT = "split"  # a pair that may be split into two hands (`split`), or kept and played as `pair` says
    SHOW = "show"  # two face-down posts: show them and bet (`show`), or fold them unseen (`pass`)


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
    ANTE_RETURNED = "ante_returned"  # equal or adjacent posts push: the player's ante comes back from the pot
    SHARED = "shared"  # the pot shared at the end of the game
    SPLIT = "split"  # what splitting a pair into two hands costs, paid into the pot


class TurnOutcome(enum.StrEnum):
    WIN = "win"
    LOSE = "lose"
    POST = "post"
    PASSED = "passed"
    ADJACENT_PASSED = "adjacent_passed"
    ADJACENT_LOST = "adjacent_lost"
    ADJACENT_PUSHED = "adjacent_pushed"  # the ante came back (a pair that does so is `pair_pushed` with the move)
    PAIR_PAID = "pair_paid"
    PAIR_PUSHED = "pair_pushed"
    FOLDED = "folded"  # face-down posts folded without showing them


class EndReason(enum.StrEnum):
    ROUNDS_PLAYED = "rounds_played"
    POT_EMPTIED = "pot_emptied"  # a game played until a bet takes the whole pot
    ONE_PLAYER_LEFT = "one_player_left"  # at most one player has chips: the game is decided
    AGREED = "agreed"  # every player with chips agreed to stop; the pot is shared


class DealerDrawn(enum.StrEnum):
    """How the first dealer was drawn from the committed pack."""

    HIGHEST_CARD = "highest_card"  # a card to each player in turn; the highest deals (ties draw again)
    RANDOM = "random"  # one card's place in the pack's canonical order picks the seat, uniformly


class CalledBy(enum.StrEnum):
    PLAYER = "player"
    RULE = "rule"  # the rule set calls every ace high


class StandInBy(enum.StrEnum):
    """Who made a move for a seat instead of its player (friends' tables)."""

    COMPUTER = "computer"  # the computer, with the personality it plays the seat with
    TIMER = "timer"  # the turn's timer, when the seat did not act in time: the default move


class StandIn(msgspec.Struct, frozen=True, kw_only=True):
    """Who makes the move `act` is given, when it is not the seat's player: written first, as `ib_stood_in`."""

    by: StandInBy
    personality: str | None = None  # the computer's: cautious, steady or bold
    endgame_tip: bool | None = None  # the computer's: whether the leader passes more often in the last round


class SeatSpec(msgspec.Struct, frozen=True, kw_only=True):
    player_id: str
    computer: bool = False


COMPUTER_NAME = "computer-{seat}"  # a computer seat's name when none is asked for


def computer_names(asked: Sequence[str | None]) -> list[str]:
    """Each seat's name: the one asked for, or for a computer asked none `computer-N` (N its seat), then
    `computer-N-2`, `computer-N-3`, ... while that is a name asked for or already given, so no two seats share one."""
    taken = {name for name in asked if name is not None}
    names = []
    for seat, name in enumerate(asked):
        if name is None:
            base = name = COMPUTER_NAME.format(seat=seat)
            suffix = 1
            while name in taken:
                suffix += 1
                name = f"{base}-{suffix}"
            taken.add(name)
        names.append(name)
    return names


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
    """A new pack's commitment, published before any of its cards is dealt; `excluded` stayed on the table;
    `forced`: how many cards at the front of a test game's first pack it forced (the count, not the cards: a
    face-down post among them must stay hidden until the pack is revealed, which then shows them)."""

    shoe_number: int
    commitment: str
    size: int
    excluded: tuple[str, ...] = ()
    forced: int = 0


class InBetweenShoeRevealed(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag="ib_shoe_revealed"):
    """A retired pack's salt and order: anyone can recompute its commitment."""

    shoe_number: int
    commitment: str
    salt: str
    order: str
    dealt: int


class InBetweenDealerCard(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag="ib_dealer_card"):
    """A card turned from the committed pack to choose the first dealer: to `seat`, or to no one (drawn at random)."""

    seat: int | None
    card: str
    shoe_number: int
    shoe_index: int


class InBetweenDealerChosen(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag="ib_dealer_chosen"):
    dealer: int
    by: DealerDrawn


class InBetweenRoundStarted(
    msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True, tag_field="kind", tag="ib_round_started"
):
    round: int
    dealer: int
    order: tuple[int, ...]  # the seats' turns in order (a bank repeats them once per orbit)
    first_shoe: int | None = None  # a bank played twice through the deck: the pack it began with


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


class InBetweenCardDealtDown(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag="ib_card_dealt_down"):
    """A post dealt face down: the record names its place in the committed pack, never the card, so the chain binds
    the card (the pack's reveal proves it) without publishing it; `ib_cards_shown` names it if the player shows."""

    seat: int
    role: CardRole
    shoe_number: int
    shoe_index: int


class InBetweenCardsShown(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag="ib_cards_shown"):
    """The player shows their face-down posts, in the order dealt; they are the posts from here on."""

    seat: int
    cards: tuple[str, ...]


class InBetweenFirstCard(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag="ib_first_card"):
    """A round's first card, dealt face up to a player before the first turn (the dealer's game bank)."""

    seat: int
    card: str
    shoe_number: int
    shoe_index: int


class InBetweenChipsBought(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag="ib_chips_bought"):
    """A player brings `amount` new chips into the game; `chips` is their stack after, `bought` all they bought."""

    seat: int
    player_id: str
    amount: int
    chips: int
    bought: int


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


class InBetweenPairSplit(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag="ib_pair_split"):
    """The pair is split: the first post starts the first hand, the second post waits as the second hand's first."""

    seat: int


class InBetweenHandEnded(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag="ib_hand_ended"):
    """The first hand of a split pair is settled; the second hand begins with the pair's other card."""

    seat: int
    hand: int
    outcome: TurnOutcome


class InBetweenStopAgreed(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag="ib_stop_agreed"):
    """A player with chips agrees to stop the game and share the pot; when the last of them agrees, the game ends."""

    seat: int


class InBetweenStoodIn(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind", tag="ib_stood_in"):
    """The move whose records follow was made for the seat by the computer or the turn's timer, not by a person;
    a replay derives it again from the strategy named (friends' tables, which write one before every such move)."""

    seat: int
    by: StandInBy
    personality: str | None  # the computer's personality; None for the timer
    endgame_tip: bool | None  # the computer's end-game tip; None for the timer


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
    | InBetweenDealerCard
    | InBetweenDealerChosen
    | InBetweenRoundStarted
    | InBetweenChipsMoved
    | InBetweenTurnStarted
    | InBetweenCardDealt
    | InBetweenCardDealtDown
    | InBetweenCardsShown
    | InBetweenFirstCard
    | InBetweenChipsBought
    | InBetweenAwaiting
    | InBetweenAceCalled
    | InBetweenPairCalled
    | InBetweenPairSplit
    | InBetweenHandEnded
    | InBetweenStopAgreed
    | InBetweenStoodIn
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
