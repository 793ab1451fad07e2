"""The probes: live answers while the process runs; ready only when the database answers and every migration this
release ships has been applied. The service's role may read what readiness and the report need, and no more."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

from service.db.migrate import migration_files
from tests.conftest import make_settings
from tests.support.live import live
from tests.support.scratch import scratch_database


@pytest.fixture
async def own_database(database_server: str) -> AsyncIterator[str]:
    """A database of its own: this test takes a migration away from it."""
    async with scratch_database(database_server) as url:
        yield url


async def test_ready_waits_for_every_shipped_migration_and_live_does_not(own_database: str) -> None:
    async with live(make_settings(own_database)) as server:
        client = server.api.client
        assert (await client.get("/health/live")).json() == {"status": "ok"}
        assert (await client.get("/health/ready")).json() == {"status": "ready"}
        newest = migration_files()[-1][0]
        async with server.pool.acquire() as conn:
            await conn.execute("DELETE FROM schema_migrations WHERE version = $1", newest)
        not_ready = await client.get("/health/ready")
        assert (not_ready.status_code, not_ready.json()) == (503, {"status": "migrations pending"})
        assert (await client.get("/health/live")).status_code == 200


async def test_the_old_unversioned_probes_are_gone(own_database: str) -> None:
    async with live(make_settings(own_database)) as server:
        for path in ("/health", "/ready", "/metrics"):
            assert (await server.api.client.get(path)).status_code == 404


@pytest.mark.parametrize(
    ("table", "privilege", "granted"),
    [
        ("schema_migrations", "SELECT", True),
        ("schema_migrations", "INSERT", False),
        ("round_figures", "SELECT", True),
        ("round_figures", "INSERT", True),
        ("round_figures", "UPDATE", False),
        ("round_figures", "DELETE", False),
    ],
)
async def test_the_app_role_reads_the_migrations_and_adds_figures_but_never_rewrites_them(
    db: asyncpg.Connection, table: str, privilege: str, granted: bool
) -> None:
    assert await db.fetchval("SELECT has_table_privilege('reddog_app', $1, $2)", table, privilege) is granted
