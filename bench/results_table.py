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
        _n(ceiling.get("rounds_per_s")),
        _n(ratios.get("product_over_database_ceiling"), 2),
        _n(run["http"]["requests_per_s"]),
        _n(ratios.get("request_cpu_over_http_floor"), 1),
        at_seeded,
    ]
    return "| " + " | ".join(cells) + " |"


def rows_in(document: str) -> list[str]:
    if START not in document:
        return []
    body = document.partition(START)[2].partition(END)[0]
    return [line for line in body.splitlines() if line.startswith("| ") and line != HEADER]


def add_row(document: str, run: Mapping[str, Any]) -> str:
    """Append the run's row, replacing an earlier row for the same configuration, revision and day."""
    new = row(run)
    key = _row_key(new)
    kept = [line for line in rows_in(document) if _row_key(line) != key]
    table = "\n".join([START, HEADER, RULE, *kept, new, END])
    if START in document and END in document:
        before, _, rest = document.partition(START)
        return before + table + rest.partition(END)[2]
    return document.rstrip("\n") + "\n\n" + table + "\n"


def _row_key(line: str) -> tuple[str, ...]:
    cells = [c.strip() for c in line.strip("|").split("|")]
    return (cells[0], cells[1], cells[3], cells[4], cells[5], "seeded" if cells[-1] != "-" else "")
