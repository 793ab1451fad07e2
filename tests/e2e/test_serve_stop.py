"""`make run` stopped by SIGTERM (to make, which passes it on, or to `reddog serve` itself) cleans up as Ctrl-C does:
the embedded PostgreSQL it started stops and its metrics directory goes."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from tests.support.served import served


def _postmaster(pg: Path) -> int | None:
    """The embedded server's postmaster pid, while it runs (the first line of its postmaster.pid)."""
    try:
        pid = int((pg / "postmaster.pid").read_text().split()[0])
    except (FileNotFoundError, IndexError, ValueError):
        return None
    return pid if _alive(pid) else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("workers", [1, 2])
def test_sigterm_stops_the_embedded_postgresql_and_removes_the_metrics_directory(tmp_path: Path, workers: int) -> None:
    # An empty DATABASE_URL is an unset one: `reddog serve` starts its own PostgreSQL under the data directory.
    with served("", tmp_path, workers=workers, wait_for="/health/live") as server:
        postmaster = _postmaster(tmp_path / "pg")
        assert postmaster is not None, "the embedded PostgreSQL is not running"
        metrics = tmp_path / "prometheus" / str(server.pid)
        assert metrics.is_dir()
    # served() has sent SIGTERM and waited for the server to exit; the PostgreSQL it started stops with it.
    deadline = time.monotonic() + 10
    while _alive(postmaster):
        if time.monotonic() > deadline:
            os.kill(postmaster, signal.SIGINT)  # PostgreSQL's fast shutdown: not left for the next run to find
            raise AssertionError("the embedded PostgreSQL was still running 10 s after the server stopped")
        time.sleep(0.05)
    assert not metrics.exists()
