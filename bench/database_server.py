"""The PostgreSQL a run uses: DATABASE_URL's server or an embedded one, and fresh databases made on it."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import msgspec

from bench import cpu_accounting

ROOT = Path(__file__).resolve().parents[1]


class Server(msgspec.Struct, frozen=True, kw_only=True):
    url: str  # rights to create databases
    embedded: bool
    postmaster_pid: int | None  # None when the server is not on this machine (its CPU cannot be read from /proc)
    version: str


@contextlib.contextmanager
def server_url() -> Iterator[tuple[str, bool]]:
    """DATABASE_URL when set, else the embedded server the service itself would start (under .data/bench-pg)."""
    url = os.environ.get("DATABASE_URL")
    if url:
        yield url, False
        return
    from service.runtime import embedded

    print("bench: DATABASE_URL is unset: starting an embedded PostgreSQL under .data/bench-pg", file=sys.stderr)
    url, handle = embedded.start(ROOT / ".data" / "bench-pg")
    try:
        yield url, True
    finally:
        del handle  # the wheel stops the server when the last handle goes


async def describe(url: str, embedded: bool) -> Server:
    conn = await asyncpg.connect(url)
    try:
        version = await conn.fetchval("SHOW server_version")
        # A backend's parent is the postmaster; a server elsewhere (or in a container) has no such pid here.
        postmaster = cpu_accounting.parent_of(await conn.fetchval("SELECT pg_backend_pid()"))
    finally:
        await conn.close()
    return Server(url=url, embedded=embedded, postmaster_pid=postmaster, version=version)


def with_database(url: str, name: str) -> str:
    """The same server URL pointing at another database (host and unix-socket URLs alike)."""
    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


def database_name(url: str) -> str:
    return urlsplit(url).path.lstrip("/")


@contextlib.asynccontextmanager
async def fresh_database(
    server: Server, purpose: str, *, keep: bool = False, reddog: str | None = None
) -> AsyncIterator[str]:
    """A new database for this run, migrated by the service's own `reddog migrate` (or `reddog`, another revision's),
    dropped afterwards unless kept."""
    name = f"reddog_bench_{purpose}_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(server.url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        url = with_database(server.url, name)
        try:
            migrate(url, reddog)
            yield url
        finally:
            if keep:
                print(f"bench: kept database {name}", file=sys.stderr)
            else:
                await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


def migrate(url: str, reddog: str | None = None) -> None:
    command = reddog or str(Path(sys.executable).with_name("reddog"))
    env = {**os.environ, "DATABASE_URL": url}
    subprocess.run([command, "migrate"], env=env, check=True, stdout=subprocess.DEVNULL)


async def own_backends(conn: asyncpg.Connection, database: str) -> list[int]:
    """Server processes connected to the run's database (its client backends and autovacuum workers)."""
    rows: list[Any] = await conn.fetch(
        "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", database
    )
    return [int(r["pid"]) for r in rows]
