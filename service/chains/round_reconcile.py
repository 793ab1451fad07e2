"""Reconcile every stored round with its audit records: the `rounds` row must be exactly what its records say.

The records are the evidence and the row is what the service acts on (it settles from it, shows it, pays from it);
a row changed without its records, or records with no row, is a fault either way. What the records say comes from
`audit.replay.Replayer(keep_states=True).recorded_rounds()`: the state each round's records fold to, compared whole
(cards, times, spread, decisions, every bet) with the row's state and its status column, and the ways a round's
records contradict each other, which no row could match.
"""

from __future__ import annotations

from typing import Any

import msgspec

from audit.replay import RecordedRounds
from paytables.red_dog.round import Round
from service.db import Conn
from service.db.round_sql import STATE_COLUMNS, state_of

_decode = msgspec.json.Decoder(Round).decode


class RoundDifference(msgspec.Struct, frozen=True, kw_only=True):
    round_id: str
    detail: str


class RoundsReport(msgspec.Struct, frozen=True, kw_only=True):
    checked: int  # stored rounds read
    differences: list[RoundDifference]
    unreadable: int = 0  # stored rounds with records from before schema 2, whose untyped payloads are not folded

    @property
    def ok(self) -> bool:
        return not self.differences


async def reconcile_stored_rounds(conn: Conn, recorded: RecordedRounds) -> RoundsReport:
    """Every stored round against the state its records describe, and every recorded round against its row; the
    caller holds the snapshot the records were read in."""
    differences: list[RoundDifference] = []
    seen: set[str] = set()
    unreadable = 0
    rows = conn.cursor(f"SELECT round_id, status, {STATE_COLUMNS} FROM rounds ORDER BY round_id", prefetch=2000)  # noqa: S608
    async for row in rows:
        round_id = str(row["round_id"])
        seen.add(round_id)
        if round_id in recorded.unreadable:
            unreadable += 1
            continue
        differences.extend(
            RoundDifference(round_id=round_id, detail=detail)
            for detail in _row_differences(row["status"], state_of(row), recorded.states.get(round_id))
        )
    differences.extend(
        RoundDifference(round_id=round_id, detail="its records open a round that is not stored")
        for round_id in sorted(set(recorded.states) - seen)
    )
    differences.extend(
        RoundDifference(round_id=round_id, detail=f"its records contradict each other: {problem}")
        for round_id, problems in sorted(recorded.problems.items())
        for problem in problems
    )
    return RoundsReport(checked=len(seen), differences=differences, unreadable=unreadable)


def _row_differences(status: str, state: str | bytes, expected: Round | None) -> list[str]:
    """How one row (its status column and its stored state) differs from what its records describe."""
    try:
        stored = _decode(state)
    except msgspec.DecodeError as exc:
        return [f"its stored state does not decode: {exc}"]
    if expected is None:
        return ["stored, but no round_opened record names it"]
    found = [] if stored == expected else [describe(stored, expected)]
    if status != expected.status.value:  # the column the sweeper and the lists select by
        found.append(f"its status column is {status!r}, its records say {expected.status.value!r}")
    return found


def describe(stored: Round, recorded: Round) -> str:
    """Which fields differ, bet by bet, as the stored JSON spells them: what a reviewer needs to find the change."""
    parts = []
    mine, theirs = _fields(stored), _fields(recorded)
    for name, value in mine.items():
        if name != "bets" and value != theirs[name]:
            parts.append(f"{name} stored {value!r}, recorded {theirs[name]!r}")
    if len(stored.bets) != len(recorded.bets):
        parts.append(f"{len(stored.bets)} bets stored, {len(recorded.bets)} recorded")
    for a, b in zip(stored.bets, recorded.bets, strict=False):
        bet_a, bet_b = _fields(a), _fields(b)
        parts.extend(
            f"bet {a.bet_id} {name} stored {value!r}, recorded {bet_b[name]!r}"
            for name, value in bet_a.items()
            if value != bet_b[name]
        )
    return "; ".join(parts) or "the stored state differs from the records"


def _fields(value: msgspec.Struct) -> dict[str, Any]:
    """Every field, unset ones too, with enums, times and nested Structs as plain JSON values."""
    return {name: msgspec.to_builtins(getattr(value, name)) for name in value.__struct_fields__}
