"""`/metrics` on its own port (RD_METRICS_HOST:RD_METRICS_PORT), never beside the public API.

`reddog serve` runs this server in its supervising process and every worker writes its metrics to files in
PROMETHEUS_MULTIPROC_DIR (prometheus-client's multiprocess mode), so a scrape adds up all workers, one or many.
(`commands.metrics_directory` sets it before anything imports prometheus-client, which picks its storage then.)
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable
from wsgiref.simple_server import WSGIServer

from prometheus_client import REGISTRY, CollectorRegistry, multiprocess, start_http_server
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
_LIVE_GAUGE_FILE = re.compile(r"gauge_live\w*?_(\d+)\.db$")


class LiveWorkers(Collector):
    """Every worker's files added up, after dropping the live gauges of workers that are gone (a crash, a restart):
    a dead worker's pool must not count as open connections forever. Counters of dead workers stay, as they must."""

    def __init__(self, directory: str) -> None:
        self.directory = directory
        self.merged = multiprocess.MultiProcessCollector(None, path=directory)  # type: ignore[no-untyped-call]

    def collect(self) -> Iterable[Metric]:
        for pid in dead_workers(self.directory):
            multiprocess.mark_process_dead(pid, self.directory)  # type: ignore[no-untyped-call]
        collected: Iterable[Metric] = self.merged.collect()  # type: ignore[no-untyped-call]
        return collected


def dead_workers(directory: str) -> set[int]:
    """The process ids that left live-gauge files behind and no longer run."""
    pids = {int(m.group(1)) for f in os.listdir(directory) if (m := _LIVE_GAUGE_FILE.search(f))}
    return {pid for pid in pids if not _running(pid)}


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, under another user
        return True
    return True


def registry() -> CollectorRegistry:
    """What a scrape shows: every worker's files in multiprocess mode, else this process's own metrics."""
    directory = os.environ.get(MULTIPROC_ENV)
    if not directory:
        return REGISTRY
    merged = CollectorRegistry(auto_describe=True)
    merged.register(LiveWorkers(directory))
    return merged


def start(host: str, port: int, scraped: CollectorRegistry | None = None) -> tuple[WSGIServer, threading.Thread]:
    """Serve the metrics from a daemon thread; port 0 picks a free one (`server.server_port`)."""
    return start_http_server(port, addr=host, registry=scraped or registry())


def worker_exits() -> None:
    """A worker shutting down drops its live gauges itself; the scrape-time check catches those that crash."""
    directory = os.environ.get(MULTIPROC_ENV)
    if directory:
        multiprocess.mark_process_dead(os.getpid(), directory)  # type: ignore[no-untyped-call]
