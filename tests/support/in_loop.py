"""The real app served by uvicorn over TCP inside the test's own event loop: a stream (Server-Sent Events) reaches
the client as it is written, which httpx's ASGI transport, buffering a whole reply, cannot show. Several instances
on one database are several replicas; sharing a ManualClock, they see the time only the test moves."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import httpx
import msgspec
import uvicorn
from litestar import Litestar

from service.app import create_app
from service.settings import Settings
from tests.support.clock import ManualClock
from tests.support.served import free_port


class Instance(msgspec.Struct, frozen=True, kw_only=True):
    app: Litestar
    url: str
    client: httpx.AsyncClient


@contextlib.asynccontextmanager
async def serving(settings: Settings, clock: ManualClock) -> AsyncIterator[Instance]:
    """One instance on a free port, its lifespan started, until the block ends."""
    app = create_app(settings, clock=clock, sweep=False)
    config = uvicorn.Config(app, host="127.0.0.1", port=free_port(), log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()  # the start failed: say why
        await asyncio.sleep(0.01)
    url = f"http://127.0.0.1:{config.port}"
    try:
        async with httpx.AsyncClient(base_url=url, timeout=10) as client:
            yield Instance(app=app, url=url, client=client)
    finally:
        server.should_exit = True
        await task
