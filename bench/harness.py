"""One `make bench` run: capture real rounds' SQL, load the service, its HTTP floor and its database ceiling."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from uuid import UUID

import asyncpg
import msgspec

from bench import cli_timings, cpu_accounting, database_ceiling, database_server, figures, outbox_lag, seed_rounds
from bench.database_server import ROOT, Server
from bench.latency import summarise
from bench.load_generator import Generator, Window
from bench.pgbench_script import SEQ_BASE
from bench.service_process import Service, free_port, serve, service_env
from bench.statement_capture import CapturedRound, match_rounds, read_records, transactions

OPERATOR = "bench"
CAPTURE_WARMUP_ROUNDS = 3  # the service's first requests on a connection prepare statements; leave them out


class Options(msgspec.Struct, frozen=True, kw_only=True):
    seconds: float = 30.0
    warmup: float = 5.0
    clients: int = 32
    workers: int = 1
    capture_rounds: int = 40
    ceiling_connections: int | None = None  # None: as many as clients
    seed_rounds: int = 0  # measure again once the database holds this many rounds (0: skip)


class Run(msgspec.Struct, frozen=True, kw_only=True):
    product: figures.RoundFigures
    http: figures.HttpFigures
    ceiling: figures.CeilingFigures | None
    ratios: dict[str, float]
    seeded: dict[str, Any] | None
    outbox: outbox_lag.OutboxFigures | None  # the rounds again, each notified to a receiver: the delivery lag
    cli: list[cli_timings.Timing]
    server: dict[str, Any]


class Context(msgspec.Struct, frozen=True, kw_only=True):
    options: Options
    server: Server
    secret: str
    folder: Path

    @property
    def operators(self) -> str:
        return f"{OPERATOR}:{self.secret}"

    def generator_config(self, url: str, mode: str, clients: int, **extra: Any) -> dict[str, Any]:
        return {"url": url, "operator": OPERATOR, "secret": self.secret, "mode": mode, "clients": clients, **extra}


def reddog() -> str:
    return str(Path(sys.executable).with_name("reddog"))


async def run(options: Options, *, cli: bool = True, keep: bool = False) -> Run:
    with database_server.server_url() as (url, embedded), _folder(keep) as tmp:
        server = await database_server.describe(url, embedded)
        ctx = Context(options=options, server=server, secret=secrets.token_hex(16), folder=Path(tmp))
        if server.postmaster_pid is None:
            print("bench: PostgreSQL is not on this machine: its CPU is not measured", file=sys.stderr)
        async with (
            database_server.fresh_database(server, "product", keep=keep) as product_url,
            database_server.fresh_database(server, "replay", keep=keep) as replay_url,
        ):
            step("capturing the statements of real rounds")
            captured, capture_table = await capture(ctx, replay_url)
            async with serve_product(ctx, product_url, "service") as service:
                step(f"complete rounds: {options.clients} clients, {options.workers} worker(s)")
                product = await measure_rounds(ctx, service, product_url)
                step("the HTTP floor: GET /health/live")
                http = await measure_http(ctx, service, product_url)
            async with database_server.fresh_database(server, "outbox", keep=keep) as outbox_url:
                step("complete rounds again, each notified to a receiver: the outbox's delivery lag")
                outbox = await outbox_lag.measure_outbox(ctx, outbox_url)
            step("the database ceiling: the captured statements through pgbench")
            share = product.mix["settled_at_open"] / max(product.rounds, 1)
            ceiling = await measure_ceiling(ctx, replay_url, captured, capture_table, share)
            timings = await time_cli(product_url) if cli else []
            seeded = await measure_seeded(ctx, product_url) if options.seed_rounds else None
    return Run(
        product=product,
        http=http,
        ceiling=ceiling,
        ratios=dict(figures.ratios(product, http, ceiling)),
        seeded=seeded,
        outbox=outbox,
        cli=timings,
        server={
            "version": server.version,
            "embedded": server.embedded,
            "on_this_machine": server.postmaster_pid is not None,
        },
    )


@contextlib.contextmanager
def _folder(keep: bool) -> Iterator[str]:
    """Scratch space for logs, captured statements and pgbench scripts; kept for inspection when asked."""
    if keep:
        folder = tempfile.mkdtemp(prefix="reddog-bench-")
        print(f"bench: keeping logs, statements and pgbench scripts in {folder}", file=sys.stderr)
        yield folder
        return
    with tempfile.TemporaryDirectory(prefix="reddog-bench-") as folder:
        yield folder


def step(text: str) -> None:
    print(f"bench: {text}", file=sys.stderr, flush=True)


def serve_product(ctx: Context, database_url: str, name: str, command: str | None = None) -> Any:
    """`reddog serve` as production runs it; `command` another revision's `reddog` (bench.compare)."""
    port = free_port()
    env = service_env(database_url, port, ctx.options.workers, ctx.operators, ctx.folder / "data")
    return serve([command or reddog(), "serve"], env, port, ctx.folder, name)


