"""Apply the ordered .sql migrations once each, under an advisory lock so replicas can start together."""

from __future__ import annotations

import hashlib
from importlib import resources

from audit.system_events import MigrationApplied
from service.clock import system_clock
from service.db import Conn, app_role_sql, system_sql
from service.db.app_login import ensure_app_login
from service.role_names import SHARED_APP_ROLE

LOCK_KEY = 0x5245_4444_4F47  # "REDDOG": one advisory lock for every replica's migration run


def migration_files() -> list[tuple[str, str]]:
    """(version, sql) in order; the version is the file name without .sql."""
    folder = resources.files("service.db") / "migrations"
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".sql")), key=lambda f: f.name)
    return [(f.name.removesuffix(".sql"), f.read_text(encoding="utf-8")) for f in files]


async def apply_migrations(
    conn: Conn, *, app_role: str | None = None, app_login: tuple[str, str | None] | None = None
) -> list[str]:
    """Apply what is missing; returns the versions applied now. The grants the files make to reddog_app end up on
    the deployment's own app role (`app_role`, see app_role_sql.chosen_app_role). With `app_login` (user, password),
    then create or update the service's login in that role; with (user, None), only take along a login that served
    through the shared reddog_app. All under one lock, in one transaction."""
    await conn.execute("SELECT pg_advisory_lock($1)", LOCK_KEY)
    try:
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        done = {r["version"] for r in await conn.fetch("SELECT version FROM schema_migrations")}
        ran = [(version, sql) for version, sql in migration_files() if version not in done]
        async with conn.transaction():
            await _apply_as_the_app_role(conn, await app_role_sql.chosen_app_role(conn, app_role), ran, app_login)
        if ran and await system_sql.system_chain_exists(conn):  # recorded once the system chain is there (004)
            now = system_clock()
            events = [MigrationApplied(version=v, sha256=_sha256(sql), applied_at=now) for v, sql in ran]
            await system_sql.append_now(conn, events, now)
        return [version for version, _ in ran]
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1)", LOCK_KEY)


async def _apply_as_the_app_role(
    conn: Conn, role: str, ran: list[tuple[str, str]], app_login: tuple[str, str | None] | None
) -> None:
    """Run the pending files with the app role's grants back on reddog_app, which the files name, then move them all
    to `role` and record it; a migration never commits a grant to reddog_app, which every database shares."""
    recorded = await app_role_sql.recorded_app_role(conn)
    if ran and recorded is not None:
        await app_role_sql.move_privileges(conn, recorded, SHARED_APP_ROLE)
    for version, sql in ran:
        await conn.execute(sql)
        await conn.execute("INSERT INTO schema_migrations (version) VALUES ($1)", version)
    await app_role_sql.ensure_role(conn, role)
    await app_role_sql.move_privileges(conn, SHARED_APP_ROLE, role)
    await app_role_sql.record_app_role(conn, role)
    if app_login is None:
        return
    user, password = app_login
    if password is not None:
        await ensure_app_login(conn, user, password)
    elif await app_role_sql.served_through_shared_role(conn, user, role):
        await app_role_sql.make_member(conn, user)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
