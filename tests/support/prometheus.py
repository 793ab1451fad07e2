"""A real Prometheus (Debian's package) scraping a metrics port with the repository's recording rules and alerts."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import httpx
import msgspec
import yaml

from tests.support.served import free_port

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "deploy" / "prometheus" / "rules" / "reddog.rules.yaml"
T = TypeVar("T")
EVERY = "500ms"  # scrape and evaluate this often, so a test waits seconds, not minutes


class Prometheus(msgspec.Struct, frozen=True, kw_only=True):
    url: str

    def query(self, expr: str) -> list[tuple[dict[str, str], float]]:
        """An instant query: each series' labels and value."""
        body = self._get("/api/v1/query", {"query": expr})
        return [(r["metric"], float(r["value"][1])) for r in body["data"]["result"]]

    def alerts(self) -> list[dict[str, Any]]:
        """Every alert pending or firing: /api/v1/alerts."""
        found: list[dict[str, Any]] = self._get("/api/v1/alerts", {})["data"]["alerts"]
        return found

    def firing(self, alertname: str) -> list[dict[str, Any]]:
        return [a for a in self.alerts() if a["labels"]["alertname"] == alertname and a["state"] == "firing"]

    def last_evaluation(self, group: str) -> datetime:
        """When a rule group was last evaluated."""
        groups = self._get("/api/v1/rules", {})["data"]["groups"]
        stamp = next(g["lastEvaluation"] for g in groups if g["name"] == group)
        return datetime.fromisoformat(stamp[:26].rstrip("Z") + "+00:00")  # nanoseconds: keep microseconds

    def _get(self, path: str, params: dict[str, str]) -> Any:
        response = httpx.get(self.url + path, params=params, timeout=10)
        assert response.status_code == 200, response.text
        return response.json()


async def until(check: Callable[[], T | None], what: str, seconds: float = 30) -> T:
    """Poll until `check` gives a value: Prometheus scrapes and evaluates every half second."""
    for _ in range(int(seconds / 0.1)):
        found = check()
        if found is not None:
            return found
        await asyncio.sleep(0.1)
    raise AssertionError(f"Prometheus never showed {what} within {seconds} s")


def value(p: Prometheus, expr: str) -> float | None:
    """The value of an expression that gives at most one series."""
    result = p.query(expr)
    assert len(result) <= 1, result
    return result[0][1] if result else None


def fast_rules(folder: Path, hold: str | None = None) -> Path:
    """The repository's rules, unchanged but for their evaluation interval and, given `hold`, every alert's `for`
    (promtool's tests hold the shipped durations; a test against a running service need not wait minutes)."""
    groups = yaml.safe_load(RULES.read_text(encoding="utf-8"))
    for group in groups["groups"]:
        if "interval" in group:
            group["interval"] = EVERY
        for rule in group["rules"]:
            if hold is not None and "for" in rule:
                rule["for"] = hold
    path = folder / "reddog.rules.yaml"
    path.write_text(yaml.safe_dump(groups, sort_keys=False), encoding="utf-8")
    return path


@contextlib.contextmanager
def prometheus(
    binary: str, metrics_target: str | None, folder: Path, *, hold: str | None = None
) -> Iterator[Prometheus]:
    """Start Prometheus scraping `metrics_target` (host:port) as job `reddog`, found by file discovery (None: the
    file lists no target, as discovery that finds none); `hold` as for fast_rules; wait until it is ready."""
    folder.mkdir(parents=True, exist_ok=True)
    targets = folder / "targets.json"
    targets.write_text(json.dumps([{"targets": [metrics_target]}] if metrics_target else []), encoding="utf-8")
    config = {
        "global": {"scrape_interval": EVERY, "scrape_timeout": EVERY, "evaluation_interval": EVERY},
        "rule_files": [str(fast_rules(folder, hold))],
        "scrape_configs": [{"job_name": "reddog", "file_sd_configs": [{"files": [str(targets)]}]}],
    }
    (folder / "prometheus.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    url = f"http://127.0.0.1:{free_port()}"
    log = folder / "prometheus.log"
    with log.open("wb") as out:
        process = subprocess.Popen(  # noqa: S603 - the installed prometheus with our own flags
            [
                binary,
                f"--config.file={folder / 'prometheus.yml'}",
                f"--storage.tsdb.path={folder / 'data'}",
                f"--web.listen-address={url.removeprefix('http://')}",
                "--log.level=warn",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_ready(url, process, log)
        yield Prometheus(url=url)
    finally:
        process.terminate()
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_ready(url: str, process: subprocess.Popen[bytes], log: Path, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"prometheus exited with {process.returncode}:\n{log.read_text()[-3000:]}")
        with contextlib.suppress(httpx.TransportError):
            if httpx.get(f"{url}/-/ready", timeout=2).status_code == 200:
                return
        time.sleep(0.1)
    raise RuntimeError(f"prometheus was not ready within {timeout} s:\n{log.read_text()[-3000:]}")
