"""The privilege split: the service runs as a login in its deployment's app role that can play rounds and nothing
more."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import subprocess
import sys
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from uuid import UUID

import asyncpg
import pytest

from service.cli.database_setup import check_role_or_exit
from service.db import audit_sql
from service.db.app_login import ensure_app_login, login_url, unsafe_role
from service.db.migrate import apply_migrations
from service.runtime.sweeper import purge_keys
from service.settings import Settings
from tests.conftest import AUDIT_KEY, make_settings
from tests.support.client import Signed
from tests.support.live import live
from tests.support.scratch import TEST_APP_ROLE, TEST_LOGIN, Database, scratch_database

STRONG = "s" * 32  # a production-sized operator secret


@pytest.fixture
async def app_db(database: Database) -> AsyncIterator[asyncpg.Connection]:
    """A connection as the app's login: what a compromised service could do."""
    conn = await asyncpg.connect(database.app_url)
    yield conn
    await conn.close()


async def test_the_app_under_test_connects_as_a_login_in_the_app_role_that_passes_the_start_up_check(
    settings: Settings,
) -> None:
    async with live(settings) as server, server.pool.acquire() as conn:
        assert await conn.fetchval("SELECT current_user") == TEST_LOGIN
        assert await conn.fetchval("SELECT pg_has_role($1, 'MEMBER')", TEST_APP_ROLE) is True
        assert await unsafe_role(conn) is None


REFUSED = [
    "UPDATE audit_log SET kind = 'nothing happened'",
    "DELETE FROM audit_log",
    "DROP TRIGGER audit_log_no_update ON audit_log",
    "CREATE OR REPLACE VIEW audit_log AS SELECT * FROM audit_rows",
    # The tables that store the records (migration 024): a request's together in audit_batches, older ones in rows.
    "UPDATE audit_batches SET kinds = '{nothing happened}'",
    "DELETE FROM audit_batches",
    "TRUNCATE audit_batches",
    "ALTER TABLE audit_batches DISABLE TRIGGER audit_batches_no_update",
    "ALTER TABLE audit_batches DISABLE TRIGGER ALL",
    "DROP TRIGGER audit_batches_no_update ON audit_batches",
    "ALTER TABLE audit_batches ADD COLUMN note text",
    "TRUNCATE audit_rows",
    "ALTER TABLE audit_rows DISABLE TRIGGER audit_log_no_update",
    "ALTER TABLE audit_rows DISABLE TRIGGER ALL",
    "ALTER TABLE audit_rows ADD COLUMN note text",
    "CREATE OR REPLACE FUNCTION audit_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$"
    " BEGIN RETURN NEW; END; $$",
    "DELETE FROM rounds",
    "TRUNCATE rounds",
    "DELETE FROM game_tables",
    "TRUNCATE game_tables",
    "DELETE FROM schema_migrations",
    "UPDATE schema_migrations SET version = 'x'",
    "DELETE FROM audit_checkpoints",
    "DELETE FROM inbetween_games",
    "SELECT reddog_app_login('reddog_escalated', 'SCRAM-SHA-256$4096:x$y:z')",
]


@pytest.mark.parametrize("statement", REFUSED)
async def test_the_app_login_cannot_rewrite_history_disable_the_triggers_or_delete_rounds_and_tables(
    api: Signed, db: asyncpg.Connection, app_db: asyncpg.Connection, statement: str
) -> None:
    table = await api.table(mode="test")
    await api.ok("POST", f"/v1/tables/{table['table_id']}/rounds", {"bets": [{"player_id": "p", "ante": 5}]})
    table_id = UUID(table["table_id"])
    before = await audit_sql.select_chain(db, table_id)
    transaction = app_db.transaction()
    await transaction.start()
    try:
        with pytest.raises(asyncpg.exceptions.InsufficientPrivilegeError):
            await app_db.execute(statement)
    finally:
        await transaction.rollback()  # should a privilege ever be granted, the session's data still survives
    assert await audit_sql.select_chain(db, table_id) == before
    assert await db.fetchval("SELECT count(*) FROM rounds WHERE table_id = $1", table_id) == 1


async def test_the_app_login_purges_expired_idempotency_keys_and_keeps_the_others(
    settings: Settings, db: asyncpg.Connection
) -> None:
    async with live(settings) as server:
        now = server.runner.clock()
        old = now - timedelta(days=settings.idempotency_retention_days, seconds=1)
        keys = {"old": old, "young": now - timedelta(days=1)}
        operator = f"purge-{secrets.token_hex(4)}"
        for key, created in keys.items():
            await db.execute(
                "INSERT INTO idempotency_keys (operator_id, key, request_hash, created_at) VALUES ($1, $2, '', $3)",
                operator,
                key,
                created,
            )
        assert await purge_keys(server.runner) >= 1
    left = await db.fetch("SELECT key FROM idempotency_keys WHERE operator_id = $1", operator)
    assert [r["key"] for r in left] == ["young"]


@pytest.fixture
async def fresh_login(db: asyncpg.Connection) -> AsyncIterator[str]:
    """A login name of this test's own (roles belong to the whole server), dropped afterwards."""
    name = f"reddog_test_login_{secrets.token_hex(4)}"
    yield name
    await db.execute(f"DROP ROLE IF EXISTS {name}")


