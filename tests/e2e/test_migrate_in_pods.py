"""`reddog migrate` as each pod's init container runs it (deploy/k8s): several at once on one database, with the
built Deployment's arguments and environment, apply each migration once, and `--wait` outlasts a database that is
not up yet but never waits on one that refuses."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import re
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit, urlunsplit
from uuid import UUID

import asyncpg

from audit.system_events import SYSTEM_CHAIN_ID, MigrationApplied, decode_system_record
from tests.deploy.support import pod_containers
from tests.support import shipped
from tests.support.database import ROOT, fresh_database_name, with_database
from tests.support.scratch import scratch_database
from tests.support.served import free_port

MIGRATIONS = sorted((ROOT / "service" / "db" / "migrations").glob("*.sql"))
PODS = 3
KUBELET_VARIABLE = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)")  # $(NAME): an earlier entry's value


def init_container(owner_url: str, data_dir: Path) -> tuple[list[str], dict[str, str]]:
    """The built Deployment's migrate init container as the kubelet starts it: (argv, environment). The image's ENV,
    then the container's env over it, each secret filled (the owner's URI with this database's) and $(VAR) expanded;
    only the image's paths are this machine's."""
    secrets = {
        ("reddog-db-app", "uri"): owner_url,  # what CloudNativePG writes for the owner
        ("reddog-db-service", "password"): "p" * 24,
        ("reddog-operators", "RD_OPERATORS"): "aggregator:" + "s" * 32,
    }
    container = pod_containers()["migrate"]
    env = shipped.image_env({"PATH": os.environ["PATH"]})
    for entry in container["env"]:
        if "valueFrom" in entry:
            ref = entry["valueFrom"]["secretKeyRef"]
            value = secrets[ref["name"], ref["key"]]
        else:
            value = KUBELET_VARIABLE.sub(lambda m: env.get(m.group(1), m.group(0)), entry["value"])
        env[entry["name"]] = value
    env["RD_DATA_DIR"] = env["RD_DATA_DIR"].replace("/var/lib/reddog", str(data_dir))
    return [sys.executable, "-m", "service.cli.cli", *container["args"]], env


async def run(argv: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    """A command in a process of its own: (exit status, stdout, stderr)."""
    done = await asyncio.create_subprocess_exec(*argv, env=env, cwd=ROOT, stdout=-1, stderr=-1)
    out, err = await asyncio.wait_for(done.communicate(), 120)
    return done.returncode or 0, out.decode(), err.decode()


async def reddog_migrate(url: str, *args: str) -> tuple[int, str, str]:
    """`reddog migrate ARGS` as the owner in production, with nothing else set."""
    env = {**os.environ, "RD_ENV": "production", "MIGRATE_DATABASE_URL": url, "RD_DATA_DIR": str(ROOT / ".data")}
    env.pop("DATABASE_URL", None)
    return await run([sys.executable, "-m", "service.cli.cli", "migrate", *args], env)


def at(url: str, host: str, port: int) -> str:
    """The same user and database on another host and port, over TCP."""
    parts = urlsplit(url)
    auth = parts.netloc.rsplit("@", 1)[0] + "@" if "@" in parts.netloc else ""
    return urlunsplit(parts._replace(netloc=f"{auth}{host}:{port}", query=""))


async def upstream(url: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A raw connection to the server the URL names, by its TCP address or its unix socket."""
    parts = urlsplit(url)
    host = parse_qs(parts.query).get("host", [parts.hostname or "localhost"])[0]
    if host.startswith("/"):
        return await asyncio.open_unix_connection(f"{host}/.s.PGSQL.{parts.port or 5432}")
    return await asyncio.open_connection(host, parts.port or 5432)


@contextlib.asynccontextmanager
async def forwarder(url: str, port: int) -> AsyncIterator[None]:
    """The database appearing on 127.0.0.1:port: each connection made there is piped to the real server."""

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.close()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        server_reader, server_writer = await upstream(url)
        await asyncio.gather(pipe(reader, server_writer), pipe(server_reader, writer))

    server = await asyncio.start_server(handle, "127.0.0.1", port)
    try:
        yield
    finally:
        server.close()


async def test_pods_migrating_at_once_apply_each_migration_once_and_record_it_once(
    database_server: str, tmp_path: Path
) -> None:
    async with scratch_database(database_server, migrate=False) as url:
        argv, env = init_container(url, tmp_path)
        assert env["RD_ENV"] == "production"
        results = await asyncio.gather(*(run(argv, env) for _ in range(PODS)))
        assert [status for status, _, _ in results] == [0] * PODS, [err for _, _, err in results]
        everything = "applied: " + ", ".join(f.stem for f in MIGRATIONS) + "\n"
        nothing = "applied: nothing (up to date)\n"
        # Each waits on the advisory lock; the first to hold it applies everything, the others find it done.
        assert sorted(out for _, out, _ in results) == [everything] + [nothing] * (PODS - 1)
        conn = await asyncpg.connect(url)
        try:
            versions = [r["version"] for r in await conn.fetch("SELECT version FROM schema_migrations")]
            bodies = await conn.fetch("SELECT body FROM audit_log WHERE table_id = $1", UUID(SYSTEM_CHAIN_ID))
        finally:
            await conn.close()
    assert sorted(versions) == [f.stem for f in MIGRATIONS]
    recorded = [decode_system_record(r["body"]).event for r in bodies]
    applied = sorted((e.version, e.sha256) for e in recorded if isinstance(e, MigrationApplied))
    assert applied == [(f.stem, hashlib.sha256(f.read_bytes()).hexdigest()) for f in MIGRATIONS]


async def test_migrate_with_wait_migrates_once_the_database_comes_up(database_server: str) -> None:
    async with scratch_database(database_server, migrate=False) as url:
        port = free_port()
        job = asyncio.create_task(reddog_migrate(at(url, "127.0.0.1", port), "--wait", "60"))
        await asyncio.sleep(3)  # connection refused all along: the command must still be waiting
        assert not job.done()
        async with forwarder(url, port):
            status, out, err = await job
        assert status == 0, err
        assert f"waiting up to 60 s for the database at postgresql://127.0.0.1:{port}/" in err
        assert out.startswith("applied: 001_schema, ")


async def test_migrate_gives_up_after_its_wait_with_status_1_and_says_why() -> None:
    nowhere = f"postgresql://reddog_owner:not-to-be-printed@127.0.0.1:{free_port()}/reddog"
    started = time.monotonic()
    status, out, err = await reddog_migrate(nowhere, "--wait", "3")
    took = time.monotonic() - started
    assert status == 1
    assert out == ""
    assert "gave up after waiting 3 s for the database" in err
    assert "reddog: cannot migrate the database at postgresql://127.0.0.1:" in err
    assert "not-to-be-printed" not in err
    assert 2 <= took < 30


async def test_migrate_does_not_wait_on_a_database_that_refuses(database_server: str) -> None:
    missing = with_database(database_server, fresh_database_name())  # never created
    started = time.monotonic()
    status, _, err = await reddog_migrate(missing, "--wait", "60")
    assert status == 1
    assert "InvalidCatalogNameError" in err
    assert "waiting" not in err
    assert time.monotonic() - started < 30  # the process's start-up, not the minute it was allowed


async def test_migrate_refuses_a_wait_that_is_not_a_number_of_seconds() -> None:
    for wait in ("soon", "-1", "nan"):
        status, _, err = await reddog_migrate("postgresql://nobody@127.0.0.1:1/nothing", "--wait", wait)
        assert status == 2
        assert "is not a number of seconds from 0 to 86400" in err
