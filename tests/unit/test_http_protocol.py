"""The reply's head and body go out in one write, with the same bytes, in order, on a kept-alive connection; a client
too slow with its headers or body is told 408 and let go, and a worker at its connection limit makes room."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import AsyncIterator
from typing import Any

import uvicorn

from service.runtime.http_protocol import JoinedWritesProtocol, Limits, bounded


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


@contextlib.asynccontextmanager
async def bounded_server(app: Any, limits: Limits) -> AsyncIterator[int]:
    """uvicorn serving `app` with these limits on a free port; yields the port."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        config = uvicorn.Config(app, http=bounded(limits), log_level="warning", lifespan="off")
        server = uvicorn.Server(config)
        task = asyncio.create_task(server.serve(sockets=[sock]))
        while not server.started:  # noqa: ASYNC110 - uvicorn's Server has a flag, no event, for "started"
            await asyncio.sleep(0.01)
        try:
            yield sock.getsockname()[1]
        finally:
            server.should_exit = True
            await task


FAST = Limits(header_seconds=0.3, body_seconds=0.3, max_connections=64)
GET = b"GET /x HTTP/1.1\r\nHost: x\r\n\r\n"


async def until_closed(reader: asyncio.StreamReader, seconds: float = 5) -> tuple[bytes, float]:
    """Everything the server sent until it closed the connection, and how long that took."""
    started = time.monotonic()
    received = await asyncio.wait_for(reader.read(), seconds)
    return received, time.monotonic() - started


async def test_a_connection_that_sends_nothing_or_drips_its_headers_is_told_408_and_closed_at_the_header_bound() -> (
    None
):
    async with bounded_server(_app, FAST) as port:
        silent, quiet = await asyncio.open_connection("127.0.0.1", port)
        dripping, drip = await asyncio.open_connection("127.0.0.1", port)

        async def slowloris() -> None:  # a byte of a header every 50 ms: each byte arrives, the headers never do
            with contextlib.suppress(ConnectionError):
                for byte in b"GET /x HTTP/1.1\r\nHost: x\r\nX-Long: " + b"a" * 100:
                    drip.write(bytes([byte]))
                    await drip.drain()
                    await asyncio.sleep(0.05)

        dripper = asyncio.create_task(slowloris())
        (said, after), (dripped_said, dripped_after) = await asyncio.gather(
            until_closed(silent), until_closed(dripping)
        )
        dripper.cancel()
        quiet.close()
        drip.close()
    for reply, seconds in ((said, after), (dripped_said, dripped_after)):
        assert reply.startswith(b"HTTP/1.1 408 Request Timeout\r\n"), reply
        assert b'"code":"REQUEST_TIMEOUT"' in reply
        assert 0.25 < seconds < 2


async def test_a_body_that_stops_coming_is_told_408_at_the_body_bound_and_the_app_sees_its_client_go() -> None:
    seen: list[str] = []

    async def reading_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            while (message := await receive())["type"] == "http.request" and message.get("more_body"):
                pass
            seen.append(message["type"])

    async with bounded_server(reading_app, FAST) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"POST /x HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n" + b"{" * 10)
        reply, seconds = await until_closed(reader)
        writer.close()
        await asyncio.sleep(0.05)  # the app's task sees the disconnect on its next turn
    assert reply.startswith(b"HTTP/1.1 408 "), reply
    assert 0.25 < seconds < 2
    assert seen == ["http.disconnect"]


async def test_each_request_on_a_kept_alive_connection_has_its_own_bound_and_idling_between_them_is_not_counted() -> (
    None
):
    async with bounded_server(_app, FAST) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        for path in (b"/one", b"/two", b"/three"):
            writer.write(b"GET " + path + b" HTTP/1.1\r\nHost: x\r\n\r\n")
            head = await reader.readuntil(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 200 OK"), head
            assert await reader.readexactly(len(path)) == path
            await asyncio.sleep(0.5)  # longer than the header bound, shorter than uvicorn's 5 s keep-alive
        writer.close()


async def test_a_slow_reply_or_a_stream_of_them_runs_to_its_end_past_both_bounds() -> None:
    async def streaming_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        await asyncio.sleep(0.5)  # thinking longer than either bound before the first byte
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
        for i in range(5):  # then a push stream that outlasts them both again
            await send({"type": "http.response.body", "body": b"%d\n" % i, "more_body": True})
            await asyncio.sleep(0.2)
        await send({"type": "http.response.body", "body": b"end\n"})

    async with bounded_server(streaming_app, FAST) as port:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET /stream HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        reply, seconds = await until_closed(reader)
        writer.close()
    assert reply.startswith(b"HTTP/1.1 200 OK"), reply
    assert reply.replace(b"\r\n", b"\n").endswith(b"end\n\n0\n\n")  # chunked: every chunk, then the last
    assert seconds > 1.4


async def test_at_the_connection_limit_the_one_waiting_longest_makes_room_and_busy_ones_refuse_a_newcomer() -> None:
    release = asyncio.Event()
    held: asyncio.Queue[str] = asyncio.Queue()

    async def holding_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            held.put_nowait(scope["path"])
            await release.wait()
            await _app(scope, receive, send)

    async def busy(port: int, path: bytes) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """A connection whose request the app holds."""
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET " + path + b" HTTP/1.1\r\nHost: x\r\n\r\n")
        assert await asyncio.wait_for(held.get(), 5) == path.decode()
        return reader, writer

    limits = Limits(header_seconds=30, body_seconds=30, max_connections=2)
    async with bounded_server(holding_app, limits) as port:
        stalled, stalled_out = await asyncio.open_connection("127.0.0.1", port)  # never sends a byte
        second = await busy(port, b"/second")
        third = await busy(port, b"/third")  # over the limit: the stalled one made room for it
        evicted, _ = await until_closed(stalled)
        fourth, fourth_out = await asyncio.open_connection("127.0.0.1", port)  # both busy now: no room to make
        refused, _ = await until_closed(fourth)
        release.set()
        answered = [await reader.readuntil(b"\r\n\r\n") for reader, _ in (second, third)]
        for writer in (stalled_out, second[1], third[1], fourth_out):
            writer.close()
    assert evicted.startswith(b"HTTP/1.1 408 "), evicted
    assert refused.startswith(b"HTTP/1.1 503 Service Unavailable\r\n"), refused
    assert b'"code":"SERVICE_UNAVAILABLE"' in refused
    assert all(head.startswith(b"HTTP/1.1 200 OK") for head in answered), answered
