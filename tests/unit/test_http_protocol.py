"""The reply's head and body go out in one write, with the same bytes, in order, on a kept-alive connection."""

from __future__ import annotations

import asyncio
import socket
from typing import Any

import uvicorn

from service.runtime.http_protocol import JoinedWritesProtocol


async def _app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    body = scope["path"].encode()
    await send(
        {"type": "http.response.start", "status": 200, "headers": [(b"content-length", str(len(body)).encode())]}
    )
    await send({"type": "http.response.body", "body": body})


def _exchange(port: int, request: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as client:
        client.sendall(request)
        received = b""
        while chunk := client.recv(65536):
            received += chunk
    return received


async def test_pipelined_requests_get_whole_replies_in_order_and_a_closing_one_still_gets_its_reply() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        config = uvicorn.Config(_app, http=JoinedWritesProtocol, log_level="warning", lifespan="off")
        server = uvicorn.Server(config)
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started:  # noqa: ASYNC110 - uvicorn's Server has a flag, no event, for "started"
            await asyncio.sleep(0.01)
        port = sock.getsockname()[1]
        request = b"GET /first HTTP/1.1\r\nHost: x\r\n\r\nGET /second HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        received = await asyncio.to_thread(_exchange, port, request)
        server.should_exit = True
        await task
    replies = received.split(b"HTTP/1.1 200 OK\r\n")[1:]
    assert [reply.rsplit(b"\r\n\r\n", 1)[1] for reply in replies] == [b"/first", b"/second"]
    assert b"connection: close" in replies[1]
