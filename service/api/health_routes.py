"""Probes for load balancers and orchestrators: live (the process answers) and ready (it can serve a round)."""

from __future__ import annotations

import asyncio
import functools

import asyncpg
from litestar import Response, get
from litestar.datastructures import State

from service.db.db_pool import acquire
from service.db.migrate import migration_files

READY_TIMEOUT = 2.0  # seconds a probe may wait for the database before calling the replica unready


@get("/health/live", include_in_schema=False)
async def live() -> dict[str, str]:
    """The process is up and its event loop turns; never touches the database, so a database outage restarts
    nothing."""
    return {"status": "ok"}


@get("/health/ready", include_in_schema=False)
async def ready(state: State) -> Response[dict[str, str]]:
    """Take traffic only when the database answers and holds every migration this release ships."""
    try:
        async with asyncio.timeout(READY_TIMEOUT), acquire(state.pool) as conn:
            applied = {r["version"] for r in await conn.fetch("SELECT version FROM schema_migrations")}
    except (asyncpg.UndefinedTableError, asyncpg.InsufficientPrivilegeError):
        # No migration table yet, or one from before 006 granted the service's role SELECT on it.
        return Response({"status": "migrations pending"}, status_code=503)
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError):
        return Response({"status": "database unavailable"}, status_code=503)
    if not shipped_versions() <= applied:
        return Response({"status": "migrations pending"}, status_code=503)
    return Response({"status": "ready"})


@functools.cache
def shipped_versions() -> frozenset[str]:
    return frozenset(version for version, _ in migration_files())


handlers = [live, ready]
