"""`verify` and `replay` of an export file on every core: tables are independent chains, so the file is cut at its
`table` lines into sections, a process pool checks the sections, and the results are merged in file order.

The merge gives the report a single process gives, line for line, or it is not used: every cross-table link a
single pass would follow (a table, round or shoe named in two sections, a rollback a single pass might have found
pruned) makes the caller run the single pass instead. A section never shares state with another, so what a worker
found in its section is what the single pass finds there.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import BinaryIO, TypeVar

from audit.collector import collector_paused
from audit.replay import Replayer, ReplaySection
from audit.signed_note import parse_verifier
from audit.verify_export import ExportVerifier, VerifySection

_TABLE = b'\n{"type":"table"'  # a table line's start: a raw newline is only ever a line's end
TASKS_PER_WORKER = 4  # tasks per worker: a long table does not leave the other workers idle
MIN_TASK_BYTES = 1 << 22  # smaller files are not worth a pool
SCAN_BYTES = 1 << 20  # read at a time while looking for the next table line
T = TypeVar("T")
Kept = list[tuple[str, int, str, str]]  # (table_id, size, note, source) of each kept checkpoint, in order


def workers(jobs: int) -> int:
    """`--jobs`: 0 (the default) means every core."""
    return jobs if jobs > 0 else multiprocessing.cpu_count()


def tasks(path: str, count: int, min_bytes: int | None = None) -> list[tuple[int, int]]:
    """The file cut at table lines into at most `count` byte ranges of about equal size (and at least `min_bytes`),
    in file order: each range ends at the first table line at least that size past its start, found by reading
    forward from there (a full scan of a large export cost more CPU than checking a section of it)."""
    size = Path(path).stat().st_size
    if size == 0:
        return []
    target = max(size // max(count, 1), MIN_TASK_BYTES if min_bytes is None else min_bytes)
    ranges, begin = [], 0
    with open(path, "rb") as stream:
        while True:
            start = _next_table(stream, begin + target)
            if start is None:
                break
            ranges.append((begin, start))
            begin = start
    ranges.append((begin, size))
    return ranges


def _next_table(stream: BinaryIO, at: int) -> int | None:
    """Where the first table line starting at or after byte `at` starts; None when there is none."""
    stream.seek(max(at - 1, 0))  # a table line is found by the newline before it
    offset, tail = max(at - 1, 0), b""
    while chunk := stream.read(SCAN_BYTES):
        data = tail + chunk
        found = data.find(_TABLE)
        if found >= 0:
            return offset - len(tail) + found + 1
        tail = data[-len(_TABLE) :]
        offset += len(chunk)
    return None


def range_lines(path: str, start: int, end: int) -> Iterator[bytes]:
    """The lines of bytes [start, end) of the file (which starts and ends at line boundaries), read as
    `read_raw_lines` reads a whole file."""
    with open(path, "rb") as stream:
        stream.seek(start)
        left = end - start
        for line in stream:
            yield line
            left -= len(line)
            if left <= 0:
                return


def _pooled(work: Callable[[tuple[int, int]], T], ranges: Sequence[tuple[int, int]], jobs: int) -> list[T]:
    # fork: a worker starts with the modules already imported, instead of paying the imports again
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    with context.Pool(min(jobs, len(ranges))) as pool:
        return pool.map(work, ranges, chunksize=1)


class _VerifyTask:
    def __init__(self, path: str, key: str | None, kept: Kept) -> None:
        self.path, self.key, self.kept = path, key, kept

    def __call__(self, span: tuple[int, int]) -> VerifySection:
        checker = ExportVerifier(None if self.key is None else parse_verifier(self.key))
        checker.kept = {}
        for table_id, size, note, source in self.kept:
            checker.kept.setdefault(table_id, []).append((size, note, source))
        checker.feed_bytes(range_lines(self.path, *span))
        return checker.section()


def verify_file(
    path: str, key: str | None, kept: Kept, jobs: int, min_bytes: int | None = None
) -> ExportVerifier | None:
    """The export verified by `jobs` processes, merged into one verifier whose report is the single pass's; None
    when the file is too small to share out or its tables are not each in one section (the caller then verifies
    it in one pass)."""
    if jobs < 2:
        return None
    ranges = tasks(path, jobs * TASKS_PER_WORKER, min_bytes)
    if len(ranges) < 2:
        return None
    sections = _pooled(_VerifyTask(path, key, kept), ranges, jobs)
    merged = ExportVerifier(None if key is None else parse_verifier(key))
    for table_id, size, note, source in kept:
        merged.keep(table_id, size, note, source)
    return merged if merged.merge(sections) else None


class _ReplayTask:
    def __init__(self, path: str) -> None:
        self.path = path

    def __call__(self, span: tuple[int, int]) -> ReplaySection:
        replayer = Replayer(track_keys=True)
        replayer.feed_bytes(range_lines(self.path, *span))
        return replayer.section()


def replay_file(path: str, jobs: int, min_bytes: int | None = None) -> Replayer | None:
    """The export replayed by `jobs` processes and merged, or None where one pass must do it (as `verify_file`)."""
    if jobs < 2:
        return None
    ranges = tasks(path, jobs * TASKS_PER_WORKER, min_bytes)
    if len(ranges) < 2:
        return None
    with collector_paused():
        sections = _pooled(_ReplayTask(path), ranges, jobs)
    merged = Replayer()
    return merged if merged.merge(sections) else None
