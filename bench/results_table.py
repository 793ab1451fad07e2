"""Where a run's figures go: bench/results/<date>-<rev>.json and the table in docs/benchmarks.md."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

START = "<!-- bench:table:start -->"
END = "<!-- bench:table:end -->"
HEADER = (
    "| date | rev | machine | workers | clients | s | rounds/s | req/s | p99 open / decide ms | errors"
    " | CPU ms/round service / PG / generator | other load | CPU-bound rounds/s | DB ceiling rounds/s"
    " | product ÷ ceiling | /health req/s | request ÷ /health CPU | at 300k: rounds/s, service+PG ms |"
)
RULE = "|" + "---|" * HEADER.count(" |")


def same_run(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Runs of one configuration on one revision and day replace each other; others accumulate."""
    keys = ("date", "git_rev")
    options = ("workers", "clients", "seconds", "seed_rounds")
    return all(a[k] == b[k] for k in keys) and all(a["options"][k] == b["options"][k] for k in options)


def merge(runs: Sequence[Mapping[str, Any]], run: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [r for r in runs if not same_run(r, run)] + [run]


def write_result(folder: Path, run: Mapping[str, Any]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{run['date']}-{run['git_rev']}.json"
    runs = json.loads(path.read_text())["runs"] if path.exists() else []
    path.write_text(json.dumps({"runs": merge(runs, run)}, indent=2, sort_keys=True) + "\n")
    return path


def _n(value: float | None, digits: int = 0) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def _ceiling(ceiling: Mapping[str, Any]) -> str:
    """The ceiling's rounds/s, or what became of a replay whose rounds failed (recorded before the run refused one)."""
    if ceiling.get("failed") and not ceiling.get("rounds"):
        return "replay failed"
    return _n(ceiling.get("rounds_per_s"))


def row(run: Mapping[str, Any]) -> str:
    product = run["product"]
    cpu = product["cpu_ms_per_round"]
    latency = product["latency"]
    p99 = " / ".join(_n(latency[e]["p99_ms"], 1) if e in latency else "-" for e in ("open", "decide"))
    ceiling = run.get("ceiling") or {}
    ratios = run.get("ratios", {})
    seeded = (run.get("seeded") or {}).get("product")
    at_seeded = "-"
    if seeded:
        cost = seeded["cpu_ms_per_round"].get("service", 0) + seeded["cpu_ms_per_round"].get("postgres", 0)
        at_seeded = f"{_n(seeded['rounds_per_s'])}, {cost:.2f}"
    machine = run["machine"]
    cells = [
        run["date"],
        f"`{run['git_rev']}`",
        f"{machine['cores']} cores {machine.get('cpu_model', '?')}, {machine['memory_gb']:.0f} GB",
        str(run["options"]["workers"]),
        str(run["options"]["clients"]),
        _n(product["seconds"]),
        f"**{_n(product['rounds_per_s'])}**",
        _n(product["requests_per_s"]),
        p99,
        str(sum(product["errors"].values())),
        " / ".join(_n(cpu.get(k), 2) for k in ("service", "postgres", "generator")),
        f"{product['other_load']:.0%}",
        _n(product.get("cpu_bound_rounds_per_s")),
        _ceiling(ceiling),
        _n(ratios.get("product_over_database_ceiling"), 2),
        _n(run["http"]["requests_per_s"]),
        _n(ratios.get("request_cpu_over_http_floor"), 1),
        at_seeded,
    ]
    return "| " + " | ".join(cells) + " |"


def read_runs(folder: Path) -> list[dict[str, Any]]:
    """Every run recorded under bench/results, oldest first."""
    runs = [run for path in sorted(folder.glob("*.json")) for run in json.loads(path.read_text())["runs"]]
    return sorted(runs, key=lambda run: str(run.get("started_at", run["date"])))


def table(runs: Sequence[Mapping[str, Any]]) -> str:
    return "\n".join([START, HEADER, RULE, *(row(r) for r in runs), END])


def update_document(document: str, runs: Sequence[Mapping[str, Any]]) -> str:
    """The document with its results table rebuilt from every recorded run (appended at the end if it has none)."""
    if START in document and END in document:
        before, _, rest = document.partition(START)
        return before + table(runs) + rest.partition(END)[2]
    return document.rstrip("\n") + "\n\n" + table(runs) + "\n"
