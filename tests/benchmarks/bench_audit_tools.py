"""How fast `reddog audit verify` and `replay` read an export of 100,000 rounds (one core; run by hand, not by pytest).

The export is made the way the service makes one: real shoes (`shoe.shoe.new_shoe`'s Fisher-Yates, from a seeded
source so the file is the same every time), rounds through the game core, the shoe lifecycle of the use cases,
records through `audit.chain`, and a signed checkpoint every 1,000 records of each table. Only HTTP and SQL are
left out. The times are CPU seconds of this process (`time.process_time`): on a shared machine the wall clock
also counts the other processes, so it is printed beside them for reference only.

    .venv/bin/python -m tests.benchmarks.bench_audit_tools [--rounds 100000] [--file PATH] [--runs 3]
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from audit import replay_stats, round_rerun
from audit.checkpoint import Checkpoint, sign_checkpoint
from audit.export_format import (
    CheckpointLine,
    ExportEnd,
    ExportHeader,
    Line,
    encode_line,
    read_raw_lines,
)
from audit.merkle import CompactRange
from audit.replay import Replayer
from audit.signed_note import generate_key, parse_signer, parse_verifier
from audit.verify_export import ExportVerifier
from shoe.shoe import ShoePolicy
from tests.support.audit_play import START, TablePlay, mixed_play, settings

KEY = generate_key("bench.example/audit", bytes(range(32)))
ROUNDS_PER_TABLE = 2_000
CHECKPOINT_EVERY = 1_000
# (share of the rounds, paytable, decks, shoe policy): most tables deal a fresh six-deck shoe every round
MIX = [
    (0.55, "standard/v1", 6, ShoePolicy.PER_ROUND),
    (0.10, "post-double/v1", 8, ShoePolicy.PER_ROUND),
    (0.05, "generous/v1", 1, ShoePolicy.PER_ROUND),
    (0.15, "standard/v1", 6, ShoePolicy.CUT_CARD),
    (0.10, "generous/v1", 2, ShoePolicy.CUT_CARD),
    (0.05, "post-double/v1", 1, ShoePolicy.CUT_CARD),
]


def table_lines(table: TablePlay) -> Iterator[Line]:
    """The table's export lines with a signed checkpoint every CHECKPOINT_EVERY records, before its records."""
    signer = parse_signer(KEY.signer_key)
    head = CompactRange()
    lines = list(table.lines())
    yield lines[0]
    for start in range(0, len(table.links) - CHECKPOINT_EVERY + 1, CHECKPOINT_EVERY):
        head = head.extend(link.hash for link in table.links[start : start + CHECKPOINT_EVERY])
        origin = f"bench.example/audit/table/{table.table_id}"
        note = sign_checkpoint(Checkpoint(origin=origin, size=head.size, root=head.root()), signer)
        yield CheckpointLine(table_id=table.table_id, size=head.size, note=note)
    yield from lines[1:]


def make_export(path: Path, rounds: int) -> tuple[int, int]:
    """Write the export; the number of tables and records."""
    rng = random.Random(20260501)
    tables = records = 0
    with path.open("wb") as out:
        out.write(encode_line(ExportHeader(exported_at=START)))
        for share, paytable, decks, policy in MIX:
            left = round(rounds * share)
            while left > 0:
                table_settings = settings(paytable, decks=decks, policy=policy, penetration=75)
                table = TablePlay(table_settings, rng, place=tables)  # written in table_id order, as the spec says
                mixed_play(rng, min(left, ROUNDS_PER_TABLE), table)
                table.close()
                left -= ROUNDS_PER_TABLE
                for line in table_lines(table):
                    out.write(encode_line(line))
                tables += 1
                records += len(table.links)
        out.write(encode_line(ExportEnd(tables=tables, records=records)))
    return tables, records


def timed(action: Callable[[], object], runs: int) -> tuple[float, float, object]:
    """The fewest CPU seconds of `runs` runs, the wall seconds of that run, and its result."""
    best: tuple[float, float, object] = (float("inf"), 0.0, None)
    for _ in range(runs):
        cpu, wall = time.process_time(), time.perf_counter()
        result = action()
        elapsed = (time.process_time() - cpu, time.perf_counter() - wall, result)
        best = min(best, elapsed, key=lambda x: x[0])
    return best


def verify(path: Path) -> object:
    checker = ExportVerifier(parse_verifier(KEY.verifier_key))
    with path.open("rb") as stream:
        checker.feed_bytes(read_raw_lines(stream))
    report = checker.report()
    assert report.ok, report.faults[:3]
    return report


def replay(path: Path) -> object:
    # Every run pays for the exact outcome odds and the paytable files, as a fresh `reddog audit replay` would.
    replay_stats.outcome_odds.cache_clear()
    round_rerun.released_paytable.cache_clear()
    replayer = Replayer()
    with path.open("rb") as stream:
        replayer.feed_bytes(read_raw_lines(stream))
    report = replayer.report()
    assert report.ok, report.mismatches[:3]
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=100_000)
    parser.add_argument("--file", type=Path, default=None, help="keep the export here (made once, reused)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    path = args.file or Path(f"/tmp/reddog-bench-export-{args.rounds}.jsonl")  # noqa: S108 - a scratch file
    if not path.exists():
        started = time.perf_counter()
        tables, records = make_export(path, args.rounds)
        print(f"made {path}: {tables} tables, {records:,} records in {time.perf_counter() - started:.0f} s")
    size = os.path.getsize(path)
    cpu, wall, report = timed(lambda: verify(path), args.runs)
    records = report.records  # type: ignore[attr-defined]
    print(f"export: {size / 1e6:,.0f} MB, {records:,} records")
    print(f"verify: {cpu:6.2f} s CPU ({wall:6.2f} s wall)  {records / cpu:>10,.0f} records/s")
    cpu, wall, report = timed(lambda: replay(path), args.runs)
    rounds = report.rounds  # type: ignore[attr-defined]
    print(f"replay: {cpu:6.2f} s CPU ({wall:6.2f} s wall)  {rounds / cpu:>10,.0f} rounds/s  ({rounds:,} rounds)")


if __name__ == "__main__":
    main()
