"""`make bench-instructions [BASE=rev]`: the instructions a round costs the service and PostgreSQL, counted.

On a shared machine the CPU time of a request moves with the machine: `make bench-compare` saw its HTTP floor, the
same code on both sides, move by ±25% between the two halves of one pair, so a CPU ratio closer to 1 than that says
nothing. An instruction count does not move with the machine. This runs `reddog serve` (one worker, as production
runs it) and a throwaway PostgreSQL (Debian's binaries) under callgrind, plays warm-up rounds uninstrumented, then
counts the instructions of the service's process and of its client backends while one client plays ROUNDS complete
rounds one at a time, then for as long again with no rounds: what the background loops cost by the clock (the sweeper,
the probe, the outbox poller), which runs 50-100 times slower under callgrind and is taken out of the round's figure.
Autovacuum, the checkpointer and the WAL writer are not counted; the WAL bytes are.

The service's figure repeats to within 1% from run to run (its instructions a request: 2.811 and 2.820 million for
`c9bb892`, 3.311 and 3.335 for `0291e25`); PostgreSQL's moves by up to 13% between runs made minutes apart, on both
sides alike, so its ratio is read within one pair of runs. The figures are per request, and per round at the run's
own mix (a round's outcome is drawn from the CSPRNG shoe: the mix differs from run to run).

An instruction is not a unit of time: callgrind counts each step of a `rep stos`/`rep movs` loop, with which glibc
clears and copies large blocks, as one, so a change that trades computing for copying can count more and run faster
(a zlib compressor copied from a primed one counted more instructions and ran 12.2 µs where a fresh one ran 9.3).
Read a change's time with `make bench-compare`; this says whether the work a request does went up or down.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import glob
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from pathlib import Path

import asyncpg
import msgspec

from bench import database_server
from bench.compare import checked_out
from bench.harness import OPERATOR, reddog, step
from bench.load_generator import Generator
from bench.service_process import free_port, serve, service_env

CALLGRIND = ["valgrind", "--tool=callgrind", "--dump-instr=no", "--compress-strings=no"]
# A dump holds what ran since the one before. vgdb, which callgrind_control speaks through, does not reach a process
# forked under valgrind (PostgreSQL's backends), so a backend dumps when it runs a function it is made to:
# pg_log_backend_memory_contexts(pid) signals it, the handler's entry dumps what the backend ran since its last dump,
# and the end of the logging the signal asked for dumps again, so the log's own work falls into a dump of its own.
POSTGRES_CALLGRIND = [
    *CALLGRIND,
    "--dump-before=HandleLogMemoryContextInterrupt",
    "--dump-after=ProcessLogMemoryContextInterrupt",
]
SERVICE_CALLGRIND = [*CALLGRIND, "--instr-atstart=no"]  # switched on by callgrind_control once warm
_TOTALS = re.compile(rb"^(?:summary|totals): (\d+)", re.MULTILINE)


class Counted(msgspec.Struct, frozen=True, kw_only=True):
    side: str
    rounds: int
    requests: int
    mix: dict[str, int]
    seconds: float  # the counted window's wall time (under callgrind)
    service: int  # instructions of the service's process over the window, its clock-driven share taken out
    postgres: int  # of the service's client backends, likewise
    service_idle_per_s: float  # the clock-driven rate taken out
    postgres_idle_per_s: float
    wal_bytes: int
    errors: int

    def per_request(self, figure: str) -> float:
        value: int = getattr(self, figure)
        return value / max(self.requests, 1)

    def per_round(self, figure: str) -> float:
        value: int = getattr(self, figure)
        return value / max(self.rounds, 1)


SERVER_USER = "postgres" if os.geteuid() == 0 else None  # PostgreSQL refuses to run as root


def _binaries() -> Path:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"), key=lambda p: int(p.split("/")[4]))
    if not found:
        raise SystemExit("bench-instructions needs Debian's PostgreSQL binaries (apt-get install postgresql)")
    return Path(found[-1]).parent


class Cluster(msgspec.Struct, frozen=True):
    folder: Path
    port: int

    @property
    def url(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def database_url(self, name: str) -> str:
        return database_server.with_database(self.url, name)


@contextlib.contextmanager
def _cluster(keep: bool = False) -> Iterator[Cluster]:
    """A fresh cluster's folder; kept with its callgrind dumps for callgrind_annotate when `keep`."""
    folder = Path(tempfile.mkdtemp(prefix="reddog-instructions-"))
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    try:
        cluster = Cluster(folder, free_port())
        bins = _binaries()
        pgdata = folder / "data"
        subprocess.run(
            [str(bins / "initdb"), "-D", str(pgdata), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8"],
            check=True,
            capture_output=True,
            user=SERVER_USER,
            group=SERVER_USER,
        )
        with (pgdata / "postgresql.conf").open("a") as conf:
            conf.write(f"port = {cluster.port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{folder}'\n")
        yield cluster
    finally:
        if keep:
            step(f"kept {folder}: each process's dumps are <name>.<pid>.<n>, the window's the second of its own")
        else:
            shutil.rmtree(folder, ignore_errors=True)


@contextlib.contextmanager
def _postgres(cluster: Cluster, *, counted: bool) -> Iterator[subprocess.Popen[bytes]]:
    """The server, under callgrind when `counted`."""
    command = [str(_binaries() / "postgres"), "-D", str(cluster.folder / "data")]
    if counted:
        command = [*POSTGRES_CALLGRIND, f"--callgrind-out-file={cluster.folder}/pg.%p", *command]
    with (cluster.folder / "server.log").open("ab") as log:
        process = subprocess.Popen(command, stdout=log, stderr=log, user=SERVER_USER, group=SERVER_USER)
    try:
        deadline = time.monotonic() + 300
        while subprocess.run(["pg_isready", "-q", "-h", "127.0.0.1", "-p", str(cluster.port)], check=False).returncode:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError((cluster.folder / "server.log").read_text()[-2000:])
            time.sleep(0.5)
        yield process
    finally:
        process.terminate()  # SIGTERM: a smart shutdown; the service has gone by now
        try:
            process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _control(pid: int, *args: str) -> None:
    done = subprocess.run(["callgrind_control", *args, str(pid)], check=True, capture_output=True, timeout=120)
    if b"Error" in done.stdout:  # callgrind_control exits 0 when it finds no such process
        raise RuntimeError(done.stdout.decode())


def _dump(pid: int, out: str) -> int:
    """The service's counts since its last dump."""
    return _dumped(pid, out, lambda: _control(pid, "-d"), files=1)


async def _dump_backend(conn: asyncpg.Connection, pid: int, out: str) -> int:
    """A backend's counts since its last dump (POSTGRES_CALLGRIND)."""
    loop = asyncio.get_running_loop()

    def ask() -> None:
        asyncio.run_coroutine_threadsafe(conn.fetchval("SELECT pg_log_backend_memory_contexts($1)", pid), loop).result()

    return await asyncio.to_thread(_dumped, pid, out, ask, files=2)


def _dumped(pid: int, out: str, ask: Callable[[], object], *, files: int) -> int:
    """Ask for a dump, wait for the `files` it writes and read the instruction total of the first."""
    before = set(glob.glob(f"{out}.{pid}.*"))
    ask()
    for _ in range(600):
        new = set(glob.glob(f"{out}.{pid}.*")) - before
        if len(new) >= files:
            path = min(new, key=lambda p: int(p.rsplit(".", 1)[1]))
            for _ in range(100):  # written by the process itself: wait until its totals line is there
                found = _TOTALS.findall(Path(path).read_bytes())
                if found:
                    return int(found[-1])
                time.sleep(0.1)
        time.sleep(0.1)
    near = sorted(os.listdir(Path(out).parent))
    raise RuntimeError(f"callgrind wrote no dump for {pid} as {out}.{pid}.N; there are {near}")


async def _backends(conn: asyncpg.Connection, database: str) -> list[int]:
    rows = await conn.fetch(
        "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'"
        " AND pid <> pg_backend_pid()",
        database,
    )
    return [int(r["pid"]) for r in rows]


async def _wal(conn: asyncpg.Connection) -> int:
    return int(await conn.fetchval("SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn"))


@contextlib.asynccontextmanager
async def _service(
    reddog_command: str, url: str, folder: Path, name: str, secret: str
) -> AsyncIterator[tuple[int, int, str]]:
    """`reddog serve` under callgrind, uninstrumented until switched on: its port, pid and callgrind file stem."""
    port = free_port()
    env = service_env(url, port, 1, f"{OPERATOR}:{secret}", folder / f"{name}-data")
    env["PYTHONHASHSEED"] = "0"
    out = str(folder / f"{name}.cg")
    python = str(Path(reddog_command).with_name("python"))
    # The console script run by its interpreter: valgrind must start the ELF binary, not a script's #! line.
    command = [*SERVICE_CALLGRIND, f"--callgrind-out-file={out}.%p", python, reddog_command, "serve"]
    async with serve(command, env, port, folder, name, cwd=folder, ready_timeout=600) as service:
        yield port, service.pid, out


async def count(side: str, reddog_command: str, cluster: Cluster, database: str, rounds: int, warmup: int) -> Counted:
    folder = cluster.folder
    secret = secrets.token_hex(16)
    url = cluster.database_url(database)
    admin = await asyncpg.connect(url)
    try:
        async with _service(reddog_command, url, folder, database, secret) as (port, service_pid, out):
            config = {
                "url": f"http://127.0.0.1:{port}",
                "operator": OPERATOR,
                "secret": secret,
                "mode": "counted",
                "clients": 1,
                "rounds": rounds,
                "warmup_rounds": warmup,
            }
            generator = await Generator.start(config)
            await generator.event("warm")
            backends = await _backends(admin, database)
            pg_out = f"{folder}/pg"
            _control(service_pid, "-i", "on")
            _dump(service_pid, out)  # the counts so far, left unread
            for pid in backends:
                await _dump_backend(admin, pid, pg_out)  # the warm-up's counts, left unread
            wal_before, started = await _wal(admin), time.monotonic()
            await generator.send("go")
            window = await generator.window()
            seconds = time.monotonic() - started
            wal_bytes = await _wal(admin) - wal_before
            busy = {service_pid: _dump(service_pid, out)}
            busy |= {pid: await _dump_backend(admin, pid, pg_out) for pid in backends}
            idle_started = time.monotonic()
            await asyncio.sleep(seconds)
            idle_seconds = time.monotonic() - idle_started
            idle = {service_pid: _dump(service_pid, out)}
            idle |= {pid: await _dump_backend(admin, pid, pg_out) for pid in backends}
            await generator.finish()
            late = set(await _backends(admin, database)) - set(backends)
            if late:
                step(f"{side}: the service opened {len(late)} connection(s) inside the window, not counted")
    finally:
        await admin.close()
    service_rate = idle[service_pid] / idle_seconds
    postgres_rate = sum(idle[pid] for pid in backends) / idle_seconds
    return Counted(
        side=side,
        rounds=window.complete_rounds,
        requests=window.requests.get("open", 0) + window.requests.get("decide", 0),
        mix=window.rounds,
        seconds=round(seconds, 1),
        service=round(busy[service_pid] - service_rate * seconds),
        postgres=round(sum(busy[pid] for pid in backends) - postgres_rate * seconds),
        service_idle_per_s=round(service_rate),
        postgres_idle_per_s=round(postgres_rate),
        wal_bytes=wal_bytes,
        errors=sum(window.errors.values()),
    )


async def _create(cluster: Cluster, name: str) -> None:
    conn = await asyncpg.connect(cluster.url)
    try:
        await conn.execute(f'CREATE DATABASE "{name}"')
    finally:
        await conn.close()


async def run(
    sides: Sequence[tuple[str, str]], rounds: int, warmup: int, repeat: int, keep: bool = False
) -> list[Counted]:
    """`sides`: (name, its `reddog`); each is counted `repeat` times, on a database of its own each time."""
    results = []
    with _cluster(keep) as cluster:
        names = [(side, command, f"{side}_{i}") for i in range(repeat) for side, command in sides]
        with _postgres(cluster, counted=False):  # migrations at full speed
            for _, command, database in names:
                await _create(cluster, database)
                await asyncio.to_thread(database_server.migrate, cluster.database_url(database), command)
        with _postgres(cluster, counted=True):
            for side, command, database in names:
                step(f"counting {side} ({database}): {warmup} rounds to warm up, then {rounds}")
                results.append(await count(side, command, cluster, database, rounds, warmup))
                print(msgspec.json.encode(results[-1]).decode(), file=sys.stderr, flush=True)
    return results


def report(results: Sequence[Counted], base: str | None) -> str:
    lines = [
        "| side | rounds (at open / raise / call) | requests | service instructions a request | PostgreSQL a request"
        " | service a round | PostgreSQL a round | WAL bytes a round | errors |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for c in results:
        mix = f"{c.mix.get('settled_at_open', 0)} / {c.mix.get('raise', 0)} / {c.mix.get('call', 0)}"
        lines.append(
            f"| {c.side} | {c.rounds} ({mix}) | {c.requests} | {c.per_request('service'):,.0f}"
            f" | {c.per_request('postgres'):,.0f} | {c.per_round('service'):,.0f} | {c.per_round('postgres'):,.0f}"
            f" | {c.per_round('wal_bytes'):,.0f} | {c.errors} |"
        )
    if base is not None:
        this = [c for c in results if c.side == "this"]
        based = [c for c in results if c.side == "base"]
        lines += ["", f"| this ÷ base (`{base}`), per request | mean of the runs |", "|---|---|"]
        for figure in ("service", "postgres", "wal_bytes"):
            mine = sum(c.per_request(figure) for c in this) / len(this)
            theirs = sum(c.per_request(figure) for c in based) / len(based)
            lines.append(f"| {figure} | {mine / theirs:.3f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.instructions", description=__doc__)
    p.add_argument("--base", help="a git revision to count beside this tree")
    p.add_argument("--rounds", type=int, default=150)
    p.add_argument("--warmup", type=int, default=30)
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--keep", action="store_true", help="keep the callgrind dumps (their folder is named at the end)")
    args = p.parse_args(argv)
    if shutil.which("valgrind") is None:
        raise SystemExit("bench-instructions needs valgrind (apt-get install valgrind)")
    with contextlib.ExitStack() as stack:
        sides = [("this", reddog())]
        if args.base:
            tree = stack.enter_context(checked_out(args.base))
            sides.insert(0, ("base", str(tree / ".venv" / "bin" / "reddog")))
        results = asyncio.run(run(sides, args.rounds, args.warmup, args.repeat, args.keep))
    print(report(results, args.base), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
