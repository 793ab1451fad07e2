"""The real app served over real HTTP (uvicorn) inside the test's own event loop, for a browser to talk to.

The browser tests need what an in-process client cannot give a page: a push stream that stays open (EventSource),
cookies set by the server, several phones at once. Serving in the test's loop keeps the test's ManualClock the
app's clock, and lets the test call the sweeper itself; two of these on one database are two app instances.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import msgspec
import uvicorn
from litestar import Litestar

from service.app import create_app
from service.settings import Settings
from tests.support.clock import ManualClock
from tests.support.served import free_port


class PlayServer(msgspec.Struct, frozen=True, kw_only=True):
    origin: str  # http://127.0.0.1:<port>: loopback is a secure context, so WebCrypto is there as on https
    app: Litestar


@contextlib.asynccontextmanager
async def play_server(settings: Settings, clock: ManualClock) -> AsyncIterator[PlayServer]:
    """One app instance on a free loopback port; its push streams last (the test settings' 0.05 s is for clients
    that read a stream whole); its sweeper is the test's to call."""
    port = free_port()
    friends = msgspec.structs.replace(settings.friends, stream_seconds=600.0)
    served = msgspec.structs.replace(settings, host="127.0.0.1", port=port, friends=friends)
    app = create_app(served, clock=clock, sweep=False)
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", lifespan="on", timeout_graceful_shutdown=1
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            if task.done():
                task.result()  # a server that failed to start says why
            await asyncio.sleep(0.02)
        yield PlayServer(origin=f"http://127.0.0.1:{port}", app=app)
    finally:
        server.should_exit = True
        await task
