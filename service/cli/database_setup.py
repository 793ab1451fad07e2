"""Which PostgreSQL a command uses, and getting it ready: the configured one or an embedded server, migrated as its
owner; the settings read once, a bad one stopping the command in one line."""

from __future__ import annotations

import asyncio
import os
import secrets
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from service.settings import Settings, SettingsError, from_env


def settings_or_exit() -> Settings:
    try:
        return from_env()
    except SettingsError as exc:
        print(f"reddog: bad setting: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def database_url(settings: Settings) -> tuple[str, Any]:
    """The configured server, or an embedded one under the data dir; the handle keeps it running."""
    if settings.database_url:
        return settings.database_url, None
    return embedded_server(settings)


def embedded_server(settings: Settings) -> tuple[str, Any]:
    """An embedded server under the data dir, as its superuser (who owns the tables it migrates)."""
    from service.runtime import embedded

    print(f"DATABASE_URL is unset: starting an embedded PostgreSQL under {settings.data_dir}/pg", file=sys.stderr)
    return embedded.start(os.path.join(settings.data_dir, "pg"))


def dev_app_password(settings: Settings) -> str:
    """The embedded server's app login password: RD_APP_DB_PASSWORD, else one made once and kept in the data dir."""
    if settings.app_db_password:
        return settings.app_db_password
    path = Path(settings.data_dir, "app-db-password")
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.touch(mode=0o600)
        path.write_text(secrets.token_hex(24) + "\n", encoding="ascii")
    return path.read_text(encoding="ascii").strip()


async def migrate(url: str, app_login: tuple[str, str] | None = None) -> list[str]:
    import asyncpg

    from service.db.migrate import apply_migrations

    conn = await asyncpg.connect(url)
    try:
        return await apply_migrations(conn, app_login=app_login)
    finally:
        await conn.close()


def _where(url: str) -> str:
    """The URL without its user and password, to name the server in a message."""
    parts = urlsplit(url)
    host = f"{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}"
    return parts._replace(netloc=host).geturl()


def migrate_or_exit(url: str, app_login: tuple[str, str] | None = None) -> list[str]:
    """Apply the migrations; an unreachable or refusing database stops start-up with one clear line."""
    import asyncpg

    try:
        return asyncio.run(migrate(url, app_login))
    except (OSError, ValueError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        print(f"reddog: cannot migrate the database at {_where(url)}: {type(exc).__name__}: {exc}", file=sys.stderr)
        raise SystemExit(1) from None


def serving_url(settings: Settings) -> tuple[str, Any]:
    """DATABASE_URL, or the embedded server migrated as its owner and served as the app login (as in production)."""
    if settings.database_url:
        return settings.database_url, None
    from service.db.app_login import login_url

    owner_url, server = embedded_server(settings)
    password = dev_app_password(settings)
    migrate_or_exit(owner_url, (settings.app_db_user, password))
    return login_url(owner_url, settings.app_db_user, password), server


def check_role_or_exit(url: str, settings: Settings) -> None:
    """Refuse to serve, in one line, as a role that could rewrite the audit log (only a warning in development)."""
    import asyncpg

    from service.db.app_login import unsafe_role

    async def check() -> str | None:
        conn = await asyncpg.connect(url)
        try:
            return await unsafe_role(conn)
        finally:
            await conn.close()

    try:
        problem = asyncio.run(check())
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        print(f"reddog: cannot reach the database at {_where(url)}: {type(exc).__name__}: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    if problem is None:
        return
    if settings.development:
        print(f"reddog: warning: {problem}; allowed only because RD_ENV=development", file=sys.stderr)
        return
    print(
        f"reddog: refusing to serve: {problem}; set DATABASE_URL to a login role in reddog_app (docs/operations.md)",
        file=sys.stderr,
    )
    raise SystemExit(1)


def check_signing_key_or_exit(url: str, settings: Settings) -> None:
    """Refuse to serve, in one line, with a signing key other than the one the system chain last recorded (outside
    development; the start itself checks again under the chain's lock)."""
    import asyncpg

    from service.chains import key_continuity
    from service.db import system_sql

    async def check() -> str | None:
        conn = await asyncpg.connect(url)
        try:
            if not await system_sql.system_chain_exists(conn):
                return None  # not migrated yet: the start waits for the migrations, and checks then
            async with conn.transaction(isolation="repeatable_read", readonly=True):
                return await key_continuity.key_refusal(conn, settings)
        finally:
            await conn.close()

    if not key_continuity.enforced(settings):
        return
    try:
        problem = asyncio.run(check())
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        print(f"reddog: cannot reach the database at {_where(url)}: {type(exc).__name__}: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    if problem is not None:
        print(f"reddog: refusing to serve: {problem}", file=sys.stderr)
        raise SystemExit(1)
