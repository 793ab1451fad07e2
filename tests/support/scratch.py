"""Private databases for tests: migrated by their owner, served to the app under test as a login in reddog_app."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator

import asyncpg
import msgspec

from service.chains.audit_verify import DatabaseReport, verify_database
from service.db.app_login import login_url
from service.db.migrate import apply_migrations
from tests.support.database import fresh_database_name, with_database

# The tests' app login. Roles belong to the whole server, so it is made once per server and shared by every run
# (and every engineer's run) on it; it is never altered afterwards, so concurrent runs cannot collide on it.
TEST_LOGIN = "reddog_test_app"
TEST_LOGIN_PASSWORD = "reddog-test-app"


class Database(msgspec.Struct, frozen=True, kw_only=True):
    """One test database, reached two ways."""

    owner_url: str  # the server's superuser, who ran the migrations: for a test's own setup and inspection
    app_url: str  # a login in reddog_app and nothing more: what every app under test connects as


async def ensure_test_login(conn: asyncpg.Connection) -> None:
    """The shared test login, a member of reddog_app (what an operator creates by hand, docs/operations.md)."""
    member = await conn.fetchval(
        "SELECT pg_has_role(rolname, 'reddog_app', 'MEMBER') FROM pg_roles WHERE rolname = $1", TEST_LOGIN
    )
    if member:
        return
    try:
        if member is None:
            await conn.execute(f"CREATE ROLE {TEST_LOGIN} LOGIN PASSWORD '{TEST_LOGIN_PASSWORD}' IN ROLE reddog_app")
        else:
            await conn.execute(f"GRANT reddog_app TO {TEST_LOGIN}")
    except (asyncpg.exceptions.DuplicateObjectError, asyncpg.exceptions.UniqueViolationError):
        pass  # another run made it at the same moment


@contextlib.asynccontextmanager
async def scratch_database(server_url: str, *, migrate: bool = True) -> AsyncIterator[str]:
    """Create a database on the test server (migrated unless asked not to), yield its owner's URL, drop it after;
    KEEP_TEST_DB=1 keeps it for a look afterwards."""
    name = fresh_database_name()
    admin = await asyncpg.connect(server_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
        url = with_database(server_url, name)
        try:
            if migrate:
                conn = await asyncpg.connect(url)
                try:
                    await apply_migrations(conn)
                    await ensure_test_login(conn)
                finally:
                    await conn.close()
            yield url
        finally:
            if not os.environ.get("KEEP_TEST_DB"):
                await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


async def verify_everything(conn: asyncpg.Connection) -> DatabaseReport:
    """What `reddog audit verify --db` checks, in a read-only snapshot of its own as the command takes one."""
    async with conn.transaction(isolation="repeatable_read", readonly=True):
        return await verify_database(conn)


@contextlib.asynccontextmanager
async def verified_scratch_database(server_url: str) -> AsyncIterator[Database]:
    """A scratch database whose every audit chain, and every round against its records, must still verify when the
    tests using it are done."""
    async with scratch_database(server_url) as url:
        yield Database(owner_url=url, app_url=login_url(url, TEST_LOGIN, TEST_LOGIN_PASSWORD))
        conn = await asyncpg.connect(url)
        try:
            report = await verify_everything(conn)
            assert report.ok, (report.chains.faults[:5], report.rounds.differences[:5], report.games.differences[:5])
        finally:
            await conn.close()
