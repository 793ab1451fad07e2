"""Reconcile every stored round with its audit records: the `rounds` row must be exactly what its records say.

The records are the evidence and the row is what the service acts on (it settles from it, shows it, pays from it);
a row changed without its records, or records with no row, is a fault either way. The recorded states come from
`audit.replay.Replayer(keep_states=True).recorded_states()`.

The security work (issue 7) adds `reconcile_rounds(conn) -> RoundsReport` to `chains/audit_verify.py` at the same
time, comparing the status column and the fields a bet settles with. This one compares the whole state (cards,
times, spread, decisions too) from the states the replay already folded, and the status column; the CLI calls it
in one place (`service/cli/audit_commands.py`), so either can replace the other on merge.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from paytables.red_dog.round import Round
from service.db import Conn

_decode = msgspec.json.Decoder(Round).decode


class RoundDifference(msgspec.Struct, frozen=True, kw_only=True):
    round_id: str
    detail: str


async def reconcile_rounds(conn: Conn, recorded: Mapping[str, Round]) -> list[RoundDifference]:
    """Every stored round against the state its records describe, and every recorded round against its row."""
    differences: list[RoundDifference] = []
    seen: set[str] = set()
    async for row in conn.cursor("SELECT round_id, status, state FROM rounds ORDER BY round_id", prefetch=2000):
        round_id = str(row["round_id"])
        seen.add(round_id)
        try:
            stored = _decode(row["state"])
        except msgspec.DecodeError as exc:
            differences.append(RoundDifference(round_id=round_id, detail=f"its stored state does not decode: {exc}"))
            continue
        expected = recorded.get(round_id)
        if expected is None:
            differences.append(RoundDifference(round_id=round_id, detail="stored, but no round_opened record names it"))
        else:
            if stored != expected:
                differences.append(RoundDifference(round_id=round_id, detail=describe(stored, expected)))
            if row["status"] != expected.status.value:  # the column the sweeper and the lists select by
                detail = f"its status column is {row['status']!r}, its records say {expected.status.value!r}"
                differences.append(RoundDifference(round_id=round_id, detail=detail))
    differences.extend(
        RoundDifference(round_id=round_id, detail="its records open a round that is not stored")
        for round_id in sorted(set(recorded) - seen)
    )
    return differences


def describe(stored: Round, recorded: Round) -> str:
    """Which fields differ, bet by bet: what a reviewer needs to find the change."""
    parts = []
    mine, theirs = msgspec.structs.asdict(stored), msgspec.structs.asdict(recorded)
    for name, value in mine.items():
        if name != "bets" and value != theirs[name]:
            parts.append(f"{name} stored {value!r}, recorded {theirs[name]!r}")
    if len(stored.bets) != len(recorded.bets):
        parts.append(f"{len(stored.bets)} bets stored, {len(recorded.bets)} recorded")
    for a, b in zip(stored.bets, recorded.bets, strict=False):
        bet_a, bet_b = msgspec.structs.asdict(a), msgspec.structs.asdict(b)
        parts.extend(
            f"bet {a.bet_id} {name} stored {value!r}, recorded {bet_b[name]!r}"
            for name, value in bet_a.items()
            if value != bet_b[name]
        )
    return "; ".join(parts) or "the stored state differs from the records"
