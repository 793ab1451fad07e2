"""The real app served over TCP on 127.0.0.1 in a thread of its own: for clients that need a URL (a browser, a
generated client, `reddog play`), which no in-process transport can stand in for."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Iterator

import uvicorn

from service.app import create_app
from service.settings import Settings

STARTUP_SECONDS = 30


@contextlib.contextmanager
def served(settings: Settings) -> Iterator[str]:
    """Serve the app for `settings` on a free loopback port (the real clock); yields its base URL."""
    config = uvicorn.Config(create_app(settings, sweep=False), host="127.0.0.1", port=0, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve()), daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not server.started and thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.05)  # waiting for a socket to listen, not for a deadline of the game
        assert server.started, "the test server did not start"
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=STARTUP_SECONDS)
