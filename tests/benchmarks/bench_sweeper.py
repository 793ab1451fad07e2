"""Does the raise-window sweeper keep up? Clients open rounds with 1 s windows against a real `reddog serve`, never
deciding, so the sweeper settles every spread round; we measure how late, from the database and from /metrics.

    .venv/bin/python -m tests.benchmarks.bench_sweeper --seconds 60 --clients 16

Uses a fresh database on DATABASE_URL's server (dropped afterwards), else an embedded PostgreSQL under .data/.
Targets (issue 9): p99 lag under 1.5 s and no round waiting past 2 s. Run by hand, not collected by pytest.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import msgspec
from prometheus_client.parser import text_string_to_metric_families

from tests.support.client import Signed
from tests.support.database import ROOT
from tests.support.scratch import scratch_database
from tests.support.served import OPERATOR, served

PAST = 2.0  # seconds: a round still waiting this long after its deadline counts against the target


class Load(msgspec.Struct, kw_only=True):
    opened: int = 0
    failed: int = 0
    latencies: list[float] = msgspec.field(default_factory=list)


class Backlog(msgspec.Struct, kw_only=True):
    samples: int = 0
    max_open: int = 0
    max_past: int = 0  # rounds still in their window 2 s or more after its deadline, at the worst sample


async def client(api: Signed, seconds: float, window: int, load: Load) -> None:
    table = await api.table(name="bench", raise_window_seconds=window, max_ante=100)
    path = f"/v1/tables/{table['table_id']}/rounds"
    stop = time.monotonic() + seconds
    while time.monotonic() < stop:
        started = time.perf_counter()
        response = await api.post(path, {"bets": [{"player_id": "p1", "ante": 10}]})
        load.latencies.append(time.perf_counter() - started)
        if response.status_code == 201:
            load.opened += 1
        else:
            load.failed += 1


async def watch(db: asyncpg.Connection, backlog: Backlog, done: asyncio.Event) -> None:
    """Sample the backlog from the database, as an operator would, every quarter second."""
    while not done.is_set():
        row = await db.fetchrow(
            "SELECT count(*) AS open, count(*) FILTER (WHERE window_closes_at <= now() - make_interval(secs => $1))"
            " AS past FROM rounds WHERE status = 'raise_window'",
            PAST,
        )
        assert row is not None
        backlog.samples += 1
        backlog.max_open = max(backlog.max_open, row["open"])
        backlog.max_past = max(backlog.max_past, row["past"])
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(done.wait(), 0.25)


async def drained(db: asyncpg.Connection) -> None:
    for _ in range(600):  # two minutes: the sweeper must have settled everything long before
        if not await db.fetchval("SELECT count(*) FROM rounds WHERE status = 'raise_window'"):
            return
        await asyncio.sleep(0.2)
    raise RuntimeError("rounds still in their raise window two minutes after the load stopped")


async def lags(db: asyncpg.Connection) -> list[float]:
    """Every windowed round's lag: the time it settled (the settling unit's clock) minus its deadline."""
    rows = await db.fetch(
        "SELECT extract(epoch FROM settled_at - window_closes_at)::float8 AS lag FROM rounds"
        " WHERE window_closes_at IS NOT NULL AND status = 'settled'"
    )
    return sorted(r["lag"] for r in rows)


def quantile(values: list[float], q: float) -> float:
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def scrape(metrics_url: str) -> dict[str, float]:
    text = httpx.get(metrics_url, timeout=10).text
    found: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name.startswith("reddog_sweeper_lag_seconds_bucket"):
                found[f"le={sample.labels['le']}"] = sample.value
            elif sample.name in ("reddog_sweeper_settled_total", "reddog_sweeper_lag_seconds_count"):
                found[sample.name] = sample.value
    return found


@contextlib.contextmanager
def embedded_server() -> Iterator[str]:
    from service.runtime import embedded

    url, server = embedded.start(ROOT / ".data" / "bench-pg")
    try:
        yield url
    finally:
        del server


@contextlib.asynccontextmanager
async def database() -> AsyncIterator[str]:
    with contextlib.ExitStack() as stack:
        server = os.environ.get("DATABASE_URL") or stack.enter_context(embedded_server())
        async with scratch_database(server) as url:
            yield url


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    async with database() as url:
        data = Path(tempfile.mkdtemp(prefix="bench-sweeper-"))
        env = {"RD_POOL_MAX_SIZE": str(args.pool)} if args.pool else {}
        with served(url, data, workers=args.workers, env=env) as server:
            db, watching = await asyncpg.connect(url), await asyncpg.connect(url)
            load, backlog, done = Load(), Backlog(), asyncio.Event()
            watcher = asyncio.create_task(watch(watching, backlog, done))
            limits = httpx.Limits(max_connections=args.clients)
            async with httpx.AsyncClient(base_url=server.api_url, limits=limits, timeout=60) as http:
                api = Signed(http, *OPERATOR)
                started = time.monotonic()
                await asyncio.gather(*(client(api, args.seconds, args.window, load) for _ in range(args.clients)))
                elapsed = time.monotonic() - started
            await drained(db)
            done.set()
            await watcher
            lag = await lags(db)
            await db.close()
            await watching.close()
            metrics = scrape(server.metrics_url)
    return {
        "clients": args.clients,
        "workers": args.workers,
        "seconds": round(elapsed, 1),
        "rounds_opened": load.opened,
        "opened_per_second": round(load.opened / elapsed, 1),
        "failed_requests": load.failed,
        "open_round_p50_ms": round(1000 * statistics.median(load.latencies), 1),
        "open_round_p99_ms": round(1000 * quantile(sorted(load.latencies), 0.99), 1),
        "windowed_rounds_settled": len(lag),
        "lag_p50_s": round(quantile(lag, 0.5), 3),
        "lag_p99_s": round(quantile(lag, 0.99), 3),
        "lag_max_s": round(lag[-1], 3) if lag else None,
        "rounds_settled_more_than_2s_late": sum(1 for x in lag if x > PAST),
        "max_open_windows_sampled": backlog.max_open,
        "max_waiting_past_2s_sampled": backlog.max_past,
        "backlog_samples": backlog.samples,
        "metrics": metrics,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--window", type=int, default=1, help="raise window, seconds")
    parser.add_argument("--workers", type=int, default=1, help="RD_WORKERS")
    parser.add_argument("--pool", type=int, default=0, help="RD_POOL_MAX_SIZE (default: the service's)")
    result = asyncio.run(bench(parser.parse_args()))
    print(msgspec.json.format(msgspec.json.encode(result)).decode())


if __name__ == "__main__":
    main()
