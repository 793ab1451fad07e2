"""The probes: live answers while the process runs; ready only when the database answers and every migration this
release ships has been applied. The service's role may read what readiness and the report need, and no more."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from uuid import UUID

import asyncpg
import pytest

from service.db.app_login import login_url
from service.db.migrate import migration_files
from tests.conftest import make_settings
from tests.support.live import live
from tests.support.scratch import TEST_APP_ROLE, TEST_LOGIN, TEST_LOGIN_PASSWORD, scratch_database

ROUND = {"bets": [{"player_id": "p1", "ante": 10}]}


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
    assert await db.fetchval("SELECT has_table_privilege($1, $2, $3)", TEST_APP_ROLE, table, privilege) is granted


async def test_a_database_that_only_reads_is_no_writable_primary_and_its_writes_are_retryable_503s(
    own_database: str,
) -> None:
    """What the service meets on a standby (or a primary set read-only): ready says there is no writable primary,
    a write is refused as a retryable 503, never a 500; it serves again once the database takes writes."""
    async with live(make_settings(login_url(own_database, TEST_LOGIN, TEST_LOGIN_PASSWORD))) as server:
        table = await server.api.table(name="read-only")
        owner = await asyncpg.connect(own_database)
        name = await owner.fetchval("SELECT current_database()")
        try:
            await owner.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
            await owner.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND usename = $2",
                name,
                TEST_LOGIN,
            )
            not_ready = await server.api.client.get("/health/ready")
            assert (not_ready.status_code, not_ready.json()) == (503, {"status": "no writable primary"})
            refused = await server.api.post(f"/v1/tables/{table['table_id']}/rounds", ROUND)
            assert refused.status_code == 503, refused.text
            assert (refused.json()["code"], refused.json()["retryable"]) == ("SERVICE_UNAVAILABLE", True)
            assert await owner.fetchval("SELECT count(*) FROM rounds WHERE table_id = $1", UUID(table["table_id"])) == 0
            await owner.execute(f'ALTER DATABASE "{name}" RESET default_transaction_read_only')
            await owner.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND usename = $2",
                name,
                TEST_LOGIN,
            )
        finally:
            await owner.close()
        # The pool may still hold a connection the terminate cut: a probe that meets it is "database unavailable"
        # and the pool replaces it, so ready is asked until it holds (a few seconds at most), as a prober would.
        deadline = time.monotonic() + 5
        while (ready := (await server.api.client.get("/health/ready")).json()) != {"status": "ready"}:
            assert time.monotonic() < deadline, ready
            await asyncio.sleep(0.05)
        played = await server.api.post(f"/v1/tables/{table['table_id']}/rounds", ROUND)
        assert played.status_code == 201, played.text