async def test_migrating_with_an_app_password_makes_a_login_in_the_app_role_that_may_serve(
    database: Database, db: asyncpg.Connection, fresh_login: str
) -> None:
    password = secrets.token_hex(16)
    await apply_migrations(db, app_login=(fresh_login, password))
    role = await db.fetchrow(
        "SELECT rolcanlogin, rolsuper, rolcreaterole, rolcreatedb, pg_has_role(rolname, $2, 'MEMBER') AS app"
        " FROM pg_roles WHERE rolname = $1",
        fresh_login,
        TEST_APP_ROLE,
    )
    assert role is not None
    assert dict(role) == {
        "rolcanlogin": True,
        "rolsuper": False,
        "rolcreaterole": False,
        "rolcreatedb": False,
        "app": True,
    }
    # The server keeps a SCRAM verifier, made by the client: never the password.
    stored = await db.fetchval("SELECT rolpassword FROM pg_authid WHERE rolname = $1", fresh_login)
    assert stored.startswith("SCRAM-SHA-256$4096:")
    assert password not in stored
    conn = await asyncpg.connect(login_url(database.owner_url, fresh_login, password))
    try:
        assert await unsafe_role(conn) is None
    finally:
        await conn.close()
    # Running it again (a rotated password) updates the same role.
    await apply_migrations(db, app_login=(fresh_login, secrets.token_hex(16)))
    assert await db.fetchval("SELECT rolpassword FROM pg_authid WHERE rolname = $1", fresh_login) != stored


async def test_the_app_login_function_refuses_to_hand_the_migrating_superuser_a_password(
    db: asyncpg.Connection,
) -> None:
    name = await db.fetchval("SELECT current_user")
    with pytest.raises(asyncpg.exceptions.InsufficientPrivilegeError, match=f"could do more than {TEST_APP_ROLE}"):
        await ensure_app_login(db, name, "a-new-password")
    with pytest.raises(asyncpg.exceptions.RaiseError, match="never a password"):
        await db.execute("SELECT reddog_app_login('reddog_x', 'plain text')")


async def test_the_start_up_check_names_a_superuser_an_owner_of_the_tables_and_passes_the_app_login(
    database_server: str,
) -> None:
    async with scratch_database(database_server) as owner_url:
        owner = await asyncpg.connect(owner_url)
        app_url = login_url(owner_url, TEST_LOGIN, "unused: the test server trusts local logins")
        app = await asyncpg.connect(app_url)
        try:
            assert (
                await unsafe_role(owner)
                == f"the database role {await owner.fetchval('SELECT current_user')!r} is a superuser"
            )
            assert await unsafe_role(app) is None
            await owner.execute(f"ALTER TABLE rounds OWNER TO {TEST_LOGIN}")  # in this scratch database only
            assert (
                await unsafe_role(app)
                == f"the database role {TEST_LOGIN!r} owns (or is a member of the owner of) rounds"
            )
        finally:
            await app.close()
            await owner.close()


def test_serve_refuses_in_one_line_to_run_as_the_owner_outside_development(database: Database, tmp_path: Path) -> None:
    key_file = tmp_path / "audit.key"
    key_file.write_text(AUDIT_KEY.signer_key)  # production serves only with a checkpoint key
    key_file.chmod(0o600)  # and only from a file no one else may read
    env = {
        **os.environ,
        "DATABASE_URL": database.owner_url,
        "RD_ENV": "Production",
        "RD_OPERATORS": f"acme:{STRONG}",
        "RD_AUDIT_SIGNING_KEY": str(key_file),
        "RD_PUBLIC_URL": "https://rd.example.com",
    }
    done = subprocess.run(
        [sys.executable, "-m", "service.cli.cli", "serve"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    refusal = json.loads(lines[0])  # production: every line on stderr is one JSON object
    assert (refusal["event"], refusal["level"]) == ("refusing_to_serve", "error")
    assert refusal["message"].startswith("reddog: refusing to serve: the database role ")
    assert "is a superuser" in refusal["message"]


def test_in_development_the_owner_is_only_warned_about(database: Database, capsys: pytest.CaptureFixture[str]) -> None:
    check_role_or_exit(database.owner_url, Settings(env="development"))
    assert "allowed only because RD_ENV=development" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        check_role_or_exit(database.owner_url, Settings(env="staging"))
    check_role_or_exit(database.app_url, Settings(env="production"))  # the app login may serve anywhere


async def test_the_migrate_command_uses_migrate_database_url_as_owner_and_makes_the_app_login(
    database_server: str, db: asyncpg.Connection, fresh_login: str
) -> None:
    async with scratch_database(database_server, migrate=False) as owner_url:
        env = {
            **os.environ,
            "MIGRATE_DATABASE_URL": owner_url,
            "DATABASE_URL": "postgresql://nobody@127.0.0.1:1/unused",  # the service's URL: not for migrating
            "RD_APP_DB_USER": fresh_login,
            "RD_APP_DB_PASSWORD": "a-password-from-the-environment",
            "RD_APP_DB_ROLE": TEST_APP_ROLE,  # a fresh database's default would be a role of its own, left behind
        }
        done = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-m", "service.cli.cli", "migrate"],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert "003_least_privilege" in done.stdout
        assert await db.fetchval("SELECT pg_has_role($1, $2, 'MEMBER')", fresh_login, TEST_APP_ROLE) is True


async def test_the_app_itself_refuses_the_owner_outside_development_however_it_is_started(database: Database) -> None:
    from service.app import UnsafeDatabaseRole

    strong = {"operators": {"op-prod": "p" * 32, "other": "o" * 32}, "auditors": {"lab": "l" * 32}}  # serving needs
    owner_settings = make_settings(database.owner_url, env="production", public_url="https://rd.example.com", **strong)
    with pytest.raises(ExceptionGroup) as refused:  # the lifespan's task group wraps it
        async with live(owner_settings):
            pass
    assert refused.group_contains(UnsafeDatabaseRole, match="superuser")
    production = make_settings(database.app_url, env="production", public_url="https://rd.example.com", **strong)
    async with live(production) as server:  # the app login starts
        assert (await server.api.get("/v1/tables")).status_code == 200
