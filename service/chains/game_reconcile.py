"""Reconcile every In Between game row with its chain: the row must be exactly the game its records fold to.

The records are the evidence and the row is what the service acts on (the API shows it, the next move starts from
it); a row changed without its records is a fault, as a Red Dog round row is (`round_reconcile.py`). Compared: the
whole `state` (every seat's chips, the pot, the turn, the cards), the columns kept beside it for lists and guards
(status, ruleset, its sha256, test, started_at, ended_at) and the head columns (seq, hash and time of the last
record); and the chips the records fold to must be the starting chips plus every recorded buy. What the records say
comes from `audit.game_fold.GameFolder`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import asyncpg
import msgspec

from audit.game_fold import RecordedGame
from paytables.inbetween.inbetween_state import Game
from service.db import Conn

_decode = msgspec.json.Decoder(Game).decode
SELECT_GAMES = (
    "SELECT game_id, status, ruleset, ruleset_sha256, test, started_at, ended_at, state, audit_seq, audit_hash,"
    " audit_at FROM inbetween_games ORDER BY game_id"
)


class GameDifference(msgspec.Struct, frozen=True, kw_only=True):
    game_id: str
    detail: str


class GamesReport(msgspec.Struct, frozen=True, kw_only=True):
    checked: int  # stored games read
    differences: list[GameDifference]

    @property
    def ok(self) -> bool:
        return not self.differences


async def reconcile_stored_games(conn: Conn, recorded: dict[str, RecordedGame]) -> GamesReport:
    """Every game row against the game its records fold to; the caller holds the snapshot they were read in."""
    differences: list[GameDifference] = []
    checked = 0
    async for row in conn.cursor(SELECT_GAMES, prefetch=500):
        checked += 1
        game_id = str(row["game_id"])
        differences.extend(
            GameDifference(game_id=game_id, detail=detail) for detail in row_differences(row, recorded.get(game_id))
        )
    return GamesReport(checked=checked, differences=differences)


def row_differences(row: asyncpg.Record, recorded: RecordedGame | None) -> list[str]:
    """How one game row differs from what its records describe."""
    if recorded is None:
        return ["stored, but its chain holds no record"]
    if recorded.game is None:
        return [f"its records do not fold into a game: {recorded.problem}"]
    try:
        stored = _decode(row["state"])
    except msgspec.DecodeError as exc:
        return [f"its stored state does not decode: {exc}"]
    found = [] if stored == recorded.game else [describe(stored, recorded.game)]
    found.extend(_column_differences(row, recorded))
    found.extend(chips_unaccounted(recorded.game))
    return found


def chips_unaccounted(game: Game) -> list[str]:
    """Chips the records do not account for: held plus the pot must be seats x starting chips plus every buy."""
    expected = len(game.seats) * game.starting_chips + game.bought_total
    if game.total_chips == expected:
        return []
    return [
        f"its records hold {game.total_chips} chips, not {expected} (starting chips and {game.bought_total} bought)"
    ]


def _column_differences(row: asyncpg.Record, recorded: RecordedGame) -> list[str]:
    """The columns beside the state: each must say what the folded game and the chain's last record say."""
    game = recorded.game
    if game is None:
        return []
    expected: dict[str, Any] = {
        "status": game.status.value,
        "ruleset": game.ruleset,
        "ruleset_sha256": game.ruleset_sha256,
        "test": game.test,
        "started_at": game.started_at,
        "ended_at": game.ended_at,
        "audit_seq": recorded.seq,
        "audit_hash": recorded.hash,
        "audit_at": recorded.recorded_at,
    }
    stored = {**dict(row.items()), "audit_hash": bytes(row["audit_hash"]).hex()}
    return [
        f"its {name} column is {_shown(stored[name])}, its records say {_shown(value)}"
        for name, value in expected.items()
        if stored[name] != value  # times compare as instants, whatever zone each is spelled in
    ]


def describe(stored: Game, recorded: Game) -> str:
    """Which fields of the game differ, as the stored JSON spells them: what a reviewer needs to find the change."""
    mine, theirs = msgspec.to_builtins(stored), msgspec.to_builtins(recorded)
    parts = [
        f"{name} stored {value!r}, recorded {theirs.get(name)!r}"
        for name, value in mine.items()
        if value != theirs.get(name)
    ]
    return "; ".join(parts) or "the stored state differs from the records"


def _shown(value: object) -> str:
    return value.isoformat() if isinstance(value, datetime) else repr(value)
