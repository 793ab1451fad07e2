"""The deployment's own app role in its database: which it is, making it, and moving the migrations' grants onto it
(migration 013's functions), so no other deployment's login on the same server holds a privilege here."""

from __future__ import annotations

import asyncpg

from service.db import Conn
from service.role_names import SHARED_APP_ROLE, RoleNameError, app_role_problem, default_app_role


async def recorded_app_role(conn: Conn) -> str | None:
    """The app role `reddog migrate` last recorded here; None before migration 013 (the shared reddog_app then)."""
    if await conn.fetchval("SELECT to_regclass('app_role')") is None:
        return None
    name: str | None = await conn.fetchval("SELECT role_name FROM app_role")
    return name


async def chosen_app_role(conn: Conn, configured: str | None) -> str:
    """RD_APP_DB_ROLE when set, else the role recorded here, else `<database>_app_role`. Refused: an unsafe name, and
    a role other than the recorded one (its login would lose every privilege at once)."""
    recorded = await recorded_app_role(conn)
    if configured is not None and recorded is not None and configured != recorded:
        raise RoleNameError(
            f"RD_APP_DB_ROLE is {configured} but this database's app role is {recorded}: unset it, or set it to"
            f" {recorded} (docs/operations.md says how to move a deployment to another role by hand)"
        )
    name = configured or recorded
    if name is None:
        return default_app_role(await conn.fetchval("SELECT current_database()"))
    if problem := app_role_problem(name):
        raise RoleNameError(f"RD_APP_DB_ROLE: {problem}")
    return name


async def ensure_role(conn: Conn, role: str) -> None:
    """Create the app role (no login) unless an administrator already has; say what to run when we may not."""
    if await conn.fetchval("SELECT to_regrole($1)", role) is not None:
        return
    try:
        async with conn.transaction():  # a savepoint: the race below must not end the migration's transaction
            await conn.execute(f"CREATE ROLE {role} NOLOGIN")  # a checked name (role_names.ROLE_NAME)
    except (asyncpg.exceptions.DuplicateObjectError, asyncpg.exceptions.UniqueViolationError):
        pass  # roles belong to the whole server: another database's migration made it at the same moment
    except asyncpg.exceptions.InsufficientPrivilegeError:
        who = await conn.fetchval("SELECT current_user")
        raise RoleNameError(
            f"the app role {role} does not exist and {who} may not create it: as an administrator, run"
            f" CREATE ROLE {role} NOLOGIN and GRANT {role} TO the service's login (docs/operations.md)"
        ) from None


async def move_privileges(conn: Conn, from_role: str, to_role: str) -> None:
    """Every privilege `from_role` holds in this database's schema becomes `to_role`'s alone (migration 013)."""
    await conn.execute("SELECT reddog_move_privileges($1, $2)", from_role, to_role)


async def record_app_role(conn: Conn, role: str) -> None:
    await conn.execute(
        "INSERT INTO app_role (role_name) VALUES ($1) ON CONFLICT (one) DO UPDATE SET role_name = EXCLUDED.role_name",
        role,
    )


async def served_through_shared_role(conn: Conn, login: str, role: str) -> bool:
    """Whether `login` is a member of the shared reddog_app of earlier releases, whose grants here just moved to
    `role`, and not yet of `role`: a deployment moving to its own role takes its login along."""
    moving: bool = await conn.fetchval(
        "SELECT pg_has_role($1, $2, 'MEMBER') AND NOT pg_has_role($1, $3, 'MEMBER') FROM pg_roles WHERE rolname = $1",
        login,
        SHARED_APP_ROLE,
        role,
    )
    return bool(moving)


async def make_member(conn: Conn, login: str) -> None:
    """`login` becomes a member of the recorded app role, refused when it could do more (migration 013)."""
    await conn.execute("SELECT reddog_app_member($1)", login)
