"""`python -m bench.friends_push` (in `make bench`, and `make bench-push` alone): the friends' tables' live updates.

`reddog serve` with two workers holds C phones' Server-Sent Events streams across C / S tables of S seats
(bench/friends_generator.mjs, Node + undici), while the tables' seats move at a steady rate; a move's latency runs
from its reply reaching the mover to its hint reaching every other phone of its table, through PostgreSQL
LISTEN/NOTIFY (or Redis). Memory per connection is the service's RSS (supervisor and workers) after the streams
connected minus before, over the streams. Several client counts (`--clients 1000,2000,3000`) show where it breaks.
Then the cost of one publish: Litestar's own asyncpg backend (a connection per message) against ours (one kept).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import secrets
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import msgspec

from bench import cpu_accounting, database_server, machine
from bench.database_server import ROOT
from bench.latency import summarise
from bench.load_generator import NodeProcess
from bench.service_process import free_port, serve, service_env

LIMITS = ("TABLES_PER_HOUR", "JOINS_PER_MINUTE", "CODE_JOINS_PER_MINUTE", "MISSES_PER_MINUTE")
RESULTS = ROOT / "bench" / "results" / "push"
EVENT_SECONDS = 600  # the longest the generator may take to set up tables or connect streams


class Options(msgspec.Struct, frozen=True, kw_only=True):
    clients: tuple[int, ...] = (2000,)
    seats: int = 4
    rate: float = 50.0  # moves a second, all tables together
    seconds: float = 30.0
    warmup: float = 5.0
    workers: int = 2
    push: str = "postgres"
    fetch_on_hint: bool = True  # each phone reads the state after a hint, as the page does
    connect_rate: float = 400.0  # streams opened a second
    publishes: int = 300  # for the publish cost
    late_ms: int = 5000  # a hint later than this counts as lost


def _env(database_url: str, folder: Path, options: Options, clients: int) -> tuple[dict[str, str], int]:
    port = free_port()
    env = service_env(database_url, port, options.workers, f"bench:{secrets.token_hex(16)}", folder / "data")
    env.update({f"RD_FRIENDS_{name}": "100000" for name in LIMITS})  # one generator is one address
    env.update(
        RD_FRIENDS="true",
        RD_FRIENDS_PUSH=options.push,
        RD_FRIENDS_STREAM_SECONDS="86400",  # no stream ends inside the window
        RD_MAX_CONNECTIONS=str(max(2048, clients + 512)),  # per worker: the kernel's share may be uneven
    )
    return env, port


def rss_kb(root: int) -> dict[int, int]:
    """VmRSS of the process and every process below it."""
    found: dict[int, int] = {}
    for pid in cpu_accounting.descendants(cpu_accounting.snapshot().processes, root):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except FileNotFoundError:
            continue
        line = next((row for row in status.splitlines() if row.startswith("VmRSS:")), None)
        found[pid] = int(line.split()[1]) if line else 0
    return found


class Phones(NodeProcess):
    """The push generator (bench/friends_generator.mjs): phones holding streams, moves at a rate."""

    script, line_limit, event_seconds, finish_seconds = "friends_generator.mjs", 256 * 1024 * 1024, EVENT_SECONDS, 30

    @classmethod
    async def start(cls, config: dict[str, Any]) -> Phones:
        return await cls.launch(config)


def step(text: str) -> None:
    print(f"bench.friends_push: {text}", file=sys.stderr, flush=True)


async def measure(server: database_server.Server, url: str, folder: Path, options: Options, clients: int) -> Any:
    env, port = _env(url, folder, options, clients)
    async with serve([str(Path(sys.executable).with_name("reddog")), "serve"], env, port, folder, f"s{clients}") as s:
        config = {
            "url": s.url,
            "clients": clients,
            "seats": options.seats,
            "rate": options.rate,
            "fetchOnHint": options.fetch_on_hint,
            "connectRate": options.connect_rate,
            "lateMs": options.late_ms,
        }
        phones = await Phones.start(config)
        try:
            tables = (await phones.event("tables"))["tables"]
            before = rss_kb(s.pid)
            connected = await phones.event("connected")
            await asyncio.sleep(1.0)
            after = rss_kb(s.pid)
            step(f"{connected['clients']} streams in {connected['seconds']:.1f} s; moving at {options.rate}/s")
            await phones.send("go")
            await asyncio.sleep(options.warmup)
            first = cpu_accounting.snapshot()
            await phones.send("start")
            await asyncio.sleep(options.seconds)
            await phones.send("stop")
            last = cpu_accounting.snapshot()
            window = await phones.event("window")
        finally:
            await phones.finish()
    roots = {"service": s.pid, "postgres": server.postmaster_pid, "generator": phones.pid}
    cpu = cpu_accounting.account(first, last, roots, os.cpu_count() or 1)
    return figures(clients, tables, connected, before, after, window, cpu)


def _mb(rss: dict[int, int]) -> float:
    return round(sum(rss.values()) / 1024, 1)


def figures(
    clients: int,
    tables: int,
    connected: dict[str, Any],
    before: dict[int, int],
    after: dict[int, int],
    window: dict[str, Any],
    cpu: cpu_accounting.WindowCpu,
) -> dict[str, Any]:
    moves = window["moves"]
    grown = sum(after.values()) - sum(before.values())
    return {
        "clients": connected["clients"],
        "asked_clients": clients,
        "tables": tables,
        "connect_seconds": round(connected["seconds"], 2),
        "service_rss_mb": {"before": _mb(before), "after": _mb(after)},
        "service_rss_per_process_mb": [round(kb / 1024, 1) for _, kb in sorted(after.items())],
        "kb_per_connection": round(grown / max(connected["clients"], 1), 1),
        "seconds": round(window["seconds"], 2),
        "moves": moves,
        "moves_per_s": round(moves / window["seconds"], 1),
        "reply": msgspec.to_builtins(summarise(window["reply_us"])),
        "delivery": msgspec.to_builtins(summarise(window["delivery_us"])),
        "all_of_table": msgspec.to_builtins(summarise(window["all_us"])),
        "fetch": msgspec.to_builtins(summarise(window["fetch_us"])),
        "hint_before_reply": window["early"],
        "late_or_lost": window["late"],
        "errors": window["errors"],
        "reconnects": window["reconnects"],
        "stream_errors": window["streamErrors"],
        "cpu_ms_per_move": {k: round(v / max(moves, 1), 2) for k, v in cpu.ms.items()},
        "other_load": round(cpu.other_load, 3),
    }


async def publish_cost(url: str, framework_count: int) -> dict[str, Any]:
    """Wall time and CPU (ours, PostgreSQL's) per publish, one message after another as the plugin's task sends them:
    the framework's backend against the kept connection (ten times as many: CPU is counted in 10 ms ticks)."""
    from litestar.channels.backends.asyncpg import AsyncPgChannelsBackend

    from service.runtime.friends_channels import LongLivedPublisherBackend

    async def connect() -> asyncpg.Connection:
        return await asyncpg.connect(url)

    conn = await asyncpg.connect(url)
    try:
        postmaster = cpu_accounting.parent_of(await conn.fetchval("SELECT pg_backend_pid()"))
    finally:
        await conn.close()
    data = b'{"code":"ABCDEFGH","game_version":41,"status":"playing","version":7}'
    found: dict[str, Any] = {}
    for name, backend, count in (
        ("framework", AsyncPgChannelsBackend(make_connection=connect), framework_count),
        ("kept_connection", LongLivedPublisherBackend(make_connection=connect), 10 * framework_count),
    ):
        await backend.on_startup()
        try:
            await backend.publish(data, ["friends_bench"])  # the kept one's connection opens here, not in the count
            first, cpu0, t0 = cpu_accounting.snapshot(), time.process_time(), time.perf_counter()
            for _ in range(count):
                await backend.publish(data, ["friends_bench"])
            wall, own, last = time.perf_counter() - t0, time.process_time() - cpu0, cpu_accounting.snapshot()
        finally:
            await backend.on_shutdown()
        pg = cpu_accounting.ms(cpu_accounting.tree_delta(first, last, postmaster)) if postmaster else None
        found[name] = {
            "wall_ms": round(wall * 1000 / count, 3),
            "client_cpu_ms": round(own * 1000 / count, 3),
            "postgres_cpu_ms": None if pg is None else round(pg / count, 3),
            "most_per_s": round(count / wall),
            "publishes": count,
        }
    return found


async def run(options: Options, keep: bool) -> dict[str, Any]:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the server and generator inherit it: a socket a phone
    levels = []
    with database_server.server_url() as (url, embedded), tempfile.TemporaryDirectory(prefix="reddog-push-") as tmp:
        server = await database_server.describe(url, embedded)
        async with database_server.fresh_database(server, "push", keep=keep) as push_url:
            step("the cost of one publish: the framework's backend, then the kept connection")
            publishing = await publish_cost(push_url, options.publishes)
            for clients in options.clients:
                step(f"{clients} phones over {options.workers} workers, {options.seats} seats a table")
                folder = Path(tmp) / f"c{clients}"
                folder.mkdir()
                levels.append(await measure(server, push_url, folder, options, clients))
                print(json.dumps(levels[-1], indent=2), flush=True)
    return {"file_limit": [soft, hard], "publish": publishing, "levels": levels}


def row(record: dict[str, Any], level: dict[str, Any]) -> str:
    o, d, a = record["options"], level["delivery"], level["all_of_table"]
    cpu = level["cpu_ms_per_move"]
    cells = [
        record["date"],
        f"`{record['git_rev']}`",
        f"{record['machine']['cores']} cores {record['machine']['cpu_model']}",
        str(o["workers"]),
        o["push"],
        f"{level['clients']:,}",
        str(level["tables"]),
        f"{level['moves_per_s']:g}",
        f"{d['p50_ms']:.1f} / {d['p99_ms']:.1f}",
        f"**{a['p99_ms']:.1f}**",
        f"{level['late_or_lost']}",
        f"{sum(level['errors'].values())}",
        f"{level['kb_per_connection']:.0f}",
        f"{cpu.get('service', 0):.1f} / {cpu.get('postgres', 0):.1f}",
        f"{level['other_load']:.0%}",
        "yes" if o["fetch_on_hint"] else "no",
    ]
    return "| " + " | ".join(cells) + " |"


HEADER = (
    "| date | rev | machine | workers | push | clients | tables | moves/s | delivery p50 / p99 ms | every phone p99 ms "
    "| late | errors | KB / connection | CPU ms/move service / PG | other load | phones read state |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
)
START, END = "<!-- bench:push:start -->", "<!-- bench:push:end -->"


def record_run(record: dict[str, Any]) -> None:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{record['date']}-{record['git_rev']}.json"
    runs = json.loads(path.read_text())["runs"] if path.exists() else []
    path.write_text(json.dumps({"runs": [*runs, record]}, indent=2, sort_keys=True) + "\n")
    rows = [
        row(r, level)
        for p in sorted(RESULTS.glob("*.json"))
        for r in json.loads(p.read_text())["runs"]
        for level in r["levels"]
    ]
    docs = ROOT / "docs" / "benchmarks.md"
    text = docs.read_text()
    if START in text:
        head, rest = text.split(START, 1)
        text = head + START + "\n" + HEADER + "\n" + "\n".join(rows) + "\n" + END + rest.split(END, 1)[1]
        docs.write_text(text)
    step(f"wrote {path.relative_to(ROOT)} and the push table in docs/benchmarks.md")


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.friends_push", description=__doc__)
    p.add_argument("--clients", default=os.environ.get("PUSH_CLIENTS") or "2000", help="phones; a list: 1000,2000")
    p.add_argument("--seats", type=int, default=4)
    p.add_argument("--rate", type=float, default=float(os.environ.get("PUSH_RATE") or 50))
    p.add_argument("--seconds", type=float, default=float(os.environ.get("BENCH_SECONDS") or 30))
    p.add_argument("--warmup", type=float, default=float(os.environ.get("BENCH_WARMUP") or 5))
    p.add_argument("--workers", type=int, default=int(os.environ.get("RD_WORKERS") or 2))
    p.add_argument("--push", choices=("postgres", "redis"), default="postgres")
    p.add_argument("--no-fetch", action="store_true", help="phones do not read the state after a hint")
    p.add_argument("--publishes", type=int, default=300)
    p.add_argument("--no-record", action="store_true")
    p.add_argument("--keep", action="store_true", help="keep the database")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    options = Options(
        clients=tuple(int(c) for c in args.clients.split(",")),
        seats=args.seats,
        rate=args.rate,
        seconds=args.seconds,
        warmup=args.warmup,
        workers=args.workers,
        push=args.push,
        fetch_on_hint=not args.no_fetch,
        publishes=args.publishes,
    )
    started, rev = datetime.now(UTC), machine.git_rev(ROOT)  # the revision measured, not one checked out meanwhile
    result = asyncio.run(run(options, args.keep))
    record = {
        "date": started.date().isoformat(),
        "started_at": started.isoformat(timespec="seconds"),
        "git_rev": rev,
        "machine": machine.describe(),
        "options": msgspec.to_builtins(options),
        **result,
    }
    print(json.dumps({"publish": record["publish"]}, indent=2))
    if not args.no_record:
        record_run(record)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
