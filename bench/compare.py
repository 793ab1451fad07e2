"""`make bench-compare BASE=rev`: this tree against another revision, in pairs, on one machine in one run.

A shared machine's speed drifts by more than a small change is worth (here the database ceiling, identical SQL
replayed by pgbench, gave 667 to 840 rounds/s over an afternoon), so one run of each revision says little. This runs
the two in pairs, the order alternating from pair to pair so a drift in time favours neither, on one PostgreSQL with
one generator: each side's complete rounds and its HTTP floor (`GET /health/live`, a measure of how fast the machine
is at that moment), then each figure's ratio within every pair, with their mean and range. The other revision is
checked out in a git worktree with a virtualenv of its own; the generator and the accounting are this tree's for
both sides.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import secrets
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

import msgspec

from bench import database_server
from bench.database_server import ROOT
from bench.harness import Context, Options, measure_http, measure_rounds, reddog, serve_product, step


class Side(msgspec.Struct, frozen=True):
    name: str  # "base" or "this"
    reddog: str  # the revision's `reddog` command


class Measured(msgspec.Struct, frozen=True, kw_only=True):
    side: str
    pair: int
    rounds_per_s: float
    service_ms: float  # CPU per round
    postgres_ms: float
    floor_ms: float  # service CPU per GET /health/live
    wal_bytes: float = 0.0  # WAL written per round (pg_current_wal_insert_lsn() over the window)
    other_load: float = 0.0  # the machine's busy time outside the measured processes, a share of all cores
    errors: int = 0  # failed requests of the rounds window: a pair with any gives no ratios


FIGURES = ("rounds_per_s", "service_ms", "postgres_ms", "wal_bytes", "floor_ms")


def order_of(pair: int, sides: Sequence[Side]) -> list[Side]:
    """Base first in even pairs, this tree first in odd ones: whichever way the machine drifts, neither side always
    runs on the faster end of a pair."""
    return list(sides) if pair % 2 == 0 else list(reversed(sides))


def ratios(measured: Sequence[Measured], figure: str) -> list[float]:
    """this ÷ base for one figure, pair by pair; a pair cut short, with errors or with nothing to divide by gives
    none (a side that failed requests did less work, and its figures would flatter it)."""
    by_pair: dict[int, dict[str, Measured]] = {}
    for m in measured:
        by_pair.setdefault(m.pair, {})[m.side] = m
    found = []
    for _, sides in sorted(by_pair.items()):
        this, base = sides.get("this"), sides.get("base")
        if this is None or base is None or this.errors or base.errors or not getattr(base, figure):
            continue
        found.append(getattr(this, figure) / getattr(base, figure))
    return found


def report(measured: Sequence[Measured], base: str) -> str:
    lines = [
        "| pair | side | rounds/s | CPU ms per round, service + PostgreSQL | WAL bytes per round"
        " | floor: service ms per GET /health/live | other load | errors |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for m in sorted(measured, key=lambda m: (m.pair, m.side)):
        cpu = f"{m.service_ms:.2f} + {m.postgres_ms:.2f}"
        side = f"base ({base})" if m.side == "base" else m.side
        lines.append(
            f"| {m.pair + 1} | {side} | {m.rounds_per_s:.1f} | {cpu} | {m.wal_bytes:,.0f} | {m.floor_ms:.3f}"
            f" | {m.other_load:.0%} | {m.errors} |"
        )
    lines += ["", "| this ÷ base | mean | lowest | highest |", "|---|---|---|---|"]
    for figure in FIGURES:
        found = ratios(measured, figure)
        if found:
            lines.append(f"| {figure} | {statistics.fmean(found):.3f} | {min(found):.3f} | {max(found):.3f} |")
    return "\n".join(lines)


async def compare(options: Options, sides: Sequence[Side], pairs: int) -> list[Measured]:
    measured: list[Measured] = []
    with database_server.server_url() as (url, embedded), tempfile.TemporaryDirectory(prefix="reddog-cmp-") as tmp:
        server = await database_server.describe(url, embedded)
        ctx = Context(options=options, server=server, secret=secrets.token_hex(16), folder=Path(tmp))
        for pair in range(pairs):
            for side in order_of(pair, sides):
                step(f"pair {pair + 1} of {pairs}: {side.name}")
                measured.append(await _measure(ctx, side, pair))
    return measured


async def _measure(ctx: Context, side: Side, pair: int) -> Measured:
    name = f"{side.name}-{pair}"
    async with (
        database_server.fresh_database(ctx.server, f"cmp_{side.name}", reddog=side.reddog) as url,
        serve_product(ctx, url, name, command=side.reddog) as service,
    ):
        rounds = await measure_rounds(ctx, service, url)
        floor = await measure_http(ctx, service, url)
    return Measured(
        side=side.name,
        pair=pair,
        rounds_per_s=rounds.rounds_per_s,
        service_ms=rounds.cpu_ms_per_round["service"],
        # PostgreSQL's CPU is read from /proc: 0 when the server is elsewhere (its ratio is then left out).
        postgres_ms=rounds.cpu_ms_per_round.get("postgres", 0.0),
        floor_ms=floor.service_ms_per_request,
        wal_bytes=rounds.wal_bytes_per_round,
        other_load=rounds.other_load,
        errors=sum(rounds.errors.values()),
    )


@contextlib.contextmanager
def checked_out(revision: str) -> Iterator[Path]:
    """The revision in a git worktree of its own, with its own virtualenv (`make` installs it), removed after."""
    with tempfile.TemporaryDirectory(prefix="reddog-base-") as tmp:
        tree = Path(tmp) / "tree"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(tree), revision], check=True)
        try:
            step(f"installing {revision} in {tree}")
            done = subprocess.run(["make", "-C", str(tree), ".venv/.installed-stamp"], capture_output=True, text=True)
            if done.returncode:  # the installer's own warnings are noise unless it failed
                raise RuntimeError(f"installing {revision} failed:\n{done.stderr[-3000:]}")
            yield tree
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(tree)], check=False)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench.compare", description=__doc__)
    p.add_argument("--base", required=True, help="the git revision to compare this tree with")
    p.add_argument("--pairs", type=int, default=3)
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--warmup", type=float, default=5)
    p.add_argument("--clients", type=int, default=32)
    p.add_argument("--workers", type=int, default=2)
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    options = Options(seconds=args.seconds, warmup=args.warmup, clients=args.clients, workers=args.workers)
    with checked_out(args.base) as tree:
        sides = [Side("base", str(tree / ".venv" / "bin" / "reddog")), Side("this", reddog())]
        measured = asyncio.run(compare(options, sides, args.pairs))
    print(report(measured, args.base), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
