"""`python -m bench` (what `make bench` runs): measure, print the figures, record them."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from datetime import UTC, datetime
from typing import Any

import msgspec

from bench import machine, results_table
from bench.database_server import ROOT
from bench.harness import Options, run


def _env_number(name: str, default: float) -> float:
    text = os.environ.get(name, "")
    return float(text) if text.strip() else default


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    p.add_argument("--seconds", type=float, default=_env_number("BENCH_SECONDS", 30), help="measured window")
    p.add_argument("--warmup", type=float, default=_env_number("BENCH_WARMUP", 5), help="before each window")
    p.add_argument("--clients", type=int, default=int(_env_number("BENCH_CLIENTS", 32)))
    p.add_argument("--workers", type=int, default=int(_env_number("RD_WORKERS", 2)))
    p.add_argument("--capture-rounds", type=int, default=40, help="real rounds whose SQL the ceiling replays")
    p.add_argument("--ceiling-connections", type=int, default=None, help="pgbench clients (default: --clients)")
    p.add_argument("--seed-rounds", type=int, default=int(_env_number("BENCH_SEED_ROUNDS", 0)))
    p.add_argument("--no-cli", action="store_true", help="skip timing reddog rtp / simulate / audit verify|replay --db")
    p.add_argument("--no-record", action="store_true", help="print only; write no results file or docs row")
    p.add_argument("--keep", action="store_true", help="keep the databases, logs and pgbench scripts to inspect")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    options = Options(
        seconds=args.seconds,
        warmup=args.warmup,
        clients=args.clients,
        workers=args.workers,
        capture_rounds=args.capture_rounds,
        ceiling_connections=args.ceiling_connections,
        seed_rounds=args.seed_rounds,
    )
    started = datetime.now(UTC)
    result = asyncio.run(run(options, cli=not args.no_cli, keep=args.keep))
    record: dict[str, Any] = {
        "date": started.date().isoformat(),
        "started_at": started.isoformat(timespec="seconds"),
        "git_rev": machine.git_rev(ROOT),
        "machine": machine.describe(),
        "options": msgspec.to_builtins(options),
        **msgspec.to_builtins(result),
    }
    print(json.dumps(summary(record), indent=2))
    if not args.no_record:
        folder = ROOT / "bench" / "results"
        path = results_table.write_result(folder, record)
        docs = ROOT / "docs" / "benchmarks.md"
        document = docs.read_text() if docs.exists() else "# Benchmarks\n"
        docs.write_text(results_table.update_document(document, results_table.read_runs(folder)))
        print(f"bench: wrote {path.relative_to(ROOT)} and the table in docs/benchmarks.md", file=sys.stderr)
    return 0


def summary(record: dict[str, Any]) -> dict[str, Any]:
    """The figures worth reading at the terminal (the results file has everything)."""
    product, http, ceiling = record["product"], record["http"], record.get("ceiling") or {}
    return {
        "rounds_per_s": product["rounds_per_s"],
        "cpu_bound_rounds_per_s": product["cpu_bound_rounds_per_s"],
        "requests_per_s": product["requests_per_s"],
        "p50_p95_p99_ms": {e: [v["p50_ms"], v["p95_ms"], v["p99_ms"]] for e, v in product["latency"].items()},
        "errors": product["errors"],
        "cpu_ms_per_round": product["cpu_ms_per_round"],
        "service_processes_ms": product["service_processes_ms"],
        "other_load_of_all_cores": product["other_load"],
        "http_floor": {
            "requests_per_s": http["requests_per_s"],
            "service_ms_per_request": http["service_ms_per_request"],
            "generator_ms_per_request": http["generator_ms_per_request"],
        },
        "database_ceiling": ceiling,
        "ratios": record["ratios"],
        "cli": record.get("cli"),
        "seeded": record.get("seeded"),
        "outbox": record.get("outbox"),
    }


if __name__ == "__main__":
    raise SystemExit(main())
