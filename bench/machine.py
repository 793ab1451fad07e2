"""What the figures were measured on: cores, CPU model, memory, and the versions of the moving parts."""

from __future__ import annotations

import os
import platform
import subprocess
from pathlib import Path
from typing import Any

from bench.load_generator import node

OUTPUTS = ("bench/results", "docs/benchmarks.md")


def _first(path: str, prefix: str) -> str:
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(prefix):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def describe() -> dict[str, Any]:
    memory_kb = _first("/proc/meminfo", "MemTotal").split()[0]
    return {
        "cores": os.cpu_count() or 1,
        "cpu_model": _first("/proc/cpuinfo", "model name"),
        "memory_gb": round(int(memory_kb) / 2**20, 1) if memory_kb.isdigit() else 0.0,
        "kernel": platform.release(),
        "python": platform.python_version(),
        "node": subprocess.run([node(), "--version"], capture_output=True, text=True, check=False).stdout.strip(),
    }


def git_rev(root: Path) -> str:
    """The short revision, marked -dirty when code differs from it (the bench's own outputs do not count)."""
    rev = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True, check=False
    ).stdout.strip()
    code_only = ["--", ".", *(f":!{p}" for p in OUTPUTS)]
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no", *code_only], cwd=root, capture_output=True, text=True
    ).stdout.strip()
    return f"{rev or 'unknown'}{'-dirty' if status else ''}"
