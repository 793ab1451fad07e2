"""The Makefile's Python probe is silent where pyenv shims name versions that are not installed, and `make run`
execs the server (make's own child is the server, not a shell)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# As from a shell: not a sub-make of `make test` (which would print "Entering directory" and pass its flags on).
# The Makefile's own variables too: `make test PYTEST_ARGS=...` (or TEST_WORKERS) put in the environment of the run
# would change the recipes these tests read
OUTSIDE_MAKE = {
    k: v
    for k, v in os.environ.items()
    if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS", "PYTEST_ARGS", "TEST_WORKERS", "FUZZ_EXAMPLES")
}


def test_the_python_probe_prints_nothing_when_a_shim_names_a_missing_version(tmp_path: Path) -> None:
    shim = tmp_path / "python3.13"  # what pyenv leaves on PATH for a version it does not have
    shim.write_text('#!/bin/sh\necho "pyenv: python3.13: command not found" >&2\nexit 127\n')
    shim.chmod(0o755)
    (tmp_path / "python3").symlink_to(sys.executable)
    make = shutil.which("make")
    assert make is not None
    result = subprocess.run(  # noqa: S603 - make on our own Makefile
        [make, "-s", "-f", str(ROOT / "Makefile"), "--eval", "probe: ; @echo $(PYTHON)", "probe"],
        cwd=ROOT,
        env={**OUTSIDE_MAKE, "PATH": f"{tmp_path}:/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.strip() in {"python3.12", "python3.11", "python3"}  # past the broken shim, silently


def test_make_run_execs_the_server() -> None:
    make = shutil.which("make")
    assert make is not None
    dry = subprocess.run(  # noqa: S603 - make -n prints the recipe without running it
        [make, "-n", "-o", ".venv/.installed-stamp", "run"],
        cwd=ROOT,
        env=OUTSIDE_MAKE,
        capture_output=True,
        text=True,
        check=True,
    )
    # The server is exec'd last, so a signal to the recipe's shell reaches it (a given DATABASE_URL is migrated first).
    assert dry.stdout.strip().splitlines()[-1] == "exec .venv/bin/reddog serve"


def _dry_run_of_make_test(path: Path) -> list[str]:
    """What `make test` would run with only `path` on PATH, were tools/node's lock file newer than its install."""
    make = shutil.which("make")
    assert make is not None
    (path / "make").symlink_to(make)
    dry = subprocess.run(  # noqa: S603 - make -n prints the recipes without running them
        [str(path / "make"), "-n", "-o", ".venv/.installed-stamp", "-W", "tools/node/package-lock.json", "test"],
        cwd=ROOT,
        env={**OUTSIDE_MAKE, "PATH": str(path)},
        capture_output=True,
        text=True,
        check=True,
    )
    return [line.strip() for line in dry.stdout.splitlines()]


def test_make_test_installs_the_node_tools_first_where_node_and_npm_are(tmp_path: Path) -> None:
    for name in ("node", "npm"):  # stand-ins: make only asks whether they are on PATH
        (tmp_path / name).write_text("#!/bin/sh\nexit 0\n")
        (tmp_path / name).chmod(0o755)
    lines = _dry_run_of_make_test(tmp_path)
    assert lines[0].startswith("cd tools/node && ")
    assert " npm ci " in lines[0]
    assert lines[-1] == ".venv/bin/python -m pytest -n 2"


def test_make_test_runs_the_tests_alone_without_node(tmp_path: Path) -> None:
    assert _dry_run_of_make_test(tmp_path) == [".venv/bin/python -m pytest -n 2"]


@pytest.mark.parametrize(("cores", "workers"), [("1", "2"), ("2", "2"), ("4", "4")])
def test_make_test_runs_a_worker_per_core_and_never_fewer_than_two(tmp_path: Path, cores: str, workers: str) -> None:
    (tmp_path / "nproc").write_text(f"#!/bin/sh\necho {cores}\n")  # a machine with `cores` cores
    (tmp_path / "nproc").chmod(0o755)
    assert _dry_run_of_make_test(tmp_path) == [f".venv/bin/python -m pytest -n {workers}"]


def test_make_image_builds_with_the_checkouts_revision() -> None:
    make, git = shutil.which("make"), shutil.which("git")
    assert make is not None
    assert git is not None
    head = subprocess.run([git, "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True)  # noqa: S603
    built = subprocess.run(  # noqa: S603 - DOCKER=echo prints the build command make would run
        [make, "-s", "image", "DOCKER=echo"], cwd=ROOT, env=OUTSIDE_MAKE, capture_output=True, text=True, check=True
    )
    assert built.stdout.split() == [
        "build",
        "-f",
        "deploy/Dockerfile",
        "--build-arg",
        f"RD_GIT_REVISION={head.stdout.strip()}",
        "-t",
        "reddog:local",
        ".",
    ]
