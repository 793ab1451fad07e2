"""In production the service never alters the schema. A replica of a new release that starts before the migration
job has applied that release's migration (a rolling upgrade) serves nothing until it has: /health/ready says 503
until `reddog migrate` has run as the tables' owner (MIGRATE_DATABASE_URL), then 200."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import asyncpg
import httpx

from service.db.app_login import login_url
from tests.conftest import AUDIT_KEY
from tests.support.database import ROOT
from tests.support.scratch import TEST_LOGIN, TEST_LOGIN_PASSWORD, scratch_database
from tests.support.served import served

UNREACHABLE = "postgresql://nobody@127.0.0.1:1/nothing"  # the service's own URL must not be what migrate uses


async def as_before_migration_006(url: str) -> None:
    """The database as the previous release left it: every migration but 006 applied."""
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(
            "DROP TABLE round_figures; DROP INDEX rounds_by_end;"
            " DELETE FROM schema_migrations WHERE version = '006_round_figures'"
        )
    finally:
        await conn.close()


async def migration_job(owner_url: str) -> int:
    env = {**os.environ, "MIGRATE_DATABASE_URL": owner_url, "DATABASE_URL": UNREACHABLE}
    job = await asyncio.create_subprocess_exec(sys.executable, "-m", "service.cli.cli", "migrate", env=env, cwd=ROOT)
    return await asyncio.wait_for(job.wait(), 120)


async def test_a_new_release_is_unready_until_the_migration_job_has_applied_its_migration(
    database_server: str, tmp_path: Path
) -> None:
    key = tmp_path / "checkpoint.key"
    key.write_text(AUDIT_KEY.signer_key, encoding="utf-8")  # production serves only with its checkpoint key
    key.chmod(0o600)  # and only from a file no one else may read
    production = {
        "RD_ENV": "production",
        "RD_ALLOW_TEST_TABLES": "false",
        "RD_AUDIT_SIGNING_KEY": str(key),
        "RD_PUBLIC_URL": "https://rd.example.com",  # production hands out links only on its public base
    }
    async with scratch_database(database_server) as url:
        await as_before_migration_006(url)
        # Production serves as a login in the app role (never the owner); the migration job runs as the owner.
        app_url = login_url(url, TEST_LOGIN, TEST_LOGIN_PASSWORD)
        with served(app_url, tmp_path / "served", wait_for="/health/live", env=production) as server:
            async with httpx.AsyncClient(base_url=server.api_url, timeout=5) as client:
                unready = await client.get("/health/ready")
                assert (unready.status_code, unready.json()) == (503, {"status": "migrations pending"})
                assert await migration_job(url) == 0
                assert (await client.get("/health/ready")).json() == {"status": "ready"}
        # One worker, serving in the process that started it: its stdout and stderr (one file here) are JSON too.
        assert all(isinstance(json.loads(line), dict) for line in server.log.read_bytes().splitlines())
