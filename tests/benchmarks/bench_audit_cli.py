"""`reddog audit verify` and `replay` timed as whole processes on the 100,000-round export, this tree against another.

The export is `bench_audit_tools.make_export`'s (made once, kept at --file). Each run starts the command as a new
process and takes its CPU (user + sys of it and its workers, from the kernel's accounting of the reaped process
tree) and wall time; the sides and the job counts alternate run by run, so a machine that speeds up or slows down
during the benchmark weighs on both alike. `--base DIR` is another checkout with its own .venv (e.g. a worktree of
main): its commands run with the same --jobs where it has them (audit/parallel.py), else without. Other load is
the machine's busy share of all cores (/proc/stat) beyond what the timed commands used.

    .venv/bin/python -m tests.benchmarks.bench_audit_cli [--base DIR] [--runs 3] [--jobs 1,0] [--file PATH]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time
from pathlib import Path

from tests.benchmarks.bench_audit_tools import KEY, make_export


def busy() -> tuple[int, int]:
    """(busy, total) jiffies of all cores so far."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def timed(command: list[str], cwd: Path) -> tuple[float, float, int]:
    """CPU seconds (the process and its reaped children), wall seconds and exit code of one run, started in `cwd`
    (`python -m` puts the working directory first on the path: it decides which checkout's `audit` runs)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, cwd=cwd)  # noqa: S603 - our own commands
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - started, process.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=100_000)
    parser.add_argument("--file", type=Path, default=None)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", default="1,0", help="job counts to time this tree with (0: every core)")
    parser.add_argument("--base", type=Path, default=None, help="another checkout with a .venv, timed alongside")
    args = parser.parse_args()
    path = args.file or Path(f"/tmp/reddog-bench-export-{args.rounds}.jsonl")  # noqa: S108 - a scratch file
    if not path.exists():
        tables, records = make_export(path, args.rounds)
        print(f"made {path}: {tables} tables, {records:,} records")
    key = path.absolute().with_suffix(".key")
    key.write_text(KEY.verifier_key)
    records = sum(1 for line in path.open("rb") if line.startswith(b'{"type":"record"'))
    rounds = args.rounds
    # The venv's python is not resolved: its link is what makes it the venv's.
    sides: list[tuple[str, Path, list[str]]] = [("this", Path.cwd(), [f"--jobs={j}" for j in args.jobs.split(",")])]
    if args.base is not None:
        # A base that knows --jobs is timed with the same job counts (its default is every core, so a base timed
        # without it would set its all-core figures against this tree's one-core ones); an older one runs without it
        base = args.base.absolute()
        knows_jobs = (base / "audit/parallel.py").exists()
        sides.append(("base", base, sides[0][2] if knows_jobs else [""]))
    results: dict[tuple[str, str, str], list[tuple[float, float]]] = {}
    before, own_cpu, started = busy(), 0.0, time.perf_counter()
    for run in range(args.runs):
        for name, checkout, jobs_options in sides if run % 2 == 0 else sides[::-1]:
            for tool in ("verify", "replay"):
                for jobs in jobs_options:
                    python = str(checkout / ".venv/bin/python")
                    command = [python, "-m", "audit.audit_cli", tool, *([jobs] if jobs else [])]
                    command += ["--public-key", str(key)] if tool == "verify" else []
                    cpu, wall, code = timed([*command, str(path.absolute())], checkout)
                    assert code == 0, (command, code)
                    own_cpu += cpu
                    results.setdefault((name, tool, jobs or "one process"), []).append((cpu, wall))
    after, elapsed = busy(), time.perf_counter() - started
    cores = os.cpu_count() or 1
    share = (after[0] - before[0]) / max(after[1] - before[1], 1)
    other = max(share - own_cpu / (elapsed * cores), 0.0)
    print(f"{records:,} records, {rounds:,} rounds, {args.runs} runs; other load {other:.0%} of {cores} cores")
    print(f"{'side':5} {'tool':6} {'jobs':12} {'CPU s min/median':>17} {'per CPU s (median)':>20} {'wall s':>7}")
    for (name, tool, jobs), found in results.items():
        cpus, walls = [c for c, _ in found], [w for _, w in found]
        count = records if tool == "verify" else rounds
        unit = "records/s" if tool == "verify" else "rounds/s"
        cpu = statistics.median(cpus)
        print(
            f"{name:5} {tool:6} {jobs:12} {min(cpus):7.2f} / {cpu:6.2f} {count / cpu:>10,.0f} {unit:9}"
            f" {statistics.median(walls):7.2f} ({count / statistics.median(walls):,.0f} {unit} by the wall)"
        )


if __name__ == "__main__":
    main()
