"""In Between games folded from their chains' records: the state each game's events describe, for reconciling.

A game's records are its events, in order; `paytables.inbetween.inbetween_state.apply` is the one reducer that
changes a game, so folding them gives exactly the game the service must have stored. Records that do not decode
or do not follow from each other leave the game unfolded, with the reason, which no stored row could match.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

import msgspec

from audit.export_format import Line, RecordLine
from audit.records import decode_inbetween_record
from paytables.inbetween.inbetween_events import InBetweenGameStarted
from paytables.inbetween.inbetween_state import Game, ReplayError, apply, begin


class RecordedGame(msgspec.Struct, frozen=True, kw_only=True):
    """What one game's chain says: its folded state (None with `problem` when it cannot fold) and its last record."""

    game: Game | None
    problem: str | None = None
    seq: int
    hash: str  # hex, as the export line spells it
    recorded_at: datetime


class GameFolder:
    """Feed it export lines of game chains in order; `recorded_games` then holds each game's folded state."""

    def __init__(self) -> None:
        self._games: dict[str, RecordedGame] = {}

    def feed(self, lines: Iterable[Line]) -> None:
        for line in lines:
            if isinstance(line, RecordLine):
                self._fold(line)

    def recorded_games(self) -> dict[str, RecordedGame]:
        return dict(self._games)

    def _fold(self, line: RecordLine) -> None:
        before = self._games.get(line.table_id)
        game, problem = _next(before, line)
        self._games[line.table_id] = RecordedGame(
            game=game, problem=problem, seq=line.seq, hash=line.hash, recorded_at=line.recorded_at
        )


def _next(before: RecordedGame | None, line: RecordLine) -> tuple[Game | None, str | None]:
    """The game after one more record, or the first reason it cannot be folded (kept once found)."""
    if before is not None and before.game is None:
        return None, before.problem
    if line.encoding != "json":
        return None, f"seq {line.seq} is not a JSON record"
    try:
        event = decode_inbetween_record(bytes(line.body)).event
        if before is not None and before.game is not None:
            return apply(before.game, event), None
        if isinstance(event, InBetweenGameStarted):
            return begin(event), None
        return None, f"seq {line.seq}: a game's records begin with ib_game_started"
    except (msgspec.DecodeError, ReplayError, IndexError) as exc:  # IndexError: an event for a seat not there
        return None, f"seq {line.seq}: {exc}"