async def capture(ctx: Context, replay_url: str) -> tuple[list[CapturedRound], UUID]:
    """Play rounds one at a time through `reddog serve` with a query logger on its connections."""
    statements = ctx.folder / "statements.pickle"
    port = free_port()
    env = service_env(replay_url, port, 1, ctx.operators, ctx.folder / "capture-data")
    command = [sys.executable, "-m", "bench.capture_serve", str(statements)]
    async with serve(command, env, port, ctx.folder, "capture", cwd=ROOT) as service:
        config = ctx.generator_config(
            service.url, "capture", 1, rounds=ctx.options.capture_rounds, warmup_rounds=CAPTURE_WARMUP_ROUNDS
        )
        generator = await Generator.start(config)
        table = UUID((await generator.event("table"))["table_id"])
        conn = await asyncpg.connect(replay_url)
        try:  # seq numbers this large are told apart from any other integer the service sends
            # The head's Merkle tree head must hold popcount(seq) hashes; a stand-in one will do for a benchmark.
            await conn.execute(
                "UPDATE game_tables SET audit_seq = $2, audit_tree = $3 WHERE table_id = $1",
                table,
                SEQ_BASE,
                bytes(32) * SEQ_BASE.bit_count(),
            )
        finally:
            await conn.close()
        await generator.send("go")
        played = (await generator.event("captured"))["rounds"]
        await generator.finish()
    rounds = [(UUID(r["round_id"]), tuple(r["keys"])) for r in played]
    if len(rounds) < ctx.options.capture_rounds:
        raise RuntimeError(f"the capture played {len(rounds)} of {ctx.options.capture_rounds} rounds")
    return match_rounds(transactions(read_records(statements)), rounds, SEQ_BASE), table


async def measured_window(
    ctx: Context, config: dict[str, Any], roots: dict[str, int | None], database_url: str
) -> tuple[Window, cpu_accounting.WindowCpu, list[float], list[int], int]:
    """Start the generator, let it warm up, then measure it, the CPU and the WAL written over the same window."""
    options = ctx.options
    generator = await Generator.start(config)
    try:
        await generator.event("ready")
        await asyncio.sleep(options.warmup)
        lsn_before = await _wal_position(database_url)
        before = cpu_accounting.snapshot()
        await generator.send("start")
        await asyncio.sleep(options.seconds)
        await generator.send("stop")
        after = cpu_accounting.snapshot()
        wal_bytes = await _wal_position(database_url) - lsn_before
        window = await generator.window()
    finally:
        await generator.finish()
    own = await _own_backends(database_url)
    all_roots = {**roots, "generator": generator.pid}
    cpu = cpu_accounting.account(before, after, all_roots, _cores())
    own_ms = cpu_accounting.ms(cpu_accounting.pids_delta(before, after, own))
    cpu = msgspec.structs.replace(cpu, ms={**cpu.ms, "postgres_own_backends": own_ms} if own else cpu.ms)
    service = roots.get("service")
    processes = [] if service is None else _processes_ms(before, after, service)
    return window, cpu, processes, own, wal_bytes


async def _wal_position(database_url: str) -> int:
    """The server's WAL insert position in bytes: what every database on it wrote, so a shared server's other work
    counts too (the embedded server has only the run's)."""
    conn = await asyncpg.connect(database_url)
    try:
        return int(await conn.fetchval("SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn"))
    finally:
        await conn.close()


def _processes_ms(before: cpu_accounting.Snapshot, after: cpu_accounting.Snapshot, root: int) -> list[float]:
    pids = sorted(cpu_accounting.descendants(after.processes, root))
    return [round(cpu_accounting.ms(cpu_accounting.pids_delta(before, after, [pid])), 1) for pid in pids]


