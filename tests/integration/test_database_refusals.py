"""A database that refuses the service (not accepting connections, too many of them) is a retryable 503; an error
nobody expected is a 500 that says a retry will not help."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import asyncpg
import pytest

from service.db.app_login import login_url
from service.settings import Settings
from tests.api.helpers import problem
from tests.conftest import make_settings
from tests.support.database import with_database
from tests.support.live import Live, live
from tests.support.private_cluster import private_cluster
from tests.support.scratch import (
    TEST_APP_ROLE,
    Database,
    verified_scratch_database,
)

LIMITED_LOGIN = "reddog_test_no_connections"  # a login in the app role allowed no connection at all


@pytest.fixture(scope="module")
async def database(database_server: str) -> AsyncIterator[Database]:
    """This module's own database: it closes it to connections for a moment."""
    async with verified_scratch_database(database_server) as database:
        yield database


@pytest.fixture
async def admin(database_server: str) -> AsyncIterator[asyncpg.Connection]:
    """The server's superuser, connected to another database than the one it closes."""
    conn = await asyncpg.connect(with_database(database_server, "postgres"))
    yield conn
    await conn.close()


@contextlib.asynccontextmanager
async def fresh_connections_to(server: Live, url: str, restore: str) -> AsyncIterator[None]:
    """From now on the app's pool opens its connections with `url`; the ones it holds are retired."""
    server.pool.set_connect_args(url, command_timeout=30)
    await server.pool.expire_connections()
    try:
        yield
    finally:
        server.pool.set_connect_args(restore, command_timeout=30)


async def assert_refused_as_unavailable(
    server: Live, table_id: str, capsys: pytest.CaptureFixture[str], refusal: str
) -> None:
    """A read and a write both answer a retryable 503, and the log names the refusal PostgreSQL gave."""
    capsys.readouterr()
    for response in (
        await server.api.get(f"/v1/tables/{table_id}"),
        await server.api.post(f"/v1/tables/{table_id}/rounds", {"bets": [{"player_id": "p", "ante": 5}]}),
    ):
        body = problem(response, 503, "SERVICE_UNAVAILABLE")
        assert body["retryable"] is True
        assert response.headers["retry-after"] == "1"
    assert f'"error":"{refusal}"' in capsys.readouterr().out


async def test_a_database_not_accepting_connections_is_a_retryable_503(
    settings: Settings,
    database: Database,
    admin: asyncpg.Connection,
    db: asyncpg.Connection,
    capsys: pytest.CaptureFixture[str],
) -> None:
    name = await db.fetchval("SELECT current_database()")
    async with live(settings) as server:
        table = await server.api.table()
        await server.pool.expire_connections()
        await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false')  # SQLSTATE 55000 to newcomers
        try:
            await assert_refused_as_unavailable(server, table["table_id"], capsys, "ObjectNotInPrerequisiteStateError")
        finally:
            await admin.execute(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true')
        assert (await server.api.get(f"/v1/tables/{table['table_id']}")).status_code == 200
    assert await db.fetchval("SELECT count(*) FROM rounds WHERE table_id = $1::uuid", table["table_id"]) == 0


async def test_too_many_connections_is_a_retryable_503(
    settings: Settings,
    database: Database,
    admin: asyncpg.Connection,
    db: asyncpg.Connection,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with contextlib.suppress(asyncpg.exceptions.DuplicateObjectError, asyncpg.exceptions.UniqueViolationError):
        await admin.execute(f"CREATE ROLE {LIMITED_LOGIN} LOGIN CONNECTION LIMIT 0 IN ROLE {TEST_APP_ROLE}")
    async with live(settings) as server:
        table = await server.api.table()
        limited = login_url(database.owner_url, LIMITED_LOGIN, "unused")
        async with fresh_connections_to(server, limited, database.app_url):  # SQLSTATE 53300 on every connection
            await assert_refused_as_unavailable(server, table["table_id"], capsys, "TooManyConnectionsError")
        assert (await server.api.get(f"/v1/tables/{table['table_id']}")).status_code == 200
    assert await db.fetchval("SELECT count(*) FROM rounds WHERE table_id = $1::uuid", table["table_id"]) == 0


@pytest.fixture
async def stopping_server() -> AsyncIterator[tuple[str, Callable[[], None]]]:
    """A PostgreSQL of this test's own, with the app login's URL and a way to begin a smart shutdown."""
    async with private_cluster() as cluster:
        yield cluster.app_url, lambda: cluster.stop("smart")


async def test_a_database_shutting_down_is_a_retryable_503(
    stopping_server: tuple[str, Callable[[], None]], capsys: pytest.CaptureFixture[str]
) -> None:
    app_url, begin_shutdown = stopping_server
    async with live(make_settings(app_url)) as server:
        table = await server.api.table()
        # A smart shutdown waits for the sessions it has and refuses new ones with SQLSTATE 57P03 meanwhile.
        lingering = await asyncpg.connect(app_url)
        try:
            await server.pool.expire_connections()
            begin_shutdown()
            await assert_refused_as_unavailable(server, table["table_id"], capsys, "CannotConnectNowError")
        finally:
            await lingering.close()


async def test_an_unexpected_database_error_is_a_500_that_says_a_retry_will_not_help(
    settings: Settings, db: asyncpg.Connection
) -> None:
    async with live(settings) as server:
        table = await server.api.table()
        # A deployment that lost a grant: nothing a client can fix by retrying.
        await db.execute(f"REVOKE SELECT ON game_tables FROM {TEST_APP_ROLE}")  # noqa: S608 (a constant role name)
        try:
            response: Any = await server.api.get(f"/v1/tables/{table['table_id']}")
        finally:
            await db.execute(f"GRANT SELECT ON game_tables TO {TEST_APP_ROLE}")
        body = problem(response, 500, "INTERNAL_ERROR")
        assert body["retryable"] is False
        assert "retry-after" not in response.headers
        assert "permission" not in response.text  # the cause is logged, never shown
