"""Probes for load balancers and orchestrators: live (the process answers) and ready (it can serve a round)."""

from __future__ import annotations

import asyncio
import functools

import asyncpg
from litestar import Response, get
from litestar.datastructures import State

from service.db.db_pool import acquire
from service.db.migrate import migration_files
from service.errors import unavailable

# A standby, or a server whose sessions default to read-only, answers every read and refuses every write.
READ_ONLY = "SELECT pg_catalog.pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on'"
READY_TIMEOUT = 2.0  # seconds a probe may wait for the database before calling the replica unready


@get("/health/live", include_in_schema=False)
async def live() -> dict[str, str]:
    """The process is up and its event loop turns; never touches the database, so a database outage restarts
    nothing."""
    return {"status": "ok"}


@get("/health/ready", include_in_schema=False)
async def ready(state: State) -> Response[dict[str, str]]:
    """Take traffic only when the database answers, takes writes and holds every migration this release ships."""
    try:
        applied, read_only = await _ask(state.pool)
    except (asyncpg.UndefinedTableError, asyncpg.InsufficientPrivilegeError):
        # No migration table yet, or one from before 006 granted the service's role SELECT on it.
        return Response({"status": "migrations pending"}, status_code=503)
    except Exception as exc:
        if not (unavailable(exc) or isinstance(exc, asyncpg.PostgresError | TimeoutError)):
            raise
        return Response({"status": "database unavailable"}, status_code=503)
    if read_only:  # a standby (a DATABASE_URL without target_session_attrs=read-write), or a primary set read-only
        return Response({"status": "no writable primary"}, status_code=503)
    if not shipped_versions() <= applied:
        return Response({"status": "migrations pending"}, status_code=503)
    return Response({"status": "ready"})


async def _ask(pool: asyncpg.Pool) -> tuple[set[str], bool]:
    """The applied migrations and whether the server only reads. A pooled connection the server dropped (a
    failover, a restart) fails its first use and is closed by it: the probe asks once more, on a fresh one."""
    for attempt in range(2):
        try:
            async with asyncio.timeout(READY_TIMEOUT), acquire(pool) as conn:
                applied = {r["version"] for r in await conn.fetch("SELECT version FROM schema_migrations")}
                return applied, bool(await conn.fetchval(READ_ONLY))
        except Exception as exc:
            if attempt or not unavailable(exc):
                raise
    raise AssertionError("unreachable")


@functools.cache
def shipped_versions() -> frozenset[str]:
    return frozenset(version for version, _ in migration_files())


handlers = [live, ready]
