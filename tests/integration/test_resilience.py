"""A database that drops the service's connections (a restart, a failover) costs a retry, never a 500 or a double."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

from service.settings import Settings
from tests.support.live import live
from tests.support.scratch import Database, verified_scratch_database


@pytest.fixture(scope="module")
async def database(database_server: str) -> AsyncIterator[Database]:
    """This module's own database: it terminates every other connection to it."""
    async with verified_scratch_database(database_server) as database:
        yield database


async def _drop_service_connections(db: asyncpg.Connection) -> int:
    dropped: int = await db.fetchval(
        "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
        " WHERE datname = current_database() AND pid <> pg_backend_pid()) AS t"
    )
    return dropped


async def test_a_request_on_connections_the_database_dropped_is_retried_on_a_fresh_one(
    settings: Settings, db: asyncpg.Connection
) -> None:
    async with live(settings) as server:
        table = await server.api.table()
        assert await _drop_service_connections(db) >= 1
        response = await server.api.post(
            f"/v1/tables/{table['table_id']}/rounds", {"bets": [{"player_id": "p", "ante": 5}]}
        )
        assert response.status_code == 201, response.text
        # Exactly one round came of the one request, retried or not.
        assert await db.fetchval("SELECT count(*) FROM rounds WHERE table_id = $1", response.json()["table_id"]) == 1
