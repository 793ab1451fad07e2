"""Which PostgreSQL a command uses, and getting it ready: the configured one or an embedded server, migrated as its
owner; the settings read once, a bad one stopping the command in one line."""

from __future__ import annotations

import asyncio
import os
import secrets
import sys
import time
from pathlib import Path
from typing import Any, NoReturn
from urllib.parse import urlsplit

from service.observability.log_streams import say
from service.settings import Settings, SettingsError, from_env


def settings_or_exit() -> Settings:
    try:
        return from_env()
    except SettingsError as exc:
        say("bad_setting", f"reddog: bad setting: {exc}", level="error")
        raise SystemExit(2) from None


def database_url(settings: Settings) -> tuple[str, Any]:
    """The configured server, or an embedded one under the data dir; the handle keeps it running."""
    if settings.database_url:
        return settings.database_url, None
    return embedded_server(settings)


def embedded_server(settings: Settings) -> tuple[str, Any]:
    """An embedded server under the data dir, as its superuser (who owns the tables it migrates)."""
    from service.runtime import embedded

    say("embedded_database", f"DATABASE_URL is unset: starting an embedded PostgreSQL under {settings.data_dir}/pg")
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


async def migrate(
    url: str, app_login: tuple[str, str | None] | None = None, app_role: str | None = None, wait_seconds: float = 0
) -> list[str]:
    from service.db.migrate import apply_migrations

    conn = await connect_waiting(url, wait_seconds)
    try:
        return await apply_migrations(conn, app_login=app_login, app_role=app_role)
    finally:
        await conn.close()


async def connect_waiting(url: str, wait_seconds: float) -> Any:
    """Connect, trying again each second for up to `wait_seconds` while the server is not there yet (no address, no
    listener, still starting), as a pod's database may not be on first apply; a refusal is never waited on."""
    import asyncpg

    deadline, waiting = time.monotonic() + wait_seconds, False
    while True:
        try:
            return await asyncpg.connect(url, timeout=10)
        except (OSError, asyncpg.CannotConnectNowError) as exc:
            if time.monotonic() + 1 > deadline:
                if waiting:
                    print(f"reddog: gave up after waiting {wait_seconds:g} s for the database", file=sys.stderr)
                raise
            if not waiting:
                waiting = True
                print(
                    f"reddog: waiting up to {wait_seconds:g} s for the database at {_where(url)}"
                    f" ({type(exc).__name__}: {exc})",
                    file=sys.stderr,
                )
            await asyncio.sleep(1)


def _where(url: str) -> str:
    """The URL without its user and password, to name the server in a message."""
    parts = urlsplit(url)
    host = f"{parts.hostname or ''}{f':{parts.port}' if parts.port else ''}"
    return parts._replace(netloc=host).geturl()


def _error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _unreachable(url: str, exc: BaseException) -> NoReturn:
    say("database_unreachable", f"reddog: cannot reach the database at {_where(url)}: {_error(exc)}", level="error")
    raise SystemExit(1) from None


def migrate_or_exit(
    url: str, app_login: tuple[str, str | None] | None = None, app_role: str | None = None, wait_seconds: float = 0
) -> list[str]:
    """Apply the migrations; a database unreachable (for `wait_seconds`) or refusing stops the command in one line."""
    import asyncpg

    try:
        return asyncio.run(migrate(url, app_login, app_role, wait_seconds))
    except (OSError, ValueError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        say("cannot_migrate", f"reddog: cannot migrate the database at {_where(url)}: {_error(exc)}", level="error")
        raise SystemExit(1) from None


def serving_url(settings: Settings) -> tuple[str, Any]:
    """DATABASE_URL, or the embedded server migrated as its owner and served as the app login (as in production)."""
    if settings.database_url:
        return settings.database_url, None
    from service.db.app_login import login_url

    owner_url, server = embedded_server(settings)
    password = dev_app_password(settings)
    migrate_or_exit(owner_url, (settings.app_db_user, password), settings.app_db_role)
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
        _unreachable(url, exc)
    if problem is None:
        return
    if settings.development:
        allowed = f"reddog: warning: {problem}; allowed only because RD_ENV=development"
        say("unsafe_role_allowed", allowed, level="warning")
        return
    hint = "set DATABASE_URL to a login in the app role (docs/operations.md)"
    say("refusing_to_serve", f"reddog: refusing to serve: {problem}; {hint}", level="error")
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
        _unreachable(url, exc)
    if problem is not None:
        say("refusing_to_serve", f"reddog: refusing to serve: {problem}", level="error")
        raise SystemExit(1)
