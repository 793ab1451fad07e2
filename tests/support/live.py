"""The real app served in the test's own event loop, so concurrent requests really run concurrently.

Litestar's AsyncTestClient runs the app in a portal thread and blocks the caller's loop for each request, so
`asyncio.gather` over it sends one request at a time, and the pool it opens belongs to another loop. Racing tests
need neither: here the lifespan runs in this loop and httpx's ASGI transport handles requests side by side.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import asyncpg
import httpx
import msgspec
from litestar import Litestar

from service.app import create_app
from service.db.unit_of_work import Runner
from service.settings import Settings
from tests.support.client import Signed
from tests.support.clock import ManualClock


class Live(msgspec.Struct, frozen=True, kw_only=True):
    """One running app instance: a signed client for the settings' first operator, and the instance's own pool."""

    api: Signed
    pool: asyncpg.Pool
    app: Litestar
    runner: Runner


@contextlib.asynccontextmanager
async def live(settings: Settings, *, sweep: bool = False, clock: ManualClock | None = None) -> AsyncIterator[Live]:
    """One app instance; instances sharing a ManualClock see the same time, which only the test moves."""
    app = create_app(settings, sweep=sweep) if clock is None else create_app(settings, sweep=sweep, clock=clock)
    operator, secret = next((op, s) for op, s in settings.operators.items() if op != "other")
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]  # Litestar types ASGI scopes as TypedDicts
    async with app.lifespan(), httpx.AsyncClient(transport=transport, base_url="http://testserver.local") as client:
        signed = Signed(client, operator, secret, clock=clock)
        yield Live(api=signed, pool=app.state.pool, app=app, runner=app.state.runner)
