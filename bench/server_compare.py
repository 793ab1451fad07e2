"""Issue 32's question about the HTTP server, measured rather than assumed: the same tree served by uvicorn
(`reddog serve`, as production runs it) and by granian (`bench.granian_serve`), in interleaved pairs on one
database server, each on a fresh database: service CPU per complete round and per `GET /health/live` (the floor),
PostgreSQL CPU per round and rounds/s, and each pair's granian ÷ uvicorn.

Run as `python -m bench.server_compare --pairs 3 --seconds 15` (with granian installed in the venv).
"""

from __future__ import annotations

import argparse
import asyncio
import secrets
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench import database_server
from bench.harness import Context, Options, measure_http, measure_rounds, reddog, step
from bench.service_process import free_port, serve, service_env

SERVERS = ("uvicorn", "granian")


def command(name: str) -> list[str]:
    return [reddog(), "serve"] if name == "uvicorn" else [sys.executable, "-m", "bench.granian_serve"]


async def one(ctx: Context, name: str, label: str) -> dict[str, float]:
    async with database_server.fresh_database(ctx.server, label) as url:
        port = free_port()
        env = service_env(url, port, ctx.options.workers, ctx.operators, ctx.folder / label)
        async with serve(command(name), env, port, ctx.folder, label) as service:
            step(f"{label}: complete rounds, then the floor")
            rounds = await measure_rounds(ctx, service, url)
            floor = await measure_http(ctx, service, url)
    if sum(rounds.errors.values()) or sum(floor.errors.values()):
        raise RuntimeError(f"{label}: errors {rounds.errors} {floor.errors}")
    return {
        "rounds_per_s": rounds.rounds_per_s,
        "service_ms_per_round": rounds.cpu_ms_per_round["service"],
        "postgres_ms_per_round": rounds.cpu_ms_per_round.get("postgres", 0.0),
        "p99_decide_ms": rounds.latency["decide"].p99_ms,
        "floor_service_ms": floor.service_ms_per_request,
        "floor_requests_per_s": floor.requests_per_s,
        "other_load": rounds.other_load,
    }


async def compare(pairs: int, options: Options) -> dict[str, Any]:
    with database_server.server_url() as (url, embedded), tempfile.TemporaryDirectory(prefix="reddog-srv-") as tmp:
        server = await database_server.describe(url, embedded)
        ctx = Context(options=options, server=server, secret=secrets.token_hex(16), folder=Path(tmp))
        runs: dict[str, list[dict[str, float]]] = {name: [] for name in SERVERS}
        for pair in range(pairs):  # interleaved, the order swapped each pair: drift in the machine falls on both
            for name in SERVERS if pair % 2 == 0 else tuple(reversed(SERVERS)):
                runs[name].append(await one(ctx, name, f"{name}{pair}"))
    keys = runs["uvicorn"][0].keys()
    ratios = {k: [g[k] / u[k] for g, u in zip(runs["granian"], runs["uvicorn"], strict=True) if u[k]] for k in keys}
    return {
        "runs": runs,
        "ratios": {k: {"mean": statistics.fmean(v), "min": min(v), "max": max(v)} for k, v in ratios.items() if v},
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.server_compare")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--warmup", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=32)
    args = parser.parse_args()
    options = Options(seconds=args.seconds, warmup=args.warmup, clients=args.clients, workers=1)
    result = asyncio.run(compare(args.pairs, options))
    for name, rows in result["runs"].items():
        for row in rows:
            print(name, {k: round(v, 3) for k, v in row.items()})
    print("granian ÷ uvicorn:")
    for key, r in result["ratios"].items():
        print(f"  {key}: {r['mean']:.3f} ({r['min']:.3f}-{r['max']:.3f})")


if __name__ == "__main__":
    main()
