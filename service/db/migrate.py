"""Apply the ordered .sql migrations once each, under an advisory lock so replicas can start together."""

from __future__ import annotations

import hashlib
from importlib import resources

from audit.system_events import MigrationApplied
from service.clock import system_clock
from service.db import Conn, system_sql
from service.db.app_login import ensure_app_login

LOCK_KEY = 0x5245_4444_4F47  # "REDDOG": one advisory lock for every replica's migration run


def migration_files() -> list[tuple[str, str]]:
    """(version, sql) in order; the version is the file name without .sql."""
    folder = resources.files("service.db") / "migrations"
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".sql")), key=lambda f: f.name)
    return [(f.name.removesuffix(".sql"), f.read_text(encoding="utf-8")) for f in files]


async def apply_migrations(conn: Conn, *, app_login: tuple[str, str] | None = None) -> list[str]:
    """Apply what is missing; returns the versions applied now. With `app_login` (user, password), then create or
    update the service's login role in reddog_app, under the same lock."""
    await conn.execute("SELECT pg_advisory_lock($1)", LOCK_KEY)
    try:
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        done = {r["version"] for r in await conn.fetch("SELECT version FROM schema_migrations")}
        applied, ran = [], []
        for version, sql in migration_files():
            if version in done:
                continue
            async with conn.transaction():
                await conn.execute(sql)
                await conn.execute("INSERT INTO schema_migrations (version) VALUES ($1)", version)
            applied.append(version)
            ran.append((version, sql))
        if ran and await system_sql.system_chain_exists(conn):  # recorded once the system chain is there (004)
            now = system_clock()
            events = [MigrationApplied(version=v, sha256=_sha256(sql), applied_at=now) for v, sql in ran]
            await system_sql.append_now(conn, events, now)
        if app_login is not None:
            await ensure_app_login(conn, *app_login)
        return applied
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1)", LOCK_KEY)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
