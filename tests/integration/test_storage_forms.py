"""During a rolling update a replica of an earlier release may still serve, and it reads only the storage forms
before migrations 025 and 026. So the compact forms (a packed shoe, a deflated state, an outbox body beside its row)
are written only while no connection of the service's login lacks this release's name; both are read always."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import msgspec
import pytest

from service.db import outbox_sql, storage_forms
from service.settings import Settings
from tests.support.live import live
from tests.support.scratch import Database

PLAY = {"bets": [{"player_id": "p1", "ante": 10}], "forced_cards": ["5S", "5H", "5D"]}  # trips: settled at the deal


@pytest.fixture
async def older_replica(database: Database) -> AsyncIterator[asyncpg.Connection]:
    """A connection as the service's login that names no release: what a replica of an earlier release holds."""
    conn = await asyncpg.connect(database.app_url)
    try:
        yield conn
    finally:
        await conn.close()


async def forms_of_last_round(db: asyncpg.Connection, operator_id: str) -> tuple[bool, bool, bool]:
    """(state deflated, shoe packed, body beside its row) of the operator's latest round and its notification."""
    row = await db.fetchrow(
        "SELECT r.state_deflated IS NOT NULL AS deflated, get_byte(r.shoe, 0) = 193 AS packed,"
        " (SELECT o.body IS NULL FROM outbox o WHERE o.ordering_key = 'round:' || r.round_id) AS beside"
        " FROM rounds r WHERE r.operator_id = $1 ORDER BY r.opened_at DESC LIMIT 1",
        operator_id,
    )
    assert row is not None
    return row["deflated"], row["packed"], row["beside"]


async def test_with_an_older_replica_connected_rounds_are_written_as_it_reads_them_and_compact_once_it_has_gone(
    settings: Settings, db: asyncpg.Connection, older_replica: asyncpg.Connection
) -> None:
    async with live(settings) as app:
        assert storage_forms.FORMS.compact is False  # the app looked at start and found the older replica
        table = await app.api.table(mode="test")
        old = await app.api.ok("POST", f"/v1/tables/{table['table_id']}/rounds", PLAY)
        assert await forms_of_last_round(db, app.api.operator_id) == (False, False, False)
        await older_replica.close()
        # What the database probe does every few seconds (a closed backend leaves pg_stat_activity a moment later).
        for _ in range(100):
            if await storage_forms.look(app.pool):
                break
            await asyncio.sleep(0.05)
        assert storage_forms.FORMS.compact is True
        new = await app.api.ok("POST", f"/v1/tables/{table['table_id']}/rounds", PLAY)
        assert await forms_of_last_round(db, app.api.operator_id) == (True, True, True)
        # Both read back the same way, whichever form they were stored in.
        for played in (old, new):
            assert await app.api.ok("GET", f"/v1/rounds/{played['round_id']}") == played
        # And each notification's body reads back from where it was stored: its row, or beside it.
        async with db.transaction():
            await outbox_sql.assign_positions(db, 10_000)
        listed = await outbox_sql.select_listed(db, app.api.operator_id, 0, 10_000)
        told = [msgspec.json.decode(item.body) for item in listed]
        assert {old["round_id"], new["round_id"]} <= {
            n["data"]["round_id"] for n in told if n["type"] == "round.settled"
        }


async def test_a_connection_of_another_login_does_not_hold_the_compact_forms_back(
    settings: Settings, db: asyncpg.Connection
) -> None:
    # The test's own connection is the owner's, not the service login's: an operator's psql session as the owner,
    # or a monitoring login, is not a replica.
    assert await db.fetchval("SELECT current_user") != await db.fetchval(
        "SELECT usename FROM pg_stat_activity WHERE application_name = $1 LIMIT 1", storage_forms.APPLICATION_NAME
    )
    async with live(settings) as app:
        assert storage_forms.FORMS.compact is True
        table = await app.api.table(mode="test")
        played = await app.api.ok("POST", f"/v1/tables/{table['table_id']}/rounds", PLAY)
        assert await forms_of_last_round(db, app.api.operator_id) == (True, True, True)
        assert await app.api.ok("GET", f"/v1/rounds/{played['round_id']}") == played


async def test_a_service_serving_as_a_superuser_in_development_is_never_held_back_by_other_superuser_sessions(
    db: asyncpg.Connection,
) -> None:
    # The test's own connection is an unnamed superuser session, as a benchmark's harness beside `reddog serve` is.
    assert await db.fetchval("SELECT rolsuper FROM pg_roles WHERE rolname = current_user") is True
    assert await db.fetchval("SELECT application_name FROM pg_stat_activity WHERE pid = pg_backend_pid()") == ""
    assert await storage_forms.older_replicas_connected(db) is False
