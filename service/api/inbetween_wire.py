"""In Between request and response bodies as they travel; chips are whole play chips, never money."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal
from uuid import UUID

import msgspec

from paytables.inbetween.inbetween_rules import RuleTerms  # released terms are public values: shown as released
from service.api.wire import LABEL, CardCode, PlayerId, RequestBody, RevealOut, whole

# The domain's enums spelled out as literals, so the schema lists their values inline (a test keeps them equal).
GameStatusName = Literal[
    "awaiting_ace_call",
    "awaiting_pair_call",
    "awaiting_bet",
    "awaiting_split",
    "awaiting_show",
    "turn_over",
    "round_over",
    "game_over",
]
DecisionName = Literal["ace_call", "pair_call", "bet", "split", "show"]
AceCallName = Literal["high", "low"]
PairCallName = Literal["higher", "lower"]
TurnOutcomeName = Literal[
    "win",
    "lose",
    "post",
    "passed",
    "adjacent_passed",
    "adjacent_lost",
    "adjacent_pushed",
    "pair_paid",
    "pair_pushed",
    "folded",
]
EndReasonName = Literal["rounds_played", "pot_emptied", "one_player_left", "agreed"]
GameModeName = Literal["live", "test"]

MAX_CHIPS = 10**9  # far above any game's chips (8 players x a rule set's starting chips), far below overflow
Chips = Annotated[int, msgspec.Meta(ge=1, le=MAX_CHIPS, description="whole play chips")]


class RuleSetOut(msgspec.Struct, kw_only=True):
    id: str
    description: str
    sha256: str
    terms: RuleTerms


class RuleSetList(msgspec.Struct, kw_only=True):
    items: list[RuleSetOut]


class GameSeatIn(RequestBody):
    """A human seat (`player_id`) or a computer seat (`computer: true`, its `player_id` optional)."""

    player_id: PlayerId | None = None
    computer: bool = False


class CreateGame(RequestBody):
    ruleset: Annotated[
        str, msgspec.Meta(min_length=1, max_length=64, pattern=whole(LABEL), examples=["inbetween/nepal/v1"])
    ]
    ante: Chips
    seats: Annotated[list[GameSeatIn], msgspec.Meta(min_length=1, max_length=8)]
    # omitted: the rule set's default (`default_rounds`, else its first choice)
    rounds: Annotated[int, msgspec.Meta(ge=1, le=100)] | Literal["until_empty"] | None = None
    mode: GameModeName = "live"
    forced_cards: (
        Annotated[
            list[CardCode], msgspec.Meta(min_length=1, max_length=52, description="test games: the pack's first cards")
        ]
        | None
    ) = None


# The game's version a move answers (GameOut.version): a move for a version that is no longer current is refused,
# so of two racing moves for one turn exactly one lands, and a late one never lands on a turn its player never saw.
Version = Annotated[
    int, msgspec.Meta(ge=0, le=2**62, description="the game's version this move answers (GameOut.version)")
]


class CallAceIn(RequestBody, tag_field="action", tag="call_ace"):
    player_id: PlayerId
    version: Version
    call: AceCallName


class CallPairIn(RequestBody, tag_field="action", tag="call_pair"):
    player_id: PlayerId
    version: Version
    call: PairCallName


class PlaceBetIn(RequestBody, tag_field="action", tag="bet"):
    player_id: PlayerId
    version: Version
    amount: Chips


class PassIn(RequestBody, tag_field="action", tag="pass"):
    player_id: PlayerId
    version: Version


class SplitIn(RequestBody, tag_field="action", tag="split"):
    player_id: PlayerId
    version: Version


class KeepPairIn(RequestBody, tag_field="action", tag="keep_pair"):
    player_id: PlayerId
    version: Version


class AgreeStopIn(RequestBody, tag_field="action", tag="agree_stop"):
    player_id: PlayerId  # any player with chips, whoever's turn it is
    version: Version


class ShowIn(RequestBody, tag_field="action", tag="show"):
    player_id: PlayerId
    version: Version


class BuyIn(RequestBody, tag_field="action", tag="buy"):
    player_id: PlayerId  # any player, whoever's turn it is, where the rule set lets players buy chips
    version: Version
    amount: Chips


# tagged by `action`
ActionIn = CallAceIn | CallPairIn | PlaceBetIn | PassIn | SplitIn | KeepPairIn | AgreeStopIn | ShowIn | BuyIn


class GameSeatOut(msgspec.Struct, kw_only=True):
    seat: int
    player_id: str
    computer: bool
    chips: int


class GameHandOut(msgspec.Struct, kw_only=True):
    """A split pair's first hand, once it is settled."""

    first_post: str
    second_post: str
    pair_call: PairCallName | None
    bet: int | None
    passed: bool
    third_card: str | None
    outcome: TurnOutcomeName


