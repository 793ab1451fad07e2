"""The friends' tables' request and response bodies as they travel (/v1/friends): play chips only."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

import msgspec

from service.api.inbetween_wire import AceCallName, Chips, GameOut, GameRecordOut, PairCallName, Version
from service.api.wire import LABEL, CardCode, RequestBody, whole

PersonalityName = Literal["cautious", "steady", "bold"]
TableStatusName = Literal["waiting", "playing", "over", "closed"]
HeldByName = Literal["host", "missed", "left"]
# The reactions a seat may send: names on the wire, never free text (the page draws each as its emoji: 👏 😂 😮 😢
# 🔥 🙏), so a reaction can carry no message, link or insult. A new one is a new name here and on the page.
ReactionName = Literal["clap", "laugh", "wow", "sad", "fire", "namaste"]
MAX_NAME = 32
DisplayName = Annotated[
    str,
    msgspec.Meta(
        min_length=1,
        max_length=MAX_NAME,
        pattern=whole(LABEL),
        description="display text in any script (राम, Sita, emoji): shown, escaped, never an id; two players may "
        "share one",
        examples=["राम"],
    ),
]
SeatNumber = Annotated[int, msgspec.Meta(ge=0, le=7)]


class CreateFriendsTable(RequestBody):
    name: DisplayName  # the host's
    ruleset: Annotated[str, msgspec.Meta(min_length=1, max_length=64, pattern=whole(LABEL))] | None = None
    rounds: Literal[5, 10, 15] = 10
    ante: Literal[5, 10, 20] = 10
    seats: Annotated[int, msgspec.Meta(ge=2, le=8)] = 4
    turn_seconds: Annotated[int, msgspec.Meta(ge=15, le=120)] = 30
    bearer: bool = False  # true: the seat token comes in the body, for a client without cookies, and no cookie is set


JoinKey = Annotated[
    str,
    msgspec.Meta(
        min_length=22,
        max_length=64,
        pattern="^[A-Za-z0-9_-]+$",
        description="random, made by the phone once per join it means and sent again with every retry: a retried "
        "join gets the seat (and token) the first took, never a second seat",
        examples=["8c6f5b7e-2a4d-4f0e-9b1a-3d2c7e6f5a4b"],
    ),
]


class JoinFriendsTable(RequestBody):
    name: DisplayName
    bearer: bool = False
    join_key: JoinKey | None = None


class ComputerIn(RequestBody):
    """How the computer plays a seat: a personality, and whether it follows the end-game tip."""

    personality: PersonalityName = "steady"
    endgame_tip: bool = True


class SeatComputerIn(ComputerIn, kw_only=True):
    seat: SeatNumber


class StartFriendsGame(RequestBody):
    computers: Annotated[list[SeatComputerIn], msgspec.Meta(max_length=8)] = msgspec.field(default_factory=list)
    # A server run with RD_ALLOW_TEST_TABLES only (tests, the browser tests' forced pairs): the pack's first cards.
    forced_cards: Annotated[list[CardCode], msgspec.Meta(min_length=1, max_length=52)] | None = None


class NoFields(RequestBody):
    """An empty JSON object: the request needs nothing more, but is sent as JSON like every other POST."""


class ReactionIn(RequestBody):
    reaction: ReactionName


class ReactionOut(msgspec.Struct, kw_only=True):
    """A reaction sent: pushed to every phone at the table as an `event: reaction`, and kept nowhere."""

    code: str
    seat: int
    reaction: str


class CallAceMove(RequestBody, tag_field="action", tag="call_ace"):
    version: Version
    call: AceCallName


class CallPairMove(RequestBody, tag_field="action", tag="call_pair"):
    version: Version
    call: PairCallName


class BetMove(RequestBody, tag_field="action", tag="bet"):
    version: Version
    amount: Chips


class PassMove(RequestBody, tag_field="action", tag="pass"):
    version: Version


class SplitMove(RequestBody, tag_field="action", tag="split"):
    version: Version


class KeepPairMove(RequestBody, tag_field="action", tag="keep_pair"):
    version: Version


class AgreeStopMove(RequestBody, tag_field="action", tag="agree_stop"):
    version: Version


# tagged by `action`; the seat is the token's (an agreement to stop may come from any seat with chips, in any turn)
class ShowMove(RequestBody, tag_field="action", tag="show"):
    version: Version


class BuyMove(RequestBody, tag_field="action", tag="buy"):
    version: Version
    amount: Chips


MoveIn = CallAceMove | CallPairMove | BetMove | PassMove | SplitMove | KeepPairMove | AgreeStopMove | ShowMove | BuyMove


class FriendsSeatOut(msgspec.Struct, kw_only=True):
    seat: int
    name: str | None  # null: a computer's seat
    player_id: str  # the seat's player in the game (`seat-2`): how the game's records name it
    computer_plays: bool
    held_by: HeldByName | None
    missed: int
    personality: PersonalityName
    endgame_tip: bool
    host: bool


class YouOut(msgspec.Struct, kw_only=True):
    seat: int
    host: bool
    to_act: bool
    tip: str | None  # the end-game tip, when it speaks to you now


class FriendsTableOut(msgspec.Struct, kw_only=True):
    code: str
    display_code: str  # the code as read aloud, in two groups of four
    share_url: str
    status: TableStatusName
    version: int
    ruleset: str
    rounds: int
    ante: int
    seats: int
    turn_seconds: int
    turn_deadline: datetime | None
    you: YouOut | None  # null: a spectator
    players: list[FriendsSeatOut]
    game: GameOut | None
    records: list[GameRecordOut]  # the game's records after `after`, when the request named it


class FriendsJoinedOut(msgspec.Struct, kw_only=True):
    seat: int
    token: str | None  # only when asked for with `bearer: true`; else it is in the HttpOnly cookie
    table: FriendsTableOut
