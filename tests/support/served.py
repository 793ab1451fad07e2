"""The real app behind a real HTTP socket (uvicorn in a thread), for clients that speak HTTP themselves: the CLI."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator

import uvicorn

from service.app import create_app
from service.settings import Settings


@contextlib.contextmanager
def served(settings: Settings) -> Iterator[str]:
    """Serve the app on a free local port until the block ends; yields its base URL."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))  # the port is ours from here on: no race for a "free" number
    port = sock.getsockname()[1]
    config = uvicorn.Config(create_app(settings, sweep=False), log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
