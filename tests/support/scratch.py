"""A private database for tests that must see every row in it: sweeps count rounds, migrations race on it."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import asyncpg

from service.audit_verify import broken, verify_chains
from service.db.migrate import apply_migrations
from tests.support.database import fresh_database_name, with_database


@contextlib.asynccontextmanager
async def scratch_database(server_url: str, *, migrate: bool = True) -> AsyncIterator[str]:
    """Create a database on the test server (migrated unless asked not to), yield its URL, drop it afterwards."""
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
                finally:
                    await conn.close()
            yield url
        finally:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


@contextlib.asynccontextmanager
async def verified_scratch_database(server_url: str) -> AsyncIterator[str]:
    """A scratch database whose every audit chain must still verify when the tests using it are done."""
    async with scratch_database(server_url) as url:
        yield url
        conn = await asyncpg.connect(url)
        try:
            assert broken(await verify_chains(conn)) == {}
        finally:
            await conn.close()
