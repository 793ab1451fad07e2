"""Verify checks the order the spec gives an export: one section per chain, the chains in table_id order. A file
with its tables shuffled, or a record moved into another table's section, fails; every producer writes that order."""

from __future__ import annotations

import io
import random
from pathlib import Path

from audit.export_format import Line, RecordLine, TableHead, encode_lines, read_raw_lines
from audit.verify_export import ExportVerifier, FaultKind, verify_lines
from shoe.shoe import ShoePolicy
from tests.benchmarks.bench_audit_tools import make_export
from tests.support.audit_play import TablePlay, export, mixed_play, settings


def tables(count: int) -> list[TablePlay]:
    rng = random.Random(29)
    made = []
    for _ in range(count):
        table = TablePlay(settings("standard/v1", decks=1, policy=ShoePolicy.PER_ROUND), rng)
        mixed_play(rng, 3, table)
        made.append(table)
    return made


def sections(lines: list[Line]) -> list[list[Line]]:
    """The export's lines cut at each table line (the header alone first, the end line last)."""
    cut: list[list[Line]] = [[lines[0]]]
    for line in lines[1:-1]:
        if type(line) is TableHead:
            cut.append([])
        cut[-1].append(line)
    return [*cut, [lines[-1]]]


def verified(lines: list[Line]) -> tuple[bool, list[tuple[FaultKind, str]]]:
    checker = ExportVerifier()
    checker.feed_bytes(read_raw_lines(io.BytesIO(encode_lines(lines))))
    report = checker.report()
    return report.ok, [(f.kind, f.detail) for f in report.faults]


def test_an_export_in_table_id_order_verifies_and_the_same_tables_shuffled_do_not() -> None:
    made = tables(4)
    lines = export(made)
    heads = [x.table_id for x in lines if type(x) is TableHead]
    assert heads == sorted(t.table_id for t in made)
    assert verified(lines) == (True, [])
    header, *middle, end = sections(lines)
    shuffled = [*header, *middle[1], *middle[0], *middle[2], *middle[3], *end]
    ok, faults = verified(shuffled)
    assert not ok
    assert faults == [
        (FaultKind.REORDERED, f"table {heads[0]} comes after table {heads[1]}: chains are in table_id order")
    ]
    assert not verify_lines(shuffled).ok  # lines already decoded (the database's path) too


def test_a_record_moved_into_another_tables_section_fails_verify() -> None:
    lines = export(tables(2))
    first = next(i for i, x in enumerate(lines) if type(x) is RecordLine)
    heads = [x.table_id for x in lines if type(x) is TableHead]
    moved = lines[first]
    assert isinstance(moved, RecordLine)
    rest = [*lines[:first], *lines[first + 1 :]]
    rest.insert(len(rest) - 1, moved)  # just before the end line: inside the second table's section
    ok, faults = verified(rest)
    assert not ok
    assert (FaultKind.REORDERED, f"a line of table {heads[0]} in the section of table {heads[1]}") in faults


def test_pages_of_one_chain_concatenated_repeat_its_head_and_still_verify() -> None:
    lines = export(tables(1))
    head = next(x for x in lines if type(x) is TableHead)
    records = [x for x in lines if type(x) is RecordLine]
    pages: list[Line] = [head, *records[:5], head, *records[5:]]
    assert verify_lines(pages).ok


def test_the_audit_benchmarks_export_lists_its_tables_in_table_id_order_and_verifies(tmp_path: Path) -> None:
    path = tmp_path / "bench.jsonl"
    made, _ = make_export(path, 4_500)  # more than one table of each of the benchmark's first kinds
    checker = ExportVerifier()
    with path.open("rb") as stream:
        checker.feed_bytes(read_raw_lines(stream))
    report = checker.report()
    assert report.ok, report.faults[:3]
    assert made == len(report.tables) > 2
    ids = [t.table_id for t in report.tables]
    assert ids == sorted(ids)
