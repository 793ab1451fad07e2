"""A real Prometheus (Debian's package) scraping a metrics port with the repository's recording rules and alerts."""

from __future__ import annotations

import contextlib
import subprocess
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import msgspec
import yaml

from tests.support.served import free_port

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "deploy" / "prometheus" / "rules" / "reddog.rules.yaml"
EVERY = "500ms"  # scrape and evaluate this often, so a test waits seconds, not minutes


class Prometheus(msgspec.Struct, frozen=True, kw_only=True):
    url: str

    def query(self, expr: str) -> list[tuple[dict[str, str], float]]:
        """An instant query: each series' labels and value."""
        body = self._get("/api/v1/query", {"query": expr})
        return [(r["metric"], float(r["value"][1])) for r in body["data"]["result"]]

    def last_evaluation(self, group: str) -> datetime:
        """When a rule group was last evaluated."""
        groups = self._get("/api/v1/rules", {})["data"]["groups"]
        stamp = next(g["lastEvaluation"] for g in groups if g["name"] == group)
        return datetime.fromisoformat(stamp[:26].rstrip("Z") + "+00:00")  # nanoseconds: keep microseconds

    def _get(self, path: str, params: dict[str, str]) -> Any:
        response = httpx.get(self.url + path, params=params, timeout=10)
        assert response.status_code == 200, response.text
        return response.json()


def fast_rules(folder: Path) -> Path:
    """The repository's rules, unchanged but for their evaluation interval."""
    groups = yaml.safe_load(RULES.read_text(encoding="utf-8"))
    for group in groups["groups"]:
        if "interval" in group:
            group["interval"] = EVERY
    path = folder / "reddog.rules.yaml"
    path.write_text(yaml.safe_dump(groups, sort_keys=False), encoding="utf-8")
    return path


@contextlib.contextmanager
def prometheus(binary: str, metrics_target: str, folder: Path) -> Iterator[Prometheus]:
    """Start Prometheus scraping `metrics_target` (host:port) as job `reddog`; wait until it is ready."""
    config = {
        "global": {"scrape_interval": EVERY, "scrape_timeout": EVERY, "evaluation_interval": EVERY},
        "rule_files": [str(fast_rules(folder))],
        "scrape_configs": [{"job_name": "reddog", "static_configs": [{"targets": [metrics_target]}]}],
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
