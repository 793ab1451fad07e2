"""The friends' tables' domain values to wire Structs and back: codes, display names, moves, per-seat views."""

from __future__ import annotations

import re
import unicodedata

from paytables.inbetween.inbetween_actions import (
    AgreeToStop,
    BuyChips,
    CallAce,
    CallPair,
    InBetweenAction,
    KeepPair,
    PassTurn,
    PlaceBet,
    ShowCards,
    SplitPair,
)
from paytables.inbetween.inbetween_events import AceCall, PairCall
from paytables.inbetween.inbetween_seat_play import Computer, Personality, leads_in_last_round
from service.api import friends_wire as wire
from service.api import inbetween_presenters
from service.db.friends_sql import FriendsSeat
from service.errors import validation
from service.settings import Settings
from service.use_cases.friends_play_use_cases import player_of
from service.use_cases.friends_use_cases import CODE_ALPHABET, CODE_LENGTH, TableView

PAGE_PATH = "/play/inbetween"
_CODE = re.compile(f"[{CODE_ALPHABET}]{{{CODE_LENGTH}}}")
# Format characters a name keeps: the joiners that Indic scripts (ZWNJ) and emoji sequences (ZWJ) are written with.
# Every other control or format character is refused, the bidirectional overrides that reorder text among them.
_JOINERS = {"\u200c", "\u200d"}
_REFUSED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
TIP = "leader_may_pass"  # "Late in the game, the leader can pass more often": the page's catalogue says it


def canonical_code(text: str) -> str | None:
    """A code as typed (any case, with a dash or spaces between its groups) in its one form; None if it is none."""
    code = text.upper().replace("-", "").replace(" ", "")
    return code if _CODE.fullmatch(code) else None


def display_code(code: str) -> str:
    return f"{code[:4]}-{code[4:]}"


def share_url(settings: Settings, code: str) -> str:
    """The link to send: from RD_PUBLIC_URL (else the configured address), never from the request's Host."""
    return f"{settings.link_base}{PAGE_PATH}?code={code}"


def display_name(text: str) -> str:
    """A name as typed, in NFC, trimmed; refused if empty or if it holds a control or format character."""
    name = unicodedata.normalize("NFC", text).strip()
    if not name:
        raise validation("name: a name needs at least one character that is not a space")
    for char in name:
        if unicodedata.category(char) in _REFUSED_CATEGORIES and char not in _JOINERS:
            raise validation(f"name: U+{ord(char):04X} is a control or format character, not part of a name")
    if len(name) > wire.MAX_NAME:
        raise validation(f"name: at most {wire.MAX_NAME} characters")
    return name


def move(data: wire.MoveIn) -> InBetweenAction:
    """The move; the player is filled in from the seat the token acts for."""
    match data:
        case wire.CallAceMove(call=call):
            return CallAce(player_id="", call=AceCall(call))
        case wire.CallPairMove(call=call):
            return CallPair(player_id="", call=PairCall(call))
        case wire.BetMove(amount=amount):
            return PlaceBet(player_id="", amount=amount)
        case wire.PassMove():
            return PassTurn(player_id="")
        case wire.SplitMove():
            return SplitPair(player_id="")
        case wire.KeepPairMove():
            return KeepPair(player_id="")
        case wire.AgreeStopMove():
            return AgreeToStop(player_id="")
        case wire.ShowMove():
            return ShowCards(player_id="")
        case wire.BuyMove(amount=amount):
            return BuyChips(player_id="", amount=amount)


def computer(data: wire.ComputerIn) -> Computer:
    return Computer(personality=Personality(data.personality), endgame_tip=data.endgame_tip)


def computers(data: wire.StartFriendsGame) -> dict[int, Computer]:
    return {c.seat: computer(c) for c in data.computers}


def seat_out(seat: FriendsSeat, host: int) -> wire.FriendsSeatOut:
    return wire.FriendsSeatOut(
        seat=seat.seat,
        name=seat.name,
        player_id=player_of(seat.seat),
        computer_plays=not seat.person or seat.held_by is not None,
        held_by=seat.held_by,  # type: ignore[arg-type]  # the column's CHECK holds it to the literal's values
        missed=seat.missed,
        personality=seat.personality,  # type: ignore[arg-type]  # likewise
        endgame_tip=seat.endgame_tip,
        host=seat.seat == host,
    )


def you_out(view: TableView) -> wire.YouOut | None:
    if view.viewer is None:
        return None
    game = None if view.game is None else view.game.game
    to_act = game is not None and game.turn is not None and game.to_act == player_of(view.viewer)
    tip = TIP if game is not None and leads_in_last_round(game, view.viewer) else None
    return wire.YouOut(seat=view.viewer, host=view.viewer == view.table.host_seat, to_act=to_act, tip=tip)


def table_out(view: TableView, settings: Settings) -> wire.FriendsTableOut:
    """The table as its viewer may see it: one function for the replies, the state route and spectators."""
    table = view.table
    return wire.FriendsTableOut(
        code=table.code,
        display_code=display_code(table.code),
        share_url=share_url(settings, table.code),
        status=table.status,  # type: ignore[arg-type]  # the column's CHECK holds it to the literal's values
        version=table.version,
        ruleset=table.ruleset,
        rounds=table.rounds,
        ante=table.ante,
        seats=table.seats,
        turn_seconds=table.turn_seconds,
        turn_deadline=table.turn_deadline,
        you=you_out(view),
        players=[seat_out(s, table.host_seat) for s in view.seats],
        game=None if view.game is None else inbetween_presenters.game_out(view.game),
        records=inbetween_presenters.record_page(list(view.records), len(view.records)).items,
    )


def joined_out(view: TableView, token: str, bearer: bool, settings: Settings) -> wire.FriendsJoinedOut:
    assert view.viewer is not None
    return wire.FriendsJoinedOut(seat=view.viewer, token=token if bearer else None, table=table_out(view, settings))
