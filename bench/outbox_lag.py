"""`make bench`'s outbox step: complete rounds under load with a notification URL set, so every settled round owes
a signed POST, to a real HTTP receiver that answers 200 at once. The delivery lag is read from the outbox rows
themselves (`delivered_at - created_at`, microseconds, every message), not from the histogram's buckets."""

from __future__ import annotations

import asyncio
import contextlib
import http.server
import secrets
import threading
import time
from collections.abc import Iterator
from typing import Any

import asyncpg
import msgspec

from bench import figures
from bench.service_process import free_port, serve, service_env

DRAIN_SECONDS = 60.0  # how long the step waits, after the load stops, for the last messages to be delivered


class OutboxFigures(msgspec.Struct, frozen=True, kw_only=True):
    rounds_per_s: float  # complete rounds under load while every one is notified
    rounds: int
    messages: int  # notifications written during the run (settled, voided... and checkpoints)
    delivered: int
    received: int  # POSTs the receiver answered (a retried message counts each time it arrives)
    pending_after_drain: int
    lag_p50_ms: float  # from writing the message (the change's transaction) to its delivery being acknowledged
    lag_p99_ms: float
    lag_max_ms: float
    tail_ms: float  # from the last message written to the last delivered: how far behind delivery ended the load
    cpu_ms_per_round: dict[str, float]


class _Receiver(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as an aggregator's endpoint would be, not a connection per POST
    received = 0
    lock = threading.Lock()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with _Receiver.lock:
            _Receiver.received += 1
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Server(http.server.ThreadingHTTPServer):
    # A listen backlog for a whole batch sent at once: http.server's default of 5 resets the rest (ReadError).
    request_queue_size = 128
    daemon_threads = True


@contextlib.contextmanager
def receiver() -> Iterator[str]:
    """An aggregator's notification endpoint on this machine: threads, 200 for every POST."""
    server = _Server(("127.0.0.1", free_port()), _Receiver)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/hooks/reddog"
    finally:
        server.shutdown()
        server.server_close()


async def measure_outbox(ctx: Any, url: str) -> OutboxFigures:
    """`ctx` is bench.harness's Context; `url` a fresh database's."""
    from bench import harness  # the harness imports this module

    options = ctx.options
    _Receiver.received = 0
    with receiver() as hook:
        env = service_env(url, free_port(), options.workers, ctx.operators, ctx.folder / "data-outbox")
        env.update(
            RD_NOTIFY_URLS=f"{harness.OPERATOR}={hook}", RD_NOTIFY_SECRETS=f"{harness.OPERATOR}:{secrets.token_hex(32)}"
        )
        port = int(env["RD_PORT"])
        async with serve([harness.reddog(), "serve"], env, port, ctx.folder, "service-outbox") as service:
            roots = {"service": service.pid, "postgres": ctx.server.postmaster_pid}
            config = ctx.generator_config(service.url, "rounds", options.clients)
            window, cpu, processes, _, wal = await harness.measured_window(ctx, config, roots, url)
            pending = await _until_drained(url, time.monotonic() + DRAIN_SECONDS)
        product = figures.round_figures(window, cpu, processes, wal)
        lag = await _lag(url)
    return OutboxFigures(
        rounds_per_s=product.rounds_per_s,
        rounds=product.rounds,
        messages=lag["messages"],
        delivered=lag["delivered"],
        received=_Receiver.received,
        pending_after_drain=pending,
        lag_p50_ms=lag["p50"],
        lag_p99_ms=lag["p99"],
        lag_max_ms=lag["max"],
        tail_ms=lag["tail"],
        cpu_ms_per_round=product.cpu_ms_per_round,
    )


async def _until_drained(url: str, deadline: float) -> int:
    conn = await asyncpg.connect(url)
    try:
        while True:
            pending = int(await conn.fetchval("SELECT count(*) FROM outbox WHERE status = 'pending'"))
            if pending == 0 or time.monotonic() > deadline:
                return pending
            await asyncio.sleep(0.1)
    finally:
        await conn.close()


async def _lag(url: str) -> dict[str, Any]:
    conn = await asyncpg.connect(url)
    try:
        row = await conn.fetchrow(
            "SELECT count(*) AS messages, count(delivered_at) AS delivered,"
            " percentile_cont(ARRAY[0.5, 0.99]) WITHIN GROUP (ORDER BY extract(epoch FROM delivered_at - created_at))"
            "   FILTER (WHERE delivered_at IS NOT NULL) AS q,"
            " max(extract(epoch FROM delivered_at - created_at)) AS worst,"
            " extract(epoch FROM max(delivered_at) - max(created_at)) AS tail"
            " FROM outbox"
        )
    finally:
        await conn.close()
    assert row is not None  # an aggregate without GROUP BY gives one row
    q = row["q"] or [0.0, 0.0]
    return {
        "messages": row["messages"],
        "delivered": row["delivered"],
        "p50": round(float(q[0]) * 1000, 1),
        "p99": round(float(q[1]) * 1000, 1),
        "max": round(float(row["worst"] or 0) * 1000, 1),
        "tail": round(float(row["tail"] or 0) * 1000, 1),
    }
