"""The metrics port adds up every worker's files, and forgets the live gauges of workers that are gone."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import httpx

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
