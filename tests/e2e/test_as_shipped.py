"""The deploy files as shipped: `reddog migrate` and then `reddog serve`, each with exactly the environment the
image's ENV lines and its compose service give it, bring up a service that plays a signed round.

Only what belongs to the container's own namespaces is substituted: the `postgres` host (a throwaway cluster set
up by deploy/postgres/init-roles.sh, as the postgres image runs it), the image's paths (its virtualenv, its data
directory, the mounted secret) and the two ports (on a shared machine, not the container's own network). Every
${VAR} compose takes from deploy/.env is filled as deploy/.env.example says to fill it."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import httpx

from audit.signed_note import generate_key
from tests.support import shipped
from tests.support.client import Signed
from tests.support.database import ROOT
from tests.support.served import free_port, running

SECRET = "/run/secrets/audit_signing_key"  # where compose mounts the audit_signing_key secret


class Container:
    """What differs between the image's container and this machine: its paths and its ports."""

    def __init__(self, root: Path, socket_dir: str) -> None:
        self.root, self.socket_dir = root, socket_dir
        self.port, self.metrics_port = free_port(), free_port()
        self.data_dir = root / "var-lib-reddog"
        self.data_dir.mkdir()
        self.secret = root / "audit_signing_key"

    def env(self, compose_service: dict[str, Any]) -> dict[str, str]:
        """The image's ENV, then the service's `environment` over it (as Docker merges them), substituted."""
        given = shipped.image_env({"PATH": "/usr/local/bin:/usr/bin:/bin"}) | shipped.service_env(compose_service)
        venv = str(Path(sys.executable).parent.parent)
        env = {"HOME": str(self.data_dir)}
        for key, value in given.items():
            value = value.replace("/opt/reddog", venv).replace("/var/lib/reddog", str(self.data_dir))
            env[key] = value.replace(SECRET, str(self.secret))
        for key in ("DATABASE_URL", "MIGRATE_DATABASE_URL"):
            if key in env:
                env[key] = shipped.pointed_at(env[key], self.socket_dir)
        for key, port in (("RD_PORT", self.port), ("RD_METRICS_PORT", self.metrics_port)):
            if key in env:
                env[key] = str(port)
        return env

    def command(self, env: dict[str, str], *args: str) -> list[str]:
        """The image's ENTRYPOINT, found on the PATH its ENV sets."""
        reddog = shutil.which("reddog", path=env["PATH"])
        assert reddog is not None, env["PATH"]
        return [reddog, *args]


async def play_a_round(api_url: str, operator: str, secret: str) -> dict[str, Any]:
    """Open a live table and play one round to its end, signed as the aggregator (calling, should it ask)."""
    async with httpx.AsyncClient(base_url=api_url, timeout=30) as client:
        api = Signed(client, operator, secret)
        table = await api.table(min_ante=100, max_ante=10_000)
        assert table["mode"] == "live"
        rnd: dict[str, Any] = await api.ok(
            "POST", f"/v1/tables/{table['table_id']}/rounds", {"bets": [{"player_id": "alice", "ante": 500}]}
        )
        if rnd["status"] == "raise_window":
            decision = {"bet_id": rnd["bets"][0]["bet_id"], "action": "call"}
            rnd = await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/decisions", decision)
        return rnd


def test_the_compose_migrate_and_app_services_as_shipped_migrate_serve_and_play_a_signed_round(
    tmp_path: Path,
) -> None:
    key = generate_key("rd.example.com/audit", os.urandom(32))
    dot_env = shipped.filled_env_file(key.signer_key)
    services = shipped.compose_services(dot_env)
    # Not under tmp_path: another pytest run as the same user makes /tmp/pytest-of-USER 0700 again when it starts,
    # and the cluster's files belong to the wheel's own system user when tests run as root.
    (ROOT / ".data").mkdir(exist_ok=True)
    with (
        tempfile.TemporaryDirectory(dir=ROOT / ".data", prefix="as-shipped-") as cluster,
        shipped.compose_postgres(Path(cluster) / "pg", services["postgres"]) as socket_dir,
    ):
        container = Container(tmp_path, socket_dir)
        container.secret.write_text(dot_env["RD_AUDIT_SIGNING_KEY_TEXT"], encoding="utf-8")
        (mounted,) = services["app"]["secrets"]
        container.secret.chmod(int(mounted["mode"]))  # the mode compose mounts the secret with
        env = container.env(services["migrate"])
        argv = container.command(env, *services["migrate"]["command"])
        done = subprocess.run(argv, env=env, cwd=container.data_dir, capture_output=True, text=True, timeout=120)  # noqa: S603
        assert done.returncode == 0, done.stderr
        env = container.env(services["app"])
        api_url = f"http://127.0.0.1:{container.port}"
        with running(container.command(env, "serve"), env, api_url=api_url, log=tmp_path / "serve.log"):
            rnd = asyncio.run(play_a_round(api_url, *dot_env["RD_OPERATORS"].split(":", 1)))
            assert rnd["status"] in ("settled", "void"), rnd
            metrics = httpx.get(f"http://127.0.0.1:{container.metrics_port}/metrics", timeout=10)
            assert "reddog_rounds_total{" in metrics.text
