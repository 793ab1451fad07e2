"""The service as production runs it: `reddog serve` (uvicorn, RD_WORKERS workers, INFO logs) on a free port."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import sys
import time
import urllib.error
import urllib.request
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import msgspec

READY_TIMEOUT = 60.0


class Service(msgspec.Struct, frozen=True, kw_only=True):
    url: str
    pid: int  # the `reddog serve` process; its workers are its children
    log_file: str


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def service_env(database_url: str, port: int, workers: int, operators: str, data_dir: Path) -> dict[str, str]:
    """The environment `reddog serve` reads; pool sizes and log level are left at what production would use."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RD_")}
    env.update(
        DATABASE_URL=database_url,
        RD_PORT=str(port),
        RD_METRICS_PORT=str(free_port()),  # /metrics has a port of its own; the default may be another server's
        RD_WORKERS=str(workers),
        RD_OPERATORS=operators,
        RD_DATA_DIR=str(data_dir),  # the multi-worker metrics files go here, not into the developer's .data/
        RD_LOG_LEVEL="INFO",
    )
    return env


def _ready(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health/ready", timeout=2) as response:  # noqa: S310 - our own local server
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


@contextlib.asynccontextmanager
async def serve(
    command: Sequence[str],
    env: dict[str, str],
    port: int,
    log_dir: Path,
    name: str,
    cwd: Path | None = None,
    ready_timeout: float = READY_TIMEOUT,
) -> AsyncIterator[Service]:
    """Start the server, wait until /health/ready answers, stop it (SIGINT, then SIGKILL to its group) at the end."""
    log_file = log_dir / f"{name}.log"
    url = f"http://127.0.0.1:{port}"
    with log_file.open("wb") as out, (log_dir / f"{name}.stderr").open("wb") as err:
        process = await asyncio.create_subprocess_exec(
            *command, env=env, cwd=cwd, stdout=out, stderr=err, start_new_session=True
        )
        try:
            deadline = time.monotonic() + ready_timeout
            while not await asyncio.to_thread(_ready, url):
                if process.returncode is not None or time.monotonic() > deadline:
                    detail = (log_dir / f"{name}.stderr").read_text()[-2000:]
                    raise RuntimeError(f"the service did not become ready: {detail}")
                await asyncio.sleep(0.2)
            yield Service(url=url, pid=process.pid, log_file=str(log_file))
        finally:
            await _stop(process)


async def _stop(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        process.send_signal(signal.SIGINT)  # uvicorn's graceful shutdown: workers finish, the pool closes
        try:
            await asyncio.wait_for(process.wait(), timeout=15)
        except TimeoutError:
            print("bench: the service did not stop on SIGINT; killing its process group", file=sys.stderr)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # the group this harness created for it: leftover workers go too
    await process.wait()
