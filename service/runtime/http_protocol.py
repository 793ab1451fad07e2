"""uvicorn's httptools protocol with a response's head and body sent in one write.

uvicorn writes the status line and headers when the app sends `http.response.start` and the body when it sends
`http.response.body`: two send() calls and two TCP segments for every reply, each waking the client. Here the
writes made in one turn of the event loop (a reply's head and body come in the same one) are joined and sent at
the end of it: one syscall, one segment, the same bytes in the same order.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


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


class JoinedWritesProtocol(HttpToolsProtocol):
    """`uvicorn.Config(http=JoinedWritesProtocol)`."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(_JoinedWrites(transport, self.loop))  # type: ignore[arg-type]
