"""Where the tests' real PostgreSQL comes from: DATABASE_URL/TEST_DATABASE_URL, else Docker, else embedded."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[2]


def docker_answers() -> bool:
    """True only when a Docker engine answers (the client alone is not enough)."""
    if not os.environ.get("DOCKER_HOST") and not Path("/var/run/docker.sock").exists():
        # No engine to ask: the client would open a socket to the missing path and, failing, leave it unclosed for
        # the collector, whose ResourceWarning then fails whichever test it lands in.
        return False
    try:
        import docker

        client = docker.from_env(timeout=2)
    except Exception:  # no socket, no permission, no client config: all mean "not here"
        return False
    try:
        return bool(client.ping())
    except Exception:  # the client is there but no engine answers
        return False
    finally:
        client.close()


@contextlib.contextmanager
def server_url() -> Iterator[str]:
    """A URL to a running server with rights to create databases."""
    url = os.environ.get("TEST_DATABASE_URL") or os.environ.get("DATABASE_URL")
    if url:
        yield url
        return
    if docker_answers():
        from testcontainers.community.postgres import PostgresContainer

        with PostgresContainer("postgres:16-alpine", driver=None) as container:
            yield container.get_connection_url()
        return
    from service.runtime import embedded

    url, server = embedded.start(ROOT / ".data" / "test-pg")
    try:
        yield url
    finally:
        del server  # the wheel stops the server when the last handle goes at exit


def with_database(url: str, name: str) -> str:
    """The same server URL pointing at another database (works for host and unix-socket URLs)."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}"))


def fresh_database_name() -> str:
    return f"reddog_test_{uuid.uuid4().hex[:12]}"
