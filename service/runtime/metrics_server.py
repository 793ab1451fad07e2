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
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
_LIVE_GAUGE_FILE = re.compile(r"gauge_live\w*?_(\d+)\.db$")
_FILE = re.compile(r"_(\d+)\.db$")


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
    """The process ids that left live-gauge files behind and no longer run as this process or a child of it."""
    pids = {int(m.group(1)) for f in os.listdir(directory) if (m := _LIVE_GAUGE_FILE.search(f))}
    return {pid for pid in pids if not _ours(pid)}


class WorkerProcesses(Collector):
    """prometheus-client's process figures (CPU seconds, resident memory, start time, file descriptors) of this
    process and of each live worker, labelled by pid and role: in multiprocess mode the default process collector
    sees only the process serving the scrape, and a worker's figures cannot be added up with another's."""

    def __init__(self, directory: str) -> None:
        self.directory = directory

    def collect(self) -> Iterable[Metric]:
        merged: dict[str, Metric] = {}
        for pid, role in processes(self.directory):
            for family in ProcessCollector(pid=lambda pid=pid: pid, registry=None).collect():  # type: ignore[misc]
                into = merged.setdefault(family.name, Metric(family.name, family.documentation, family.type))
                for sample in family.samples:
                    into.add_sample(sample.name, {"pid": str(pid), "role": role}, sample.value)
        return list(merged.values())


def processes(directory: str) -> list[tuple[int, str]]:
    """This process ("main": the supervisor, or the one process serving requests with RD_WORKERS=1) and every
    running child that writes metrics ("worker"). A worker that is gone is simply not listed: its figures go with it."""
    own = os.getpid()
    pids = {int(m.group(1)) for f in os.listdir(directory) if (m := _FILE.search(f))} - {own}
    return [(own, "main"), *((pid, "worker") for pid in sorted(pids) if _ours(pid))]


def _ours(pid: int) -> bool:
    """Running as this process or a child of it: a dead worker's pid taken by some other process is not a worker."""
    if pid == os.getpid():
        return True
    if not os.path.exists("/proc/self/stat"):  # no /proc to ask (not Linux): whether it runs at all
        return _running(pid)
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            state, parent = stat.read().rsplit(b")", 1)[1].split()[:2]
    except (OSError, ValueError):
        return False
    return state != b"Z" and int(parent) == os.getpid()  # a zombie has exited: only its parent has not reaped it


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
    merged.register(WorkerProcesses(directory))
    return merged


def start(host: str, port: int, scraped: CollectorRegistry | None = None) -> tuple[WSGIServer, threading.Thread]:
    """Serve the metrics from a daemon thread; port 0 picks a free one (`server.server_port`)."""
    return start_http_server(port, addr=host, registry=scraped or registry())


def worker_exits() -> None:
    """A worker shutting down drops its live gauges itself; the scrape-time check catches those that crash."""
    _drop_own_live_gauges()


def supervisor_starts() -> None:
    """A supervisor serves no request, but importing the metrics made its live gauges at 0 (an unlabelled metric's
    value exists from its creation): dropped, they cannot pull a `livemin` (database reachable) down to 0."""
    _drop_own_live_gauges()


def _drop_own_live_gauges() -> None:
    directory = os.environ.get(MULTIPROC_ENV)
    if directory:
        multiprocess.mark_process_dead(os.getpid(), directory)  # type: ignore[no-untyped-call]
