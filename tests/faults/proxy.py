"""A TCP proxy between the app and PostgreSQL that a test can cut: every connection through it dropped at once, and
new ones reset as soon as they arrive until it is restored. It keeps listening through a cut: a port let go for a
moment can be taken by any other process on the machine (another test's ephemeral port), and then never comes back."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from urllib.parse import parse_qs, urlencode, urlsplit, urlunsplit


class Proxy:
    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)  # a host starting with "/" is a directory holding PostgreSQL's Unix socket
        self.port = 0
        self._server: asyncio.Server | None = None
        self._refusing = False
        self._open: set[asyncio.StreamWriter] = set()
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self) -> None:
        """Listen (the first time), or let connections through again after a cut."""
        self._refusing = False
        if self._server is None:
            self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)
            self.port = self._server.sockets[0].getsockname()[1]

    async def cut(self) -> None:
        """Reset every connection it carries, and every new one as it arrives, until start()."""
        self._refusing = True
        for writer in list(self._open):
            writer.transport.abort()
        self._open.clear()

    async def _accept(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        if self._refusing:
            client_writer.transport.abort()
            return
        try:
            host, port = self.target
            if host.startswith("/"):
                server_reader, server_writer = await asyncio.open_unix_connection(f"{host}/.s.PGSQL.{port}")
            else:
                server_reader, server_writer = await asyncio.open_connection(host, port)
        except OSError:
            client_writer.transport.abort()
            return
        self._open |= {client_writer, server_writer}
        for reader, writer in ((client_reader, server_writer), (server_reader, client_writer)):
            task = asyncio.create_task(self._pipe(reader, writer))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError):
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        writer.transport.abort()  # one side gone: so is the other, as with a network fault
        self._open.discard(writer)

    async def close(self) -> None:
        await self.cut()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        for task in list(self._tasks):
            task.cancel()


@contextlib.asynccontextmanager
async def proxied(url: str) -> AsyncIterator[tuple[str, Proxy]]:
    """`url` (TCP, or a Unix socket as the embedded server gives: `?host=/dir`) rewritten to go through a new proxy
    on a loopback port, and the proxy."""
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    host = query.pop("host", [parts.hostname or "localhost"])[0]
    proxy = Proxy(host, int(query.pop("port", [str(parts.port or 5432)])[0]))
    await proxy.start()
    userinfo = parts.netloc.rpartition("@")[0]
    rest = urlencode(query, doseq=True)
    try:
        yield urlunsplit(parts._replace(netloc=f"{userinfo}@127.0.0.1:{proxy.port}", query=rest)), proxy
    finally:
        await proxy.close()
