"""verify and replay on every core (`audit/parallel.py`): the same report as one process, tampering caught the same.

The short form of what `make bench-audit` measures: a few thousand records in six tables, cut into sections as
small as a table so that two workers share them.
"""

from __future__ import annotations

import random
from pathlib import Path

import msgspec
import pytest

from audit import audit_cli, parallel
from audit.export_format import CheckpointLine, read_lines, read_raw_lines
from audit.replay import Replayer
from audit.verify_export import ExportVerifier, FaultKind
from tests.benchmarks.bench_audit_tools import KEY, make_export

Kept = parallel.Kept


@pytest.fixture(scope="module")
def clean(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("parallel") / "export.jsonl"
    tables, records = make_export(path, 600)
    assert (tables, records) == (6, len([x for x in path.read_bytes().splitlines() if b'"type":"record"' in x]))
    return path


def serial_verify(path: Path, kept: Kept = ()) -> bytes:  # type: ignore[assignment]
    checker = ExportVerifier(audit_cli.verifier_of(KEY.verifier_key))
    for table_id, size, note, source in kept:
        checker.keep(table_id, size, note, source)
    with path.open("rb") as stream:
        checker.feed_bytes(read_raw_lines(stream))
    return msgspec.json.encode(checker.report())


def parallel_verify(path: Path, kept: Kept = ()) -> bytes:  # type: ignore[assignment]
    checker = parallel.verify_file(str(path), KEY.verifier_key, list(kept), jobs=2, min_bytes=1)
    assert checker is not None, "the sections were not shared out"
    return msgspec.json.encode(checker.report())


def serial_replay(path: Path) -> bytes:
    replayer = Replayer()
    with path.open("rb") as stream:
        replayer.feed_bytes(read_raw_lines(stream))
    return msgspec.json.encode(replayer.report())


def parallel_replay(path: Path) -> bytes:
    replayer = parallel.replay_file(str(path), jobs=2, min_bytes=1)
    assert replayer is not None, "the sections were not shared out"
    return msgspec.json.encode(replayer.report())


def tampered(clean: Path, tmp_path: Path) -> Path:
    """A payout raised in the second table, a record dropped from the fourth, a stray line in the fifth."""
    lines = clean.read_bytes().splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.startswith(b'{"type":"table"')]
    payout = next(i for i in range(starts[1], starts[2]) if b'"result":"win"' in lines[i])
    lines[payout] = (
        lines[payout].replace(b'"result":"win"', b'"result":"win" ', 1).replace(b'"payout":', b'"payout":1', 1)
    )
    del lines[starts[3] + 40]
    lines.insert(starts[4] + 30, b"not a line of an export\n")
    path = tmp_path / "tampered.jsonl"
    path.write_bytes(b"".join(lines))
    return path


def test_a_clean_export_verifies_and_replays_on_two_workers_to_the_one_process_report(clean: Path) -> None:
    assert len(parallel.tasks(str(clean), 100, min_bytes=1)) == 6  # a table each, the header with the first
    assert len(parallel.tasks(str(clean), 8, min_bytes=1)) == 4  # what two workers get: four tasks, whole tables
    report = parallel_verify(clean)
    assert report == serial_verify(clean)
    assert msgspec.json.decode(report)["ok"] is True
    replayed = parallel_replay(clean)
    assert replayed == serial_replay(clean)
    assert msgspec.json.decode(replayed)["rounds"] == 600


def test_tampering_is_caught_by_two_workers_exactly_as_by_one(clean: Path, tmp_path: Path) -> None:
    path = tampered(clean, tmp_path)
    report = parallel_verify(path)
    assert report == serial_verify(path)
    faults = msgspec.json.decode(report)["faults"]
    kinds = {fault["kind"] for fault in faults}
    assert {FaultKind.CHANGED, FaultKind.MISSING, FaultKind.MALFORMED} <= kinds
    line = 1 + next(i for i, x in enumerate(path.read_bytes().splitlines()) if x.startswith(b"not a line"))
    assert any(fault["detail"].startswith(f"line {line}:") for fault in faults)  # numbered in the whole file
    replayed = parallel_replay(path)
    assert replayed == serial_replay(path)
    assert msgspec.json.decode(replayed)["ok"] is False


def test_kept_checkpoints_hold_against_the_chains_of_every_worker(clean: Path, tmp_path: Path) -> None:
    with clean.open("rb") as stream:
        kept: Kept = [
            (line.table_id, line.size, line.note, "kept in the test")
            for line in read_lines(stream)
            if type(line) is CheckpointLine
        ]
    kept.append((kept[0][0].replace("1", "2"), kept[0][1], kept[0][2], "kept for a table not exported"))
    random.Random(29).shuffle(kept)
    path = tampered(clean, tmp_path)
    assert parallel_verify(path, kept) == serial_verify(path, kept)


def test_a_table_met_in_two_sections_is_left_to_one_pass(clean: Path, tmp_path: Path) -> None:
    lines = clean.read_bytes().splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.startswith(b'{"type":"table"')]
    lines.insert(starts[5] + 1, lines[starts[1] + 50])  # a record of the second table among the last one's
    path = tmp_path / "split.jsonl"
    path.write_bytes(b"".join(lines))
    assert parallel.verify_file(str(path), KEY.verifier_key, [], jobs=2, min_bytes=1) is None
    assert parallel.replay_file(str(path), jobs=2, min_bytes=1) is None


def test_the_command_gives_the_same_output_and_exit_code_with_one_job_or_every_core(
    clean: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parallel, "MIN_TASK_BYTES", 1)
    path = tampered(clean, tmp_path)
    for command in (["verify", "--public-key", KEY.verifier_key], ["replay"]):
        results = []
        for jobs in ("1", "2"):
            code = audit_cli.main([*command, "--jobs", jobs, str(path)])
            results.append((code, capsys.readouterr().out))
        assert results[0] == results[1]
        assert results[0][0] == 1


def test_every_part_of_a_verifier_and_a_replayer_is_one_the_merge_knows() -> None:
    """A part added to either (a new check's state) must be merged from the sections too, or be said not to need it."""
    assert set(vars(ExportVerifier())) == ExportVerifier.MERGED
    assert set(vars(Replayer())) == Replayer.MERGED
