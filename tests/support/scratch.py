"""Private databases for tests: migrated by their owner, served to the app under test as a login in the app role."""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator

import asyncpg
import msgspec

from service.chains.audit_verify import DatabaseReport, verify_database
from service.db.app_login import login_url
from service.db.migrate import apply_migrations
from service.role_names import default_app_role
from tests.support.database import fresh_database_name, with_database

# The tests' app login. Roles belong to the whole server, so it is made once per server and shared by every run
# (and every engineer's run) on it; it is never altered afterwards, so concurrent runs cannot collide on it.
TEST_LOGIN = "reddog_test_app"
TEST_LOGIN_PASSWORD = "reddog-test-app"
# The scratch databases' app role (RD_APP_DB_ROLE), shared the same way: one role made once per server, not one left
# behind by each database a run makes. Tests of one role per deployment make and drop their own.
TEST_APP_ROLE = "reddog_test_app_role"


class Database(msgspec.Struct, frozen=True, kw_only=True):
    """One test database, reached two ways."""

    owner_url: str  # the server's superuser, who ran the migrations: for a test's own setup and inspection
    app_url: str  # a login in the app role and nothing more: what every app under test connects as


async def ensure_test_login(conn: asyncpg.Connection) -> None:
    """The shared test login, a member of the test app role (what an operator creates by hand, docs/operations.md);
    the migrations have made the role."""
    member = await conn.fetchval(
        "SELECT pg_has_role(rolname, $2, 'MEMBER') FROM pg_roles WHERE rolname = $1", TEST_LOGIN, TEST_APP_ROLE
    )
    if member:
        return
    try:
        if member is None:
            await conn.execute(
                f"CREATE ROLE {TEST_LOGIN} LOGIN PASSWORD '{TEST_LOGIN_PASSWORD}' IN ROLE {TEST_APP_ROLE}"
            )
        else:
            await conn.execute(f"GRANT {TEST_APP_ROLE} TO {TEST_LOGIN}")
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
                    await apply_migrations(conn, app_role=TEST_APP_ROLE)
                    await ensure_test_login(conn)
                finally:
                    await conn.close()
            yield url
        finally:
            if not os.environ.get("KEEP_TEST_DB"):
                await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                # The role `reddog migrate` makes for a database migrated without RD_APP_DB_ROLE: with its only
                # privileges gone with the database, nothing is left of this database on the server.
                await admin.execute(f"DROP ROLE IF EXISTS {default_app_role(name)}")
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
