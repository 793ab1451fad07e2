"""External tools some tests drive (Node's OpenAPI tools, Chromium): found, or the test is skipped with the reason,
except under CI=true, where a missing tool fails the test (`.ci/run` installs them)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE_TOOLS = ROOT / "tools" / "node"
QUIET = {"REDOCLY_TELEMETRY": "off", "REDOCLY_SUPPRESS_UPDATE_NOTICE": "true", "NO_UPDATE_NOTIFIER": "1"}


def missing(reason: str) -> None:
    """Skip the test for want of a tool; under CI that is a failure, since CI must run every test."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (CI=true: .ci/run should have installed it)")
    pytest.skip(reason)


def node_bin(name: str) -> Path:
    """A binary of tools/node (openapi-typescript, tsc, redocly, spectral); `npm ci` installs them when Node is here."""
    if shutil.which("node") is None or shutil.which("npm") is None:
        missing("Node.js and npm are not installed")
    binary = NODE_TOOLS / "node_modules" / ".bin" / name
    if not binary.exists():
        subprocess.run(
            ["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"],  # noqa: S607
            cwd=NODE_TOOLS,
            check=True,
            capture_output=True,
            env={**os.environ, **QUIET},
            timeout=600,
        )
    return binary


def run_node_tool(name: str, *args: str, cwd: Path = NODE_TOOLS) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603 - our own pinned tools on our own files
        [str(node_bin(name)), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **QUIET},
        timeout=300,
        check=False,
    )
