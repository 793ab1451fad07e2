"""The friends' tables' limits, counted in PostgreSQL: codes that are not found, joins by address and by code, tables
by address, and the body size. The address is the client's, behind a trusted proxy as the auth-failure buckets see
it. Each test's clients come from addresses of their own, so their windows count only them."""

from __future__ import annotations

import contextlib
import json
import secrets
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime

import asyncpg
import httpx
import msgspec
from litestar import Litestar

from service.settings import Settings
from tests.api.friends_helpers import TABLES, create
from tests.api.helpers import problem
from tests.conftest import make_settings
from tests.integration.test_auth_failure_limits import behind
from tests.support.clock import ManualClock
from tests.support.live import live


def address() -> str:
    """A documentation address (RFC 5737) no other test uses."""
    return f"198.51.{secrets.randbelow(256)}.{secrets.randbelow(254) + 1}"


def limited(database_url: str, **limits: int) -> Settings:
    """The test settings (every limit wide open) with these limits."""
    settings = make_settings(database_url)
    return msgspec.structs.replace(settings, friends=msgspec.structs.replace(settings.friends, **limits))


@contextlib.asynccontextmanager
async def phones(
    settings: Settings, clock: ManualClock, wrap: Callable[[Litestar], object] | None = None
) -> AsyncIterator[Callable[[str], httpx.AsyncClient]]:
    """Clients of one app instance, each from the address asked for (as the ASGI peer)."""
    async with live(settings, clock=clock) as server, contextlib.AsyncExitStack() as stack:
        app = server.app if wrap is None else wrap(server.app)

        def client(peer: str) -> httpx.AsyncClient:
            transport = httpx.ASGITransport(app=app, client=(peer, 4000))  # type: ignore[arg-type]
            made = httpx.AsyncClient(transport=transport, base_url="http://testserver.local")
            stack.push_async_callback(made.aclose)
            return made

        yield client


async def test_guessing_codes_is_stopped_by_the_rate_limit_and_other_addresses_are_not(database_url: str) -> None:
    clock = ManualClock()
    async with phones(limited(database_url, misses_per_minute=5), clock) as client:
        guesser, friend = client(address()), client(address())
        real = await create(friend)
        for guess in ("AAAAAAAA", "BBBBBBBB", "CCCCCCCC", "DDDDDDDD", "EEEEEEEE"):
            problem(await guesser.post(f"{TABLES}/{guess}/join", json={"name": "x"}), 404, "NOT_FOUND")
        stopped = await guesser.post(f"{TABLES}/{real.code}/join", json={"name": "x"})  # even a right guess now
        body = problem(stopped, 429, "RATE_LIMITED")
        assert body["retryable"] is True
        assert 1 <= int(stopped.headers["retry-after"]) <= 60
        problem(await guesser.get(f"{TABLES}/{real.code}"), 429, "RATE_LIMITED")  # watching is a lookup too
        assert (await friend.post(f"{TABLES}/{real.code}/join", json={"name": "y"})).status_code == 201
        clock.advance(60)  # the next clock minute: the guesser may look again
        assert (await guesser.get(f"{TABLES}/{real.code}")).status_code == 200


async def test_joins_of_one_code_are_limited_from_every_address_together(database_url: str) -> None:
    async with phones(limited(database_url, code_joins_per_minute=2), ManualClock()) as client:
        host = await create(client(address()), seats=8)
        for _ in range(2):
            joined = await client(address()).post(f"{TABLES}/{host.code}/join", json={"name": "x"})
            assert joined.status_code == 201, joined.text
        third = await client(address()).post(f"{TABLES}/{host.code}/join", json={"name": "x"})
        problem(third, 429, "RATE_LIMITED")
        assert len((await host.state())["players"]) == 3  # the refused join took no seat


async def test_joins_from_one_address_are_limited(database_url: str) -> None:
    async with phones(limited(database_url, joins_per_minute=2), ManualClock()) as client:
        one = client(address())
        tables = [await create(client(address()), seats=8) for _ in range(3)]
        for table in tables[:2]:
            assert (await one.post(f"{TABLES}/{table.code}/join", json={"name": "x"})).status_code == 201
        problem(await one.post(f"{TABLES}/{tables[2].code}/join", json={"name": "x"}), 429, "RATE_LIMITED")


async def test_tables_one_address_opens_are_limited_and_a_refused_one_is_not_written(
    database_url: str, db: asyncpg.Connection
) -> None:
    # the clock's hour just begun: at the real clock's minute 59 the window would end in seconds (a flake CI met)
    start = datetime.now(UTC).replace(minute=0, second=1, microsecond=0)
    async with phones(limited(database_url, tables_per_hour=2), ManualClock(start)) as client:
        one = client(address())
        for _ in range(2):
            assert (await one.post(TABLES, json={"name": "x"})).status_code == 201
        refused = await one.post(TABLES, json={"name": "refused-name"})
        problem(refused, 429, "RATE_LIMITED")
        assert int(refused.headers["retry-after"]) > 60  # an hour's window: minutes to wait, not seconds
        assert await db.fetchval("SELECT count(*) FROM friends_seats WHERE name = 'refused-name'") == 0
        assert (await client(address()).post(TABLES, json={"name": "x"})).status_code == 201


async def test_a_body_over_four_kib_is_refused_before_it_is_read(http: httpx.AsyncClient) -> None:
    big = json.dumps({"name": "x", "pad": "y" * 5000})
    refused = await http.post(TABLES, content=big, headers={"content-type": "application/json"})
    problem(refused, 413, "BODY_TOO_LARGE")


async def test_behind_a_trusted_proxy_the_forwarded_address_is_the_one_limited(database_url: str) -> None:
    settings = limited(database_url, tables_per_hour=1)
    settings = msgspec.structs.replace(settings, trusted_proxies=("10.0.0.0/8",))
    async with phones(settings, ManualClock(), lambda app: behind(app, settings)) as client:
        proxy = client("10.1.2.3")
        first, second = address(), address()
        assert (await proxy.post(TABLES, json={"name": "x"}, headers={"x-forwarded-for": first})).status_code == 201
        again = await proxy.post(TABLES, json={"name": "x"}, headers={"x-forwarded-for": first})
        problem(again, 429, "RATE_LIMITED")
        other = await proxy.post(TABLES, json={"name": "x"}, headers={"x-forwarded-for": second})
        assert other.status_code == 201  # another client behind the same proxy has its own window
