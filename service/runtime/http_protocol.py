"""uvicorn's httptools protocol with a response's head and body sent in one write, and bounds on slow clients.

uvicorn writes the status line and headers when the app sends `http.response.start` and the body when it sends
`http.response.body`: two send() calls and two TCP segments for every reply, each waking the client. Here the
writes made in one turn of the event loop (a reply's head and body come in the same one) are joined and sent at
the end of it: one syscall, one segment, the same bytes in the same order.

uvicorn also waits for a request as long as its client likes and holds every connection that arrives: 1,500 clients
that each sent half a request were all still held after 20 s (issue 21). Here a request's headers must arrive within
`header_seconds` of its first byte (the first request's: of the connection opening), and its body within
`body_seconds` of its headers; past either the client is told 408 and the connection closed. Only reading a request
is bounded: a reply under way runs to its end (a push stream, for hours), and a WebSocket leaves the bounds once
upgraded. A worker holds at most `max_connections`: one more makes room by closing the connection that has waited
longest for a request (a stalled one, or an idle keep-alive), and is refused with a 503 only when none is waiting.

A stopping server asks each connection to shut down and waits for the replies under way to end, a push stream's
too, for as long as it may last. The server's one `stopping` event (in the ASGI scope's state, `stopping(scope)`)
is set at the first such request, so a long reply can end itself at once: its client reconnects elsewhere.
"""

from __future__ import annotations

import asyncio
import functools
import http
from collections.abc import Mapping
from typing import Any, NamedTuple

import structlog
from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from service.errors import raw_problem

log = structlog.get_logger("reddog.http")
STOPPING = "reddog.stopping"  # the key of the server's stopping event in every request's scope["state"]


def stopping(scope: Mapping[str, Any]) -> asyncio.Event | None:
    """The event set when the server serving this request starts to stop; None under another server."""
    found = scope.get("state", {}).get(STOPPING)
    return found if isinstance(found, asyncio.Event) else None


class _JoinedWrites:
    """The connection's transport, with the writes of one event-loop turn joined into one."""

    __slots__ = ("_loop", "_pending", "_transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self._transport = transport
        self._loop = loop
        self._pending: list[bytes] | None = None

    def write(self, data: bytes) -> None:
        if self._pending is None:
            self._pending = [data]
            self._loop.call_soon(self._flush)
        else:
            self._pending.append(data)

    def _flush(self) -> None:
        pending, self._pending = self._pending, None
        if pending and not self._transport.is_closing():
            self._transport.write(pending[0] if len(pending) == 1 else b"".join(pending))

    def close(self) -> None:
        self._flush()  # a reply that closes the connection (Connection: close) still goes out first
        self._transport.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._transport, name)  # reading, flow control, addresses: the transport's own


class Limits(NamedTuple):
    """How long a request may take to arrive, and how many connections a worker holds (settings.py's defaults)."""

    header_seconds: float = 10
    body_seconds: float = 30
    max_connections: int = 2048


def closing_problem(status: int, code: str, detail: str) -> bytes:
    """A whole problem-details reply that ends its connection, for a request the app never got."""
    body = raw_problem(status, code, detail, retryable=True)
    head = (
        f"HTTP/1.1 {status} {http.HTTPStatus(status).phrase}\r\ncontent-type: application/problem+json\r\n"
        f"content-length: {len(body)}\r\nretry-after: 1\r\nconnection: close\r\n\r\n"
    )
    return head.encode() + body


TIMED_OUT = closing_problem(408, "REQUEST_TIMEOUT", "the request did not arrive in the time the server gives it")
FULL = closing_problem(503, "SERVICE_UNAVAILABLE", "the server holds all the connections it takes; retry shortly")


class JoinedWritesProtocol(HttpToolsProtocol):
    """`uvicorn.Config(http=bounded(Limits(...)))`, or `http=JoinedWritesProtocol` for the default limits."""

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
        *,
        limits: Limits = Limits(),  # noqa: B008 - a NamedTuple: immutable, one default shared is as good as many
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.limits = limits
        self.deadline: asyncio.TimerHandle | None = None  # when the part of the request awaited is overdue
        self.waiting_since: float | None = None  # since when it has waited for a request; None while one is read
        if STOPPING not in app_state:  # one per server: its connections share its lifespan's state
            app_state[STOPPING] = asyncio.Event()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(_JoinedWrites(transport, self.loop))  # type: ignore[arg-type]
        self.waiting_since = self.loop.time()
        self._arm("headers", self.limits.header_seconds)
        if len(self.connections) > self.limits.max_connections:
            self._make_room()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self.deadline is None:  # a later request on a kept-alive connection: its time starts at its first byte
            self._arm("headers", self.limits.header_seconds)

    def on_headers_complete(self) -> None:
        self._disarm()
        self.waiting_since = None
        super().on_headers_complete()
        if not self.parser.should_upgrade():  # an upgrade has no body: what follows is the WebSocket's
            self._arm("body", self.limits.body_seconds)  # disarmed at once when there is no body

    def on_message_complete(self) -> None:
        self._disarm()
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self.cycle.response_complete and not self.transport.is_closing():  # idle until the next request
            self.waiting_since = self.loop.time()

    def handle_websocket_upgrade(self) -> None:
        self._disarm()
        self.waiting_since = None
        super().handle_websocket_upgrade()

    def shutdown(self) -> None:
        """The server is stopping: tell the replies under way (a push stream ends itself), then uvicorn's own."""
        self.app_state[STOPPING].set()
        super().shutdown()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self.waiting_since = None
        super().connection_lost(exc)

    def _arm(self, part: str, seconds: float) -> None:
        self.deadline = self.loop.call_later(seconds, self._overdue, part)

    def _disarm(self) -> None:
        if self.deadline is not None:
            self.deadline.cancel()
            self.deadline = None

    def _overdue(self, part: str) -> None:
        """The request's headers or body did not arrive in time: say 408 (unless it was answered) and hang up."""
        self.deadline = None
        cycle = self.cycle
        if cycle is not None and cycle.response_started and not cycle.response_complete:
            cycle.keep_alive = False  # a reply under way runs to its end; nothing more is read after it
            return
        log.info("request_timeout", part=part, client=self._peer())
        self.hang_up(answered=part == "body" and cycle is not None and cycle.response_complete)

    def hang_up(self, *, answered: bool = False) -> None:
        """Close the connection; a client whose request was not answered is told 408 first."""
        self.waiting_since = None
        if not self.transport.is_closing():
            if not answered:
                self.transport.write(TIMED_OUT)
            self.transport.close()

    def _make_room(self) -> None:
        """One connection over the limit: close the one that has waited longest for a request, or refuse this one."""
        waiting = {
            c: c.waiting_since
            for c in self.connections
            if isinstance(c, JoinedWritesProtocol) and c is not self and c.waiting_since is not None
        }
        if waiting:
            oldest = min(waiting, key=waiting.__getitem__)
            waited = round(self.loop.time() - waiting[oldest], 3)
            log.info("connection_evicted", client=oldest._peer(), waited_seconds=waited)
            oldest.hang_up()
            return
        log.warning("connections_full", client=self._peer(), limit=self.limits.max_connections)
        self._disarm()
        self.transport.write(FULL)
        self.transport.close()

    def _peer(self) -> str:
        return f"{self.client[0]}:{self.client[1]}" if self.client else "unknown"


def bounded(limits: Limits) -> Any:
    """The protocol with these limits, for `uvicorn.Config(http=...)`: uvicorn calls it as it calls a protocol
    class, and a partial of a module-level class pickles into the worker processes."""
    return functools.partial(JoinedWritesProtocol, limits=limits)
