"""`.ci/run` is a shell script CI runs before any test can: a syntax error there fails CI in 0 s with nothing to
read, so the suite parses it and checks it ends by running `make test`."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CI_RUN = ROOT / ".ci" / "run"


def test_the_ci_entry_point_parses_as_bash() -> None:
    bash = shutil.which("bash")
    assert bash is not None
    parsed = subprocess.run([bash, "-n", str(CI_RUN)], capture_output=True, text=True, check=False)  # noqa: S603
    assert parsed.returncode == 0, parsed.stderr


def test_the_ci_entry_point_runs_make_test_last() -> None:
    lines = [line.strip() for line in CI_RUN.read_text().splitlines() if line.strip() and not line.startswith("#")]
    assert lines[-1] == "make test"
