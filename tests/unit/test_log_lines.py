"""Every log line is written whole: two workers logging to one pipe never merge their lines, and a line longer than
a pipe takes in one atomic write goes out as several whole JSON lines that join back into it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import defaultdict
from typing import Any

import pytest

from service.observability.log_lines import ATOMIC_BYTES, whole_lines
from tests.support.database import ROOT

LINES = 1500  # a process; the issue saw 5 merged lines in about 9,500
# Sizes around the atomic write and far past it; quotes, backslashes and non-ASCII grow when escaped again.
SIZES = [80, 900, 3000, 4000, 4050, 4100, 6000, 20_000]
PAD = 'é"\\x\u2028' * 5000

WORKER = """
import sys
import structlog
from service.observability import log_streams
log_streams.configure("INFO")
log = structlog.get_logger("reddog.test")
sizes = [int(s) for s in sys.argv[2].split(",")]
pad = sys.argv[3]
for n in range(int(sys.argv[1])):
    log.info("line", who=sys.argv[4], n=n, pad=pad[: sizes[n % len(sizes)]])
"""


def logged_by_two_workers() -> bytes:
    """What two processes logging at once wrote to one pipe (unbuffered, as the image runs them)."""
    read_end, write_end = os.pipe()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}  # deploy/Dockerfile sets it: print() then writes a line in two
    args = [str(LINES), ",".join(map(str, SIZES)), PAD]
    command = [sys.executable, "-c", WORKER, *args]  # this test's own script and values
    workers = [subprocess.Popen([*command, who], stdout=write_end, cwd=ROOT, env=env) for who in ("a", "b")]  # noqa: S603
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        out = pipe.read()
    assert [worker.wait(timeout=60) for worker in workers] == [0, 0]
    return out


def joined(lines: list[bytes]) -> list[dict[str, Any]]:
    """The records the lines hold: a whole line is one; parts of one line (same `line`) are joined in order."""
    records: list[dict[str, Any]] = []
    parts: dict[str, dict[int, str]] = defaultdict(dict)
    for line in lines:
        record = json.loads(line)
        if "parts" not in record:
            records.append(record)
            continue
        parts[record["line"]][record["part"]] = record["text"]
        if len(parts[record["line"]]) == record["parts"]:
            pieces = parts.pop(record["line"])
            records.append(json.loads("".join(pieces[i] for i in range(1, record["parts"] + 1))))
    assert parts == {}, "a line lost some of its parts"
    return records


def test_two_workers_logging_long_lines_to_one_pipe_never_merge_them_and_every_line_comes_back_whole() -> None:
    lines = logged_by_two_workers().splitlines(keepends=True)
    assert max(map(len, lines)) <= ATOMIC_BYTES  # each went out in one write() a pipe keeps whole
    records = joined(lines)
    for who in ("a", "b"):
        mine = sorted((r for r in records if r.get("who") == who), key=lambda r: r["n"])
        assert [r["n"] for r in mine] == list(range(LINES))
        assert all(r["pad"] == PAD[: SIZES[r["n"] % len(SIZES)]] and r["event"] == "line" for r in mine)


def test_a_line_past_the_atomic_size_is_split_into_parts_that_keep_its_event_level_and_request_id() -> None:
    message = json.dumps(
        {"event": "unhandled_error", "level": "error", "request_id": "r-1", "exception": PAD}, ensure_ascii=False
    )
    lines = whole_lines(message)
    assert len(lines) > 1
    assert all(len(line) <= ATOMIC_BYTES and line.endswith(b"\n") for line in lines)
    parts = [json.loads(line) for line in lines]
    assert {(p["event"], p["level"], p["request_id"], p["parts"]) for p in parts} == {
        ("unhandled_error", "error", "r-1", len(lines))
    }
    assert [p["part"] for p in parts] == list(range(1, len(lines) + 1))
    assert "".join(p["text"] for p in parts) == message


@pytest.mark.parametrize("size", [14, ATOMIC_BYTES, ATOMIC_BYTES + 1])
def test_a_line_goes_out_as_it_is_when_it_fits_the_atomic_size_with_its_newline_and_is_split_one_byte_over(
    size: int,
) -> None:
    message = json.dumps({"event": "x" * (size - 14)})  # {"event": ""} and a newline are 14 bytes
    assert len(message.encode()) + 1 == size
    lines = whole_lines(message)
    assert (lines == [message.encode() + b"\n"]) is (size <= ATOMIC_BYTES)
    assert all(len(line) <= ATOMIC_BYTES for line in lines)
