"""Two deployments on one PostgreSQL server: each migrated into its own database with its own login, neither login
holds any privilege on the other's tables; and a deployment still on the shared reddog_app of earlier releases moves
to a role of its own through `reddog migrate`, which takes the old grants away.

Roles belong to the whole server, so these tests run on a PostgreSQL cluster of their own, deleted afterwards."""

from __future__ import annotations

import asyncio
import os
import secrets
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from typing import Any

import asyncpg
import pytest

from service.db.app_login import login_url
from service.db.migrate import apply_migrations, migration_files
from service.role_names import RoleNameError, default_app_role
from tests.conftest import make_settings
from tests.support.database import ROOT, with_database
from tests.support.live import live

# What the service may do, table by table, in the words of docs/operations.md and the migrations that grant it:
# the audit log and checkpoints appended and read, rounds and tables never deleted, keys and failure counters purged.
LEAST_PRIVILEGE = {
    "game_tables": {"SELECT", "INSERT", "UPDATE"},
    "rounds": {"SELECT", "INSERT", "UPDATE"},
    "idempotency_keys": {"SELECT", "INSERT", "UPDATE", "DELETE"},
    "audit_log": {"SELECT", "INSERT"},  # a view since migration 024, over the two tables that store the records
    "audit_rows": {"SELECT", "INSERT"},
    "audit_batches": {"SELECT", "INSERT"},
    "schema_migrations": {"SELECT"},
    "audit_checkpoints": {"SELECT", "INSERT"},
    "system_chain": {"SELECT", "UPDATE"},
    "auth_failures": {"SELECT", "INSERT", "UPDATE", "DELETE"},
    "round_figures": {"SELECT", "INSERT"},  # and UPDATE of its running figures' columns only (009)
    "inbetween_games": {"SELECT", "INSERT", "UPDATE"},
    "auth_failure_quota": {"SELECT", "UPDATE"},
    "app_role": set(),
}
EVERY_PRIVILEGE = ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER")


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A PostgreSQL of this module's own: its superuser's URL."""
    from service.runtime import embedded

    folder = tempfile.mkdtemp(prefix="reddog-test-roles-")  # one the server's own system user can reach
    url, server = embedded.start(folder, cleanup="delete")
    try:
        yield url
    finally:
        server.cleanup()


async def admin_run(cluster: str, *statements: str) -> None:
    conn = await asyncpg.connect(cluster)
    try:
        for statement in statements:
            await conn.execute(statement)
    finally:
        await conn.close()


async def new_deployment(cluster: str, name: str, *, createrole: bool = True) -> str:
    """A database owned by an owner of its own, who may create roles unless told (docs/operations.md); its URL."""
    may = "CREATEROLE" if createrole else "NOCREATEROLE"
    await admin_run(cluster, f"CREATE ROLE {name}_owner LOGIN {may}", f"CREATE DATABASE {name} OWNER {name}_owner")
    return login_url(with_database(cluster, name), f"{name}_owner", "unused: the test cluster trusts local logins")


async def migrate(owner_url: str, **options: Any) -> list[str]:
    conn = await asyncpg.connect(owner_url)
    try:
        return await apply_migrations(conn, **options)
    finally:
        await conn.close()


@pytest.fixture
def unique() -> str:
    return secrets.token_hex(3)


async def privileges(conn: asyncpg.Connection, role: str) -> dict[str, set[str]]:
    """Every privilege `role` holds, by table, over every table in the database (whatever later migrations add)."""
    tables = [
        r["relname"]
        for r in await conn.fetch(
            "SELECT relname FROM pg_class WHERE relkind IN ('r', 'v') AND relnamespace = 'public'::regnamespace"
        )
    ]
    found: dict[str, set[str]] = {}
    for table in tables:
        held = {
            p for p in EVERY_PRIVILEGE if await conn.fetchval("SELECT has_table_privilege($1, $2, $3)", role, table, p)
        }
        if await conn.fetchval("SELECT has_any_column_privilege($1, $2, 'UPDATE')", role, table):
            held.add("UPDATE" if "UPDATE" in held else "UPDATE (columns)")
        found[table] = held
    return found


async def held_on_service_tables(conn: asyncpg.Connection, role: str) -> dict[str, set[str]]:
    """`privileges` on the tables LEAST_PRIVILEGE names that the database has (a later migration's own tests state
    what its tables grant; what another deployment's login holds is checked on every table)."""
    found = await privileges(conn, role)
    return {table: found[table] for table in LEAST_PRIVILEGE if table in found}


def granted(found: dict[str, set[str]]) -> dict[str, set[str]]:
    """The tables on which something is held."""
    return {table: held for table, held in found.items() if held}


async def acl_entries(conn: asyncpg.Connection, role: str) -> int:
    """How many privileges `role` was granted on this database's tables and their columns."""
    count: int = await conn.fetchval(
        "SELECT (SELECT count(*) FROM pg_class c, aclexplode(c.relacl) a WHERE a.grantee = to_regrole($1))"
        " + (SELECT count(*) FROM pg_attribute t, aclexplode(t.attacl) a WHERE a.grantee = to_regrole($1))",
        role,
    )
    return count


def least_privilege_with_columns() -> dict[str, set[str]]:
    return {**LEAST_PRIVILEGE, "round_figures": {*LEAST_PRIVILEGE["round_figures"], "UPDATE (columns)"}}


async def refused_writes(conn: asyncpg.Connection) -> list[str]:
    """The statements of a login trying to write another deployment's rounds and audit log that were refused."""
    refused = []
    for statement in ("INSERT INTO rounds DEFAULT VALUES", "INSERT INTO audit_log DEFAULT VALUES"):
        try:
            await conn.execute(statement)
        except asyncpg.exceptions.InsufficientPrivilegeError:
            refused.append(statement)
    return refused


async def test_two_deployments_on_one_server_each_with_its_own_login_hold_no_privilege_on_the_others_tables(
    cluster: str, unique: str
) -> None:
    owners = {name: await new_deployment(cluster, name) for name in (f"red_a_{unique}", f"red_b_{unique}")}
    logins = {name: f"{name}_login" for name in owners}
    for name, owner_url in owners.items():
        await migrate(owner_url, app_login=(logins[name], secrets.token_hex(16)))
    for name, owner_url in owners.items():
        (other,) = set(owners) - {name}
        own = await asyncpg.connect(owner_url)
        as_other = await asyncpg.connect(login_url(owner_url, logins[other], "trusted"))
        try:
            assert await own.fetchval("SELECT role_name FROM app_role") == f"{name}_app_role"
            assert await held_on_service_tables(own, f"{name}_app_role") == least_privilege_with_columns()
            assert await held_on_service_tables(own, logins[name]) == least_privilege_with_columns()
            assert await acl_entries(own, "reddog_app") == 0
            nothing = await privileges(as_other, logins[other])
            assert set(nothing) >= set(LEAST_PRIVILEGE)  # every service table was looked at
            assert granted(nothing) == {}
            assert await refused_writes(as_other) == [
                "INSERT INTO rounds DEFAULT VALUES",
                "INSERT INTO audit_log DEFAULT VALUES",
            ]
        finally:
            await as_other.close()
            await own.close()
    # Each login serves its own deployment: a round played as it, through the real app.
    for name, owner_url in owners.items():
        async with live(make_settings(login_url(owner_url, logins[name], "trusted"))) as server:
            table = await server.api.table()
            await server.api.ok(
                "POST", f"/v1/tables/{table['table_id']}/rounds", {"bets": [{"player_id": "p", "ante": 5}]}
            )


async def as_before_migration_013(cluster: str, name: str, *, createrole: bool = True) -> str:
    """A deployment as an earlier release left it: the files up to 012 applied (as they ran then), reddog_app made by
    the administrator with the login in it (the old docs/operations.md). The owner's URL."""
    await admin_run(cluster, "DO $$ BEGIN CREATE ROLE reddog_app NOLOGIN; EXCEPTION WHEN duplicate_object THEN END $$")
    owner_url = await new_deployment(cluster, name, createrole=createrole)
    conn = await asyncpg.connect(owner_url)
    try:
        await conn.execute(
            "CREATE TABLE schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        for version, sql in migration_files():
            if version < "013":
                async with conn.transaction():
                    await conn.execute(sql)
                    await conn.execute("INSERT INTO schema_migrations (version) VALUES ($1)", version)
    finally:
        await conn.close()
    await admin_run(cluster, f"CREATE ROLE {name}_login LOGIN IN ROLE reddog_app")
    return owner_url


def reddog_migrate(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "service.cli.cli", "migrate"],
        env={**os.environ, "DATABASE_URL": "postgresql://nobody@127.0.0.1:1/unused", **env},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


async def member_of(conn: asyncpg.Connection, login: str, role: str) -> bool:
    found: bool = await conn.fetchval(
        "SELECT EXISTS (SELECT FROM pg_auth_members WHERE member = to_regrole($1) AND roleid = to_regrole($2))",
        login,
        role,
    )
    return found


async def test_a_deployment_on_the_shared_reddog_app_moves_to_its_own_role_through_migrate_which_revokes_the_old_grants(
    cluster: str, unique: str
) -> None:
    old, still_old = f"red_old_{unique}", f"red_older_{unique}"
    owners = {name: await as_before_migration_013(cluster, name) for name in (old, still_old)}
    own = await asyncpg.connect(owners[old])
    try:
        # The fault being fixed: the other deployment's login may write this one's rounds.
        later = ("app_role", "audit_rows", "audit_batches")  # made by migrations 013 and 024
        before_013 = {table: held for table, held in least_privilege_with_columns().items() if table not in later}
        assert await held_on_service_tables(own, f"{still_old}_login") == before_013
        done = await asyncio.to_thread(
            reddog_migrate, {"MIGRATE_DATABASE_URL": owners[old], "RD_APP_DB_USER": f"{old}_login"}
        )
        assert done.returncode == 0, done.stderr
        assert "013_app_role_per_deployment" in done.stdout
        assert await own.fetchval("SELECT role_name FROM app_role") == f"{old}_app_role"
        assert await acl_entries(own, "reddog_app") == 0
        assert await held_on_service_tables(own, f"{old}_app_role") == least_privilege_with_columns()
        assert await member_of(own, f"{old}_login", f"{old}_app_role")
        assert await held_on_service_tables(own, f"{old}_login") == least_privilege_with_columns()
        shut_out = await privileges(own, f"{still_old}_login")
        assert granted(shut_out) == {}
        # reddog_app stays, for the database still on it: this login leaves it once nothing anywhere is granted to it.
        assert await member_of(own, f"{old}_login", "reddog_app")
    finally:
        await own.close()
    as_other = await asyncpg.connect(login_url(owners[old], f"{still_old}_login", "trusted"))
    try:
        assert await refused_writes(as_other) == [
            "INSERT INTO rounds DEFAULT VALUES",
            "INSERT INTO audit_log DEFAULT VALUES",
        ]
    finally:
        await as_other.close()
    # The last database on reddog_app moves too (as the server's superuser, who may take a login out of reddog_app,
    # with a password: the login made by migrate). reddog_app then holds nothing anywhere, and that login leaves it.
    superuser = with_database(cluster, still_old)
    await migrate(superuser, app_login=(f"{still_old}_login", secrets.token_hex(16)))
    conn = await asyncpg.connect(superuser)
    try:
        assert await acl_entries(conn, "reddog_app") == 0
        assert await conn.fetchval("SELECT count(*) FROM pg_shdepend WHERE refobjid = to_regrole('reddog_app')") == 0
        assert not await member_of(conn, f"{still_old}_login", "reddog_app")
        assert await member_of(conn, f"{still_old}_login", f"{still_old}_app_role")
        shut_out = await privileges(conn, f"{old}_login")
        assert granted(shut_out) == {}
        assert await conn.fetchval("SELECT to_regrole('reddog_app') IS NOT NULL")  # the role itself stays
    finally:
        await conn.close()


async def test_an_owner_that_may_not_create_roles_moves_once_an_administrator_made_the_role_as_deploy_readme_says(
    cluster: str, unique: str
) -> None:
    name = f"red_compose_{unique}"  # a Compose volume of an earlier release: its roles made by init-roles.sh
    owner_url = await as_before_migration_013(cluster, name, createrole=False)
    env = {"MIGRATE_DATABASE_URL": owner_url, "RD_APP_DB_USER": f"{name}_login", "RD_APP_DB_ROLE": f"{name}_app_role"}
    refused = await asyncio.to_thread(reddog_migrate, env)
    assert refused.returncode == 1
    assert f"run CREATE ROLE {name}_app_role NOLOGIN and GRANT {name}_app_role TO the service's login" in refused.stderr
    conn = await asyncpg.connect(owner_url)
    try:
        assert await conn.fetchval("SELECT to_regclass('app_role')") is None  # nothing applied
        await admin_run(cluster, f"CREATE ROLE {name}_app_role NOLOGIN", f"GRANT {name}_app_role TO {name}_login")
        done = await asyncio.to_thread(reddog_migrate, env)
        assert done.returncode == 0, done.stderr
        assert await acl_entries(conn, "reddog_app") == 0
        assert await held_on_service_tables(conn, f"{name}_login") == least_privilege_with_columns()
    finally:
        await conn.close()


async def test_migrate_refuses_to_make_another_deployments_login_its_own_and_leaves_its_password(
    cluster: str, unique: str
) -> None:
    first, second = [await new_deployment(cluster, f"red_{n}_{unique}") for n in ("one", "two")]
    login = f"red_shared_{unique}"
    await migrate(first, app_login=(login, "the-first-deployments-password"))
    admin = await asyncpg.connect(cluster)
    try:
        stored = await admin.fetchval("SELECT rolpassword FROM pg_authid WHERE rolname = $1", login)
        with pytest.raises(asyncpg.exceptions.InsufficientPrivilegeError, match=f"member of red_one_{unique}_app_role"):
            await migrate(second, app_login=(login, "the-second-deployments-password"))
        assert await admin.fetchval("SELECT rolpassword FROM pg_authid WHERE rolname = $1", login) == stored
        assert not await member_of(admin, login, f"red_two_{unique}_app_role")
    finally:
        await admin.close()
    second_db = await asyncpg.connect(second)
    try:
        assert await second_db.fetchval("SELECT to_regclass('rounds')") is None  # one transaction: nothing applied
    finally:
        await second_db.close()


async def test_a_database_whose_name_makes_no_safe_role_is_refused_in_one_line_until_rd_app_db_role_names_one(
    cluster: str, unique: str
) -> None:
    name = f"Red-Dog-{unique}"
    await admin_run(cluster, f'CREATE DATABASE "{name}"')
    url = with_database(cluster, name)
    done = await asyncio.to_thread(reddog_migrate, {"MIGRATE_DATABASE_URL": url})
    assert done.returncode == 1
    (line,) = done.stderr.strip().splitlines()
    assert f"the database {name!r} gives no safe app role name" in line
    assert "set RD_APP_DB_ROLE" in line
    done = await asyncio.to_thread(reddog_migrate, {"MIGRATE_DATABASE_URL": url, "RD_APP_DB_ROLE": f"red_dog_{unique}"})
    assert done.returncode == 0, done.stderr
    conn = await asyncpg.connect(url)
    try:
        assert await conn.fetchval("SELECT role_name FROM app_role") == f"red_dog_{unique}"
        # Another role later is refused: the login serving through the recorded one would lose every privilege.
        with pytest.raises(RoleNameError, match=f"this database's app role is red_dog_{unique}"):
            await apply_migrations(conn, app_role=f"red_dog_other_{unique}")
    finally:
        await conn.close()


def test_the_default_app_role_is_the_database_name_and_app_role_never_the_shared_reddog_app() -> None:
    assert default_app_role("reddog") == "reddog_app_role"
    assert default_app_role("casino_eu") == "casino_eu_app_role"
    for unsafe in ("Red-Dog", "red dog", "x" * 55, 'a"; DROP ROLE b; --'):
        with pytest.raises(RoleNameError, match="set RD_APP_DB_ROLE"):
            default_app_role(unsafe)
    assert default_app_role("x" * 54) == "x" * 54 + "_app_role"  # 63 bytes, PostgreSQL's longest name


async def test_a_later_migrations_grants_and_revokes_to_reddog_app_land_on_the_deployments_own_role(
    cluster: str, unique: str
) -> None:
    from service.db.migrate import _apply_as_the_app_role  # the step every pending file goes through

    name = f"red_later_{unique}"
    owner_url = await new_deployment(cluster, name)
    await migrate(owner_url)
    later = (
        "999_later",
        "REVOKE INSERT ON audit_checkpoints FROM reddog_app; CREATE TABLE later (x int);"
        " GRANT SELECT ON later TO reddog_app",
    )  # as a file written like 004 and 007 would be
    conn = await asyncpg.connect(owner_url)
    try:
        transaction = conn.transaction()
        await transaction.start()
        try:
            await _apply_as_the_app_role(conn, f"{name}_app_role", [later], None)
            found = await privileges(conn, f"{name}_app_role")
            assert found["audit_checkpoints"] == {"SELECT"}
            assert found["later"] == {"SELECT"}
            assert await acl_entries(conn, "reddog_app") == 0
        finally:
            await transaction.rollback()  # the made-up migration is not kept
        assert await conn.fetchval("SELECT to_regclass('later')") is None
    finally:
        await conn.close()