async def _own_backends(database_url: str) -> list[int]:
    conn = await asyncpg.connect(database_url)
    try:
        return await database_server.own_backends(conn, database_server.database_name(database_url))
    finally:
        await conn.close()


def _cores() -> int:
    import os

    return os.cpu_count() or 1


async def measure_rounds(ctx: Context, service: Service, database_url: str) -> figures.RoundFigures:
    roots = {"service": service.pid, "postgres": ctx.server.postmaster_pid}
    config = ctx.generator_config(service.url, "rounds", ctx.options.clients)
    window, cpu, processes, _, wal_bytes = await measured_window(ctx, config, roots, database_url)
    server, own = cpu.ms.get("postgres", 0.0), cpu.ms.get("postgres_own_backends", 0.0)
    if own and server > 1.3 * own:
        step(f"PostgreSQL used {server:.0f} ms but the run's own backends {own:.0f}: the server is shared; read both")
    return figures.round_figures(window, cpu, processes, wal_bytes)


async def measure_http(ctx: Context, service: Service, database_url: str) -> figures.HttpFigures:
    roots = {"service": service.pid, "postgres": ctx.server.postmaster_pid}
    config = ctx.generator_config(service.url, "health", ctx.options.clients, signed=False)
    window, cpu, _, _, _ = await measured_window(ctx, config, roots, database_url)
    return figures.http_figures(window, cpu)


async def measure_ceiling(
    ctx: Context, replay_url: str, captured: list[CapturedRound], capture_table: UUID, share_at_open: float
) -> figures.CeilingFigures:
    options = ctx.options
    connections = options.ceiling_connections or options.clients
    folder = ctx.folder / "pgbench"
    folder.mkdir()
    conn = await asyncpg.connect(replay_url)
    try:
        scripts, variables = await database_ceiling.build_scripts(conn, captured, capture_table)
        await database_ceiling.create_replay_tables(conn, capture_table, connections)
    finally:
        await conn.close()
    weights = database_ceiling.weights(scripts, share_at_open)
    total = int(options.warmup + options.seconds + 3)
    cmd = database_ceiling.command(replay_url, folder, scripts, variables, weights, connections, total)
    replay = await database_ceiling.replay(cmd, folder, options.warmup, options.seconds, scripts)
    database_ceiling.check(replay.run)
    roots = {"postgres": ctx.server.postmaster_pid, "pgbench": replay.pid}
    cpu = cpu_accounting.account(replay.before, replay.after, roots, _cores())
    rounds = replay.run.rounds
    postgres_ms = figures.per(cpu.ms.get("postgres", 0.0), rounds)
    return figures.CeilingFigures(
        seconds=round(cpu.seconds, 3),
        connections=connections,
        rounds=rounds,
        rounds_per_s=round(rounds / cpu.seconds, 1),
        mix=replay.run.by_kind,
        latency=summarise(replay.run.latencies_us),
        postgres_ms_per_round=postgres_ms,
        pgbench_ms_per_round=figures.per(cpu.ms.get("pgbench", 0.0), rounds),
        postgres_bound_rounds_per_s=round(_cores() * 1000 / postgres_ms, 1) if postgres_ms else 0.0,
        failed=replay.run.failed,
        aborted=replay.run.aborted,
        scripts=len(scripts),
        other_load=round(cpu.other_load, 3),
    )


async def measure_seeded(ctx: Context, product_url: str) -> dict[str, Any]:
    """Fill the product database to the wanted number of rounds, then measure complete rounds again."""
    step(f"seeding the database to {ctx.options.seed_rounds} rounds")
    seeding = await seed_rounds.seed(product_url, ctx.options.seed_rounds)
    async with serve_product(ctx, product_url, "service-seeded") as service:
        step(f"complete rounds again, at {seeding.rounds_after} rounds in the database")
        product = await measure_rounds(ctx, service, product_url)
    return {"seeding": msgspec.to_builtins(seeding), "product": msgspec.to_builtins(product)}


async def time_cli(product_url: str) -> list[cli_timings.Timing]:
    """The CLI tools, with `audit verify --db` over the product run's chains (they must verify: exit code 0)."""
    step("timing the command-line tools")
    conn = await asyncpg.connect(product_url)
    try:
        records = int(await conn.fetchval("SELECT count(*) FROM audit_log"))
    finally:
        await conn.close()
    return await asyncio.to_thread(cli_timings.time_commands, product_url, records)
