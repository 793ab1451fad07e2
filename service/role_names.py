"""The names of the service's database roles: one rule for a safe name, and each deployment's own app role."""

from __future__ import annotations

import re

# Written into GRANT and CREATE ROLE statements unquoted: lowercase letters, digits and _, at most 63 bytes.
ROLE_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")
# What every migration file grants to, in whichever database it runs. Before 013 it was the service's role in every
# database of a server at once; now `reddog migrate` moves its grants onto the deployment's own role.
SHARED_APP_ROLE = "reddog_app"
APP_ROLE_SUFFIX = "_app_role"  # `<database>_app_role`: for the usual database `reddog`, never reddog_app itself


class RoleNameError(ValueError):
    """A role name that cannot be used; the message says why and what to set."""


def role_name_problem(name: str) -> str | None:
    """Why `name` cannot be a role name written into SQL unquoted, or None when it can."""
    if ROLE_NAME.fullmatch(name):
        return None
    return f"a PostgreSQL role name of lowercase letters, digits and _ (at most 63), got {name!r}"


def app_role_problem(name: str) -> str | None:
    """Why `name` cannot be a deployment's app role, or None when it can."""
    if name == SHARED_APP_ROLE:
        return f"{SHARED_APP_ROLE} is what every database's migrations grant to: name a role of this deployment's own"
    return role_name_problem(name)


def default_app_role(database: str) -> str:
    """The app role of a deployment that names none: its database's name and `_app_role`, refused when that is no
    safe role name (a database called `Red-Dog`, or one over 54 characters) rather than quoted or cut."""
    name = f"{database}{APP_ROLE_SUFFIX}"
    if role_name_problem(name) is not None:
        raise RoleNameError(
            f"the database {database!r} gives no safe app role name ({name!r}): set RD_APP_DB_ROLE to one of lowercase"
            " letters, digits and _ (at most 63)"
        )
    return name
