"""Two workers, each on its own SO_REUSEPORT socket: stopping, the supervisor lets go of the sockets before its
workers drain, so new connections end refused rather than queued and reset; no worker outlives its supervisor,
however it dies."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import time
from pathlib import Path

import pytest

from tests.support.served import served


def _children(pid: int) -> set[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return {int(child) for child in path.read_text().split()} if path.exists() else set()


def _workers(supervisor: int) -> set[int]:
    """The supervisor's children that serve (multiprocessing's resource tracker is a child too, and serves nothing)."""
    return {pid for pid in _children(supervisor) if b"resource_tracker" not in _cmdline(pid)}


def _cmdline(pid: int) -> bytes:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    return b""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and b"State:\tZ" not in Path(f"/proc/{pid}/status").read_bytes()


def _ask(port: int) -> str:
    """One request on a new connection: 'refused', 'answered', or 'reset' (accepted, then dropped unanswered)."""
    try:
        conn = socket.create_connection(("127.0.0.1", port), timeout=5)
    except ConnectionRefusedError:
        return "refused"
    with conn:
        try:
            conn.sendall(b"GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            reply = conn.recv(65536)
        except (ConnectionResetError, TimeoutError):
            return "reset"
        return "answered" if reply.startswith(b"HTTP/1.1 ") else "reset"


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads the process tree from Linux's /proc")
def test_a_supervisor_killed_with_sigkill_takes_its_workers_with_it(served_database: str, tmp_path: Path) -> None:
    with served(served_database, tmp_path, workers=2) as server:
        workers = _workers(server.pid)
        assert len(workers) == 2, workers
        os.kill(server.pid, signal.SIGKILL)
        deadline = time.monotonic() + 20
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not [pid for pid in workers if _alive(pid)], "a worker outlived its supervisor"


def _listening_sockets_held(pid: int, port: int) -> set[int]:
    """The inodes of the TCP sockets listening on `port` that process `pid` holds open."""
    listening = set()
    for table in (Path("/proc/net/tcp"), Path("/proc/net/tcp6")):
        with contextlib.suppress(OSError):
            for line in table.read_text().splitlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:  # 0A: LISTEN
                    listening.add(int(fields[9]))
    held = set()
    with contextlib.suppress(OSError):
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                target = os.readlink(fd)
                if target.startswith("socket:[") and int(target[8:-1]) in listening:
                    held.add(int(target[8:-1]))
    return held


@pytest.mark.skipif(
    not Path("/proc/net/tcp").exists() or not Path("/proc/self/task").exists(),
    reason="reads sockets and the process tree from Linux's /proc",
)
def test_once_stopping_the_supervisor_lets_go_of_the_sockets_while_its_workers_drain_and_new_connections_are_refused(
    served_database: str, tmp_path: Path
) -> None:
    """A socket the supervisor still held after its workers stopped accepting would queue new connections and reset
    them at exit. (A connection reaching a worker's queue in the very instant that worker closes its socket is reset
    by the kernel all the same: that race, not this one, is why the test watches the sockets, not the answers.)"""
    with served(served_database, tmp_path, workers=2) as server:
        port = int(server.api_url.rsplit(":", 1)[1])
        assert _ask(port) == "answered"
        workers = _workers(server.pid)
        assert len(workers) == 2, workers
        assert len(_listening_sockets_held(server.pid, port)) == 2  # one per worker, so a restart can take it over
        os.kill(server.pid, signal.SIGTERM)
        let_go_while_draining = False
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not let_go_while_draining:
            held = _listening_sockets_held(server.pid, port)
            let_go_while_draining = not held and any(_alive(pid) for pid in workers)
            if not any(_alive(pid) for pid in workers):
                break
            time.sleep(0.002)
        assert let_go_while_draining
        seen: list[str] = []
        while time.monotonic() < deadline and (not seen or seen[-1] != "refused"):
            seen.append(_ask(port))
            time.sleep(0.02)
    assert seen[-1] == "refused", seen
