"""In production the service never alters the schema: it starts unready and becomes ready once `reddog migrate`
has run as the tables' owner (MIGRATE_DATABASE_URL), as the compose migration job and the Kubernetes Job do."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import httpx

from tests.support.database import ROOT
from tests.support.scratch import scratch_database
from tests.support.served import served

UNREACHABLE = "postgresql://nobody@127.0.0.1:1/nothing"  # the service's own URL must not be what migrate uses


async def migration_job(owner_url: str) -> int:
    env = {**os.environ, "MIGRATE_DATABASE_URL": owner_url, "DATABASE_URL": UNREACHABLE}
    job = await asyncio.create_subprocess_exec(sys.executable, "-m", "service.cli", "migrate", env=env, cwd=ROOT)
    return await asyncio.wait_for(job.wait(), 120)


async def test_a_production_server_is_unready_until_the_migration_job_has_run(
    database_server: str, tmp_path: Path
) -> None:
    async with scratch_database(database_server, migrate=False) as url:
        production = served(url, tmp_path, wait_for="/health/live", RD_ENV="production", RD_ALLOW_TEST_TABLES="false")
        with production as server:
            async with httpx.AsyncClient(base_url=server.api_url, timeout=5) as client:
                unready = await client.get("/health/ready")
                assert (unready.status_code, unready.json()) == (503, {"status": "migrations pending"})
                assert await migration_job(url) == 0
                assert (await client.get("/health/ready")).json() == {"status": "ready"}
