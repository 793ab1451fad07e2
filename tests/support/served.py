"""A real `reddog serve` in its own process (uvicorn, its workers, the metrics port): end-to-end tests, benchmarks."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import msgspec

ROOT = Path(__file__).resolve().parents[2]
# Secrets of 32 bytes or more: the production start-up test serves with RD_ENV=production, which refuses shorter.
OPERATOR = ("e2e", "e2e-secret-of-thirty-two-bytes-or-more")
AUDITOR = ("e2e-lab", "e2e-lab-secret-of-thirty-two-bytes-or-more")


class Served(msgspec.Struct, frozen=True, kw_only=True):
    api_url: str
    metrics_url: str
    pid: int
    log: Path  # its stdout, and its stderr too unless `errors` is set
    errors: Path | None = None  # its stderr, when kept apart


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _run_key(data_dir: Path) -> Path:
    """The run's one checkpoint key in a file: every server on the run's database signs with the key the in-process
    apps use, as a deployment's replicas do (a key of its own would be refused outside development)."""
    from tests.conftest import AUDIT_KEY  # here: the benchmarks import this module without pytest's conftest

    path = data_dir / "run-signing.key"
    data_dir.mkdir(parents=True, exist_ok=True)
    path.write_text(AUDIT_KEY.signer_key + "\n", encoding="utf-8")
    path.chmod(0o600)
    return path


@contextlib.contextmanager
def served(
    database_url: str,
    data_dir: Path,
    *,
    workers: int = 1,
    wait_for: str = "/health/ready",
    env: dict[str, str] | None = None,
    stderr_apart: bool = False,
) -> Iterator[Served]:
    """Start the server on free ports against `database_url`; wait until `wait_for` answers 200; stop it after.
    `stderr_apart`: its stderr to a file of its own (server.err) rather than with its stdout."""
    port, metrics_port = free_port(), free_port()
    settings = {
        "DATABASE_URL": database_url,
        "RD_PORT": str(port),
        "RD_METRICS_PORT": str(metrics_port),
        "RD_WORKERS": str(workers),
        "RD_OPERATORS": ":".join(OPERATOR),
        "RD_AUDITORS": ":".join(AUDITOR),
        "RD_ALLOW_TEST_TABLES": "true",
        "RD_LOG_LEVEL": "WARNING",
        "RD_DATA_DIR": str(data_dir),
        "RD_AUDIT_SIGNING_KEY": str(_run_key(data_dir)),
        **(env or {}),
    }
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("RD_", "PROMETHEUS_MULTIPROC"))}
    data_dir.mkdir(parents=True, exist_ok=True)
    api_url, log = f"http://127.0.0.1:{port}", data_dir / "server.log"
    errors = data_dir / "server.err" if stderr_apart else None
    command = [sys.executable, "-m", "service.cli.cli", "serve"]
    with running(command, {**clean, **settings}, api_url=api_url, log=log, wait_for=wait_for, errors=errors) as pid:
        metrics_url = f"http://127.0.0.1:{metrics_port}/metrics"
        yield Served(api_url=api_url, metrics_url=metrics_url, pid=pid, log=log, errors=errors)


@contextlib.contextmanager
def running(
    command: list[str],
    env: dict[str, str],
    *,
    api_url: str,
    log: Path,
    wait_for: str = "/health/ready",
    cwd: Path = ROOT,
    errors: Path | None = None,
) -> Iterator[int]:
    """Run a server's `command` with exactly `env`, its output to `log` (its stderr to `errors` when given); wait
    until `wait_for` answers 200; yield its pid; stop it with SIGTERM after."""
    with log.open("wb") as out, contextlib.ExitStack() as files:
        err = files.enter_context(errors.open("wb")) if errors is not None else subprocess.STDOUT
        process = subprocess.Popen(command, env=env, cwd=cwd, stdout=out, stderr=err)  # noqa: S603
    try:
        _wait_ready(f"{api_url}{wait_for}", process, errors or log)
        yield process.pid
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_ready(probe: str, process: subprocess.Popen[bytes], log: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"reddog serve exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(probe, timeout=2).status_code == 200:
                return
        time.sleep(0.1)
    raise RuntimeError(f"reddog serve was not ready within {timeout} s:\n{log.read_text()[-3000:]}")
