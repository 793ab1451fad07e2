"""A process taken over for production writes nothing to stderr but JSON objects, one a line: what it says to the
operator, Python logging's records with any traceback inside one field (shortened to fit the line), warnings, stray
text, and the exceptions no code caught, in a thread or at the top."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from service.observability.log_lines import ATOMIC_BYTES, shortened
from tests.support.database import ROOT

SCRIPT = """
import logging, sys, threading, warnings
from service.observability import log_streams

log_streams.take_over()
log_streams.say("serving", "a line for people", port=8000)
print("a stray line\\nand another", file=sys.stderr)
warnings.warn("a deprecated thing")
try:
    raise ValueError("the inner fault")
except ValueError:
    logging.getLogger("asyncpg.pool").warning("Failed to restore the pool connection floor; retrying", exc_info=True)

def chained(n):
    try:
        chained(n - 1) if n else 1 / 0
    except Exception as exc:
        raise LookupError(f"level {n}") from exc

try:
    chained(80)
except LookupError:
    logging.getLogger("reddog.test").error("a deep fault", exc_info=True)
thread = threading.Thread(target=lambda: {}["missing"], name="loop-1")
thread.start()
thread.join()
raise RuntimeError("nobody caught this")
"""


def stderr_of_the_script() -> list[dict[str, Any]]:
    done = subprocess.run(  # noqa: S603 - this test's own script
        [sys.executable, "-c", SCRIPT], capture_output=True, cwd=ROOT, timeout=60, check=False
    )
    assert done.returncode == 1  # the uncaught exception still ends the process as Python would
    assert done.stdout == b""
    lines = done.stderr.splitlines(keepends=True)
    assert all(len(line) <= ATOMIC_BYTES for line in lines)
    records = [json.loads(line) for line in lines]
    assert all(isinstance(record, dict) for record in records)
    return records


def test_every_line_a_taken_over_process_writes_to_stderr_is_one_json_object_tracebacks_inside_a_field() -> None:
    said, stray, other, warned, pool, deep, thread, top = stderr_of_the_script()
    assert (said["event"], said["message"], said["port"], said["level"]) == (
        "serving",
        "a line for people",
        8000,
        "info",
    )
    assert [(r["event"], r["text"]) for r in (stray, other)] == [("stderr", "a stray line"), ("stderr", "and another")]
    assert (warned["logger"], warned["level"]) == ("py.warnings", "warning")
    assert "UserWarning: a deprecated thing" in warned["event"]
    assert (pool["logger"], pool["level"]) == ("asyncpg.pool", "warning")
    assert pool["event"] == "Failed to restore the pool connection floor; retrying"
    assert pool["exception"].startswith("Traceback (most recent call last):\n")
    assert pool["exception"].endswith("ValueError: the inner fault")
    # 82 chained tracebacks are far past one line: the start and the end are kept, the ones between left out.
    assert deep["exception"].startswith("Traceback (most recent call last):\n")
    assert "characters left out" in deep["exception"]
    assert deep["exception"].endswith("LookupError: level 80")
    assert (thread["level"], thread["event"]) == ("critical", "uncaught exception in thread loop-1")
    assert thread["exception"].endswith("KeyError: 'missing'")
    assert (top["level"], top["event"]) == ("critical", "uncaught exception")
    assert top["exception"].endswith("RuntimeError: nobody caught this")
    for record in (said, stray, warned, pool, top):
        assert record["timestamp"].endswith("Z")


def body_bytes(text: str) -> int:
    """The bytes of `text` inside a JSON string, as written to the line (UTF-8, escapes counted)."""
    return len(json.dumps(text, ensure_ascii=False).encode()) - 2


def test_a_text_that_fits_is_kept_whole_and_one_that_does_not_keeps_its_start_and_longer_end_within_the_room() -> None:
    text = "".join(f'  File "x.py", line {n}, in f\n' for n in range(400)) + "ValueError: \u00e9\u2028\x01"
    assert shortened(text, body_bytes(text)) == text  # exactly the room it needs
    short = shortened(text, 1000)
    assert body_bytes(short) <= 1000
    head, rest = short.split("\n[... ", 1)
    left_out, tail = rest.split(" characters left out ...]\n", 1)
    assert text.startswith(head)
    assert text.endswith(tail)
    assert int(left_out) == len(text) - len(head) - len(tail)
    assert len(tail) > len(head) > 0  # the end names the exception: it gets the larger share
