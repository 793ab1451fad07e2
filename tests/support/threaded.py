"""The real app behind a real HTTP socket (uvicorn in a thread), for clients that need a URL and speak HTTP themselves
(`reddog play`, `reddog inbetween play`, a generated client), which no in-process transport can stand in for."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

import uvicorn

from service.app import create_app
from service.settings import Settings

STARTUP_SECONDS = 30  # generous for a loaded machine; a server that hangs still fails the test


@contextlib.contextmanager
def served(settings: Settings) -> Iterator[str]:
    """Serve the app for `settings` (the real clock) on a free loopback port until the block ends; yields its URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))  # the port is ours from here on: no race for a "free" number
    port = sock.getsockname()[1]
    config = uvicorn.Config(create_app(settings, sweep=False), log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)  # waiting for a socket to listen, not for a deadline of the game
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=STARTUP_SECONDS)
        sock.close()