class GameTurnOut(msgspec.Struct, kw_only=True):
    """The turn on the table: its posts, what was called and bet, and once it is over the third card and outcome."""

    seat: int
    player_id: str
    first_post: str | None
    ace_call: AceCallName | None
    second_post: str | None
    pair_call: PairCallName | None
    min_bet: int | None
    max_bet: int | None
    bet: int | None
    passed: bool
    third_card: str | None
    outcome: TurnOutcomeName | None
    hand: int = 0  # a split pair: the hand being played (1 or 2); 0 when no pair was split
    split_card: str | None = None  # a split pair's other card, waiting as the second hand's first post
    hands: list[GameHandOut] = msgspec.field(default_factory=list)  # a split pair's settled first hand
    down: list[int] = msgspec.field(default_factory=list)  # face-down posts: their places in the pack, never the cards


class OddsOut(msgspec.Struct, kw_only=True):
    """How many of the `unseen` cards win, hit a post or lose; each is equally likely to come next."""

    win: int
    post: int
    lose: int
    unseen: int


class PairCallOddsOut(msgspec.Struct, kw_only=True):
    call: PairCallName
    odds: OddsOut


class GameShoeOut(msgspec.Struct, kw_only=True):
    """The pack in play: its number in the game, its commitment, and its salt and order once the game is over."""

    number: int
    commitment: str
    reveal: RevealOut | None


class GameOut(msgspec.Struct, kw_only=True):
    game_id: UUID
    version: int  # the seq of the game's last audit record: a move names it; records after it are what came since
    ruleset: str
    ruleset_sha256: str
    ante: int
    rounds: int | None  # null: until a bet takes the whole pot
    starting_chips: int
    test: bool
    status: GameStatusName
    round: int
    dealer: int
    order: list[int]
    pot: int
    seats: list[GameSeatOut]
    to_act: str | None
    awaiting: DecisionName | None
    turn: GameTurnOut | None
    count: int
    seen: list[str]
    odds: OddsOut | None
    pair_call_odds: list[PairCallOddsOut]
    shoe: GameShoeOut
    started_at: datetime
    ended_at: datetime | None
    ended_reason: EndReasonName | None
    winners: list[int]
    agreed: list[int] = msgspec.field(default_factory=list)  # the seats that agreed to stop, in the order they did
    bought: list[int] = msgspec.field(default_factory=list)  # chips each seat bought; empty: nobody has bought
    own_cards: list[str] = msgspec.field(default_factory=list)  # the viewing seat's own face-down posts, unshown


class GameRecordOut(msgspec.Struct, kw_only=True):
    """One audit record: `body` is the canonical record text; sha256(prev_hash || body as UTF-8) is `hash`."""

    seq: int
    prev_hash: str
    hash: str
    body: str


class GameRecordPage(msgspec.Struct, kw_only=True):
    items: list[GameRecordOut]
    next_after: int | None  # pass back as `after` for the next page; null on the last
