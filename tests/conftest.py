"""Fixtures shared by the integration and API tests: one fresh database per run, one operator per test."""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import AsyncIterator, Iterator
from typing import Any

import asyncpg
import pytest
from hypothesis import settings as hypothesis_settings
from litestar import Litestar
from litestar.testing import AsyncTestClient

from audit.signed_note import KeyPair, generate_key
from service.app import create_app, rewire
from service.settings import FriendsSettings, Settings
from tests.support.client import Signed
from tests.support.clock import ManualClock
from tests.support.database import server_url
from tests.support.scratch import Database, verified_scratch_database

_SERVER = pytest.StashKey[contextlib.ExitStack]()

# No per-example deadline: on a shared 2-core machine a slow example says nothing about the code, and speed is
# measured by the benchmarks, not by tests (a 200 ms deadline failed test_audit_merkle once under load).
hypothesis_settings.register_profile("reddog", deadline=None)
hypothesis_settings.load_profile("reddog")


def pytest_configure(config: pytest.Config) -> None:
    """Start the run's server once, in the process that starts pytest-xdist's workers (or runs alone), and hand its
    URL to them through the environment: every worker then shares one server instead of racing to start its own."""
    if hasattr(config, "workerinput") or os.environ.get("TEST_DATABASE_URL") or os.environ.get("DATABASE_URL"):
        return
    stack = contextlib.ExitStack()
    os.environ["TEST_DATABASE_URL"] = stack.enter_context(server_url())
    config.stash[_SERVER] = stack


def pytest_unconfigure(config: pytest.Config) -> None:
    stack = config.stash.get(_SERVER, None)
    if stack is not None:
        os.environ.pop("TEST_DATABASE_URL", None)
        stack.close()


@pytest.fixture(scope="session")
def database_server() -> Iterator[str]:
    with server_url() as url:
        yield url


@pytest.fixture(scope="session")
async def database(database_server: str) -> AsyncIterator[Database]:
    """A fresh database for this run, migrated by its owner; every audit chain in it, and every round against its
    records, must verify when the run ends. A module with its own database overrides this fixture."""
    async with verified_scratch_database(database_server) as database:
        yield database


@pytest.fixture(scope="module")  # as wide as a module's own `database` may be
def database_url(database: Database) -> str:
    """What the app under test connects as: a login in the app role, not the owner, so a missing grant fails a test."""
    return database.app_url


@pytest.fixture
async def db(database: Database) -> AsyncIterator[asyncpg.Connection]:
    """The test's own view of the database, as its owner: to set a scene and to inspect what the app did."""
    conn = await asyncpg.connect(database.owner_url)
    yield conn
    await conn.close()


AUDIT_KEY: KeyPair = generate_key("reddog.test/audit", secrets.token_bytes(32))  # this run's checkpoint key


def make_settings(database_url: str, **overrides: Any) -> Settings:
    """Settings with a fresh operator, so each test sees only its own tables and rounds."""
    operator = f"op-{secrets.token_hex(6)}"
    values: dict[str, Any] = {
        "database_url": database_url,
        "operators": {operator: f"secret-{secrets.token_hex(8)}", "other": "other-secret"},
        "auditors": {"lab": "lab-secret"},
        "allow_test_tables": True,
        "log_level": "WARNING",
        "pool_min_size": 1,
        "pool_max_size": 8,
        "audit_signing_key": AUDIT_KEY.signer_key,
        # One database serves the whole run, and the cap counts every test's failures together: a test that is
        # about the cap sets its own on a database of its own (tests/integration/test_auth_failure_limits.py).
        "auth_failure_records_per_minute": 1_000_000,
        # Every test's client is one address ("testclient"): the friends' tables' limits are set wide open here, and
        # the tests of a limit set their own (tests/api/test_friends_limits.py).
        "friends": FriendsSettings(
            tables_per_hour=1_000_000,
            joins_per_minute=1_000_000,
            code_joins_per_minute=1_000_000,
            misses_per_minute=1_000_000,
            stream_seconds=0.05,  # a push stream read whole (by an ASGI test client) ends at once
        ),
    }
    return Settings(**{**values, **overrides})


@pytest.fixture
def settings(database_url: str) -> Settings:
    return make_settings(database_url)


@pytest.fixture
def clock() -> ManualClock:
    """The app's clock: a test moves it past a deadline instead of sleeping."""
    return ManualClock()


_IDLE_APPS: dict[tuple[int, str], list[Litestar]] = {}  # built apps not running, by body limit and log level


@pytest.fixture
def app(request: pytest.FixtureRequest, settings: Settings, clock: ManualClock) -> Iterator[Litestar]:
    """The service for the test's settings and clock. Building Litestar's routes costs about 0.1 s, some 500 tests
    ask: an app a test has stopped is wired afresh for the next (its lifespan starts from the wiring). Apps are kept
    by what is fixed when one is built: the body size limit, and the log level the request log binds. A test that
    captures the output gets an app of its own: the request log writes where stdout was when the app was built."""
    captures = {"capsys", "capfd", "caplog"} & set(request.fixturenames)
    idle = _IDLE_APPS.setdefault((settings.max_body_bytes, settings.log_level), [])
    if captures or not idle:
        built = create_app(settings, clock=clock, sweep=False)
    else:
        built = idle.pop()
        rewire(built, settings, clock=clock, sweep=False)
    yield built
    if not captures:
        idle.append(built)


@pytest.fixture
async def http(app: Litestar) -> AsyncIterator[AsyncTestClient[Litestar]]:
    async with AsyncTestClient(app=app) as client:
        yield client


@pytest.fixture
def api(http: AsyncTestClient[Litestar], settings: Settings, clock: ManualClock) -> Signed:
    """The test's own operator, signing every request."""
    operator, secret = next((op, s) for op, s in settings.operators.items() if op != "other")
    return Signed(http, operator, secret, clock=clock)


@pytest.fixture
def auditor_api(http: AsyncTestClient[Litestar], settings: Settings, clock: ManualClock) -> Signed:
    """A test lab's read-only credentials."""
    return Signed(http, "lab", settings.auditors["lab"], clock=clock)


@pytest.fixture
def other_api(http: AsyncTestClient[Litestar], settings: Settings, clock: ManualClock) -> Signed:
    """A second operator on the same server, to prove tenants never see each other."""
    return Signed(http, "other", settings.operators["other"], clock=clock)
