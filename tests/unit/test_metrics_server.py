"""The metrics port adds up every worker's files, forgets the live gauges of workers that are gone, and shows each
live worker's process figures."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import pytest

from service.runtime import metrics_server

ROOT = Path(__file__).resolve().parents[2]
WORKER = textwrap.dedent(
    """
    import sys
    from service.observability import metrics
    metrics.observe_pool(size=int(sys.argv[1]), waiters=1)
    metrics.SWEPT.inc()
    print("ready", flush=True)
    sys.stdin.readline()  # a live worker: runs until the test lets it go
    """
)


def worker(directory: Path, pool_size: int) -> subprocess.Popen[str]:
    env = {"PROMETHEUS_MULTIPROC_DIR": str(directory), "PATH": "/usr/bin:/bin"}
    args = [sys.executable, "-c", WORKER, str(pool_size)]
    process = subprocess.Popen(args, env=env, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # noqa: S603 - our own interpreter
    assert process.stdout is not None
    assert process.stdout.readline() == "ready\n"
    return process


def finish(process: subprocess.Popen[str]) -> None:
    if process.returncode is None:
        process.communicate("\n", timeout=30)  # closes the pipes too
    assert process.returncode == 0


def test_a_scrape_adds_up_the_workers_and_drops_the_pool_of_one_that_exited(tmp_path: Path) -> None:
    running, exited = worker(tmp_path, 4), worker(tmp_path, 6)
    try:
        collector = metrics_server.LiveWorkers(str(tmp_path))
        before = {s.name: s.value for m in collector.collect() for s in m.samples}
        assert (before["reddog_db_pool_size"], before["reddog_db_pool_waiters"]) == (10, 2)
        finish(exited)  # as a crash would: it never marked itself dead
        assert metrics_server.dead_workers(str(tmp_path)) == {exited.pid}
        after = {s.name: s.value for m in collector.collect() for s in m.samples}
        assert (after["reddog_db_pool_size"], after["reddog_db_pool_waiters"]) == (4, 1)
        assert after["reddog_sweeper_settled_total"] == 2  # a counter keeps what a gone worker counted
        assert metrics_server.dead_workers(str(tmp_path)) == set()
    finally:
        finish(running)


def test_the_metrics_server_serves_the_registry_it_is_given_on_its_own_port(tmp_path: Path) -> None:
    running = worker(tmp_path, 3)
    try:
        from prometheus_client import CollectorRegistry

        registry = CollectorRegistry()
        registry.register(metrics_server.LiveWorkers(str(tmp_path)))
        server, _ = metrics_server.start("127.0.0.1", 0, registry)
        try:
            text = httpx.get(f"http://127.0.0.1:{server.server_port}/metrics", timeout=10).text
        finally:
            server.shutdown()
            server.server_close()
        assert "reddog_db_pool_size 3.0" in text
    finally:
        finish(running)


def _process_samples(collector: metrics_server.WorkerProcesses) -> dict[tuple[str, str, str], float]:
    return {(s.name, s.labels["pid"], s.labels["role"]): s.value for m in collector.collect() for s in m.samples}


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="process figures are read from Linux's /proc")
def test_each_live_worker_shows_its_own_cpu_memory_and_start_time_and_a_gone_one_shows_none(tmp_path: Path) -> None:
    first, second = worker(tmp_path, 1), worker(tmp_path, 1)
    collector = metrics_server.WorkerProcesses(str(tmp_path))
    try:
        samples = _process_samples(collector)
        pids = {str(os.getpid()): "main", str(first.pid): "worker", str(second.pid): "worker"}
        for name in ("process_cpu_seconds_total", "process_resident_memory_bytes", "process_start_time_seconds"):
            assert {(pid, role) for n, pid, role in samples if n == name} == set(pids.items()), name
        # A Python interpreter holds megabytes; each worker started after this test did, and within the last minute.
        assert samples["process_resident_memory_bytes", str(first.pid), "worker"] > 1_000_000
        started = samples["process_start_time_seconds", str(first.pid), "worker"]
        assert samples["process_start_time_seconds", str(os.getpid()), "main"] <= started <= time.time() + 1
        assert started > time.time() - 60
        finish(first)
        assert {pid for _, pid, _ in _process_samples(collector)} == {str(os.getpid()), str(second.pid)}
    finally:
        finish(second)


def test_a_pid_that_runs_but_is_no_worker_of_this_process_is_a_dead_worker_s(tmp_path: Path) -> None:
    # pid 1 always runs, and is never this process's child: a dead worker's pid reused by another process.
    (tmp_path / "gauge_livemin_1.db").touch()
    assert metrics_server.dead_workers(str(tmp_path)) == {1}
