"""Litestar's PostgreSQL channels backend (LISTEN/NOTIFY over asyncpg) with its publishing on one long-lived
connection: the one room where the friends' push reaches into the framework (litestar 2.25, pinned in
constraints.txt; tests/integration/test_friends_channels.py compares the two).

The framework's `AsyncPgChannelsBackend.publish` opens a connection for every message and closes it after: a TCP
connect, a PostgreSQL backend forked and authenticated, a NOTIFY, a goodbye. The plugin publishes one message at a
time from a single task, so under a steady stream of moves that start-up is both the cost and the queue every hint
waits in (bench/friends_push.py measures it). And a publish that raises ends that task for good: one database blip and
the replica never pushes again. Here one connection, opened on first use, is kept; a broken one is replaced once
per message; a message that still fails is logged and dropped, since a push is only a hint (a phone catches up from
the state route by version).

Listening is the framework's, with one addition: its LISTEN connection, once lost (a database restart, a failover,
an administrator's pg_terminate_backend), was never replaced, and every stream on the replica went quiet for good
while it still sent keep-alives. Here a lost listener is replaced (retrying with a growing wait), every channel still
subscribed is listened to again, and each gets `LISTEN_RESTORED`: what was published meanwhile was not heard, so a
stream reads its table again and the phone catches up by version (friends_push.stream).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterable

import asyncpg
import structlog
from asyncpg.pool import PoolConnectionProxy
from litestar.channels.backends.asyncpg import AsyncPgChannelsBackend

log = structlog.get_logger("reddog.friends.push")
NOTIFY = "SELECT pg_notify($1, $2)"  # the framework's own statement, so a listener cannot tell the two apart
# Put on every subscribed channel once a lost listener is replaced. Not JSON, so no published message can be it.
LISTEN_RESTORED = b"listen-restored"
RELISTEN_WAITS = (0.05, 0.2, 0.5, 1.0, 2.0)  # seconds between tries to replace a lost listener; the last repeats
_BROKEN = (OSError, asyncpg.PostgresConnectionError, asyncpg.InterfaceError)


class LongLivedPublisherBackend(AsyncPgChannelsBackend):
    """AsyncPgChannelsBackend, publishing on one kept connection instead of a new one per message."""

    def __init__(self, *, make_connection: Callable[[], Awaitable[asyncpg.Connection]]) -> None:
        super().__init__(make_connection=make_connection)
        self._publisher: asyncpg.Connection | None = None
        self._stopping = False
        self._relistening: asyncio.Task[None] | None = None

    async def on_startup(self) -> None:
        self._stopping = False
        await super().on_startup()
        self._listener_conn.add_termination_listener(self._listener_lost)

    async def subscribe(self, channels: Iterable[str]) -> None:
        names = set(channels)
        try:
            await super().subscribe(names)
        except _BROKEN:  # the listener is gone: its replacement listens to every channel in the set
            self._subscribed_channels.update(names)
            self._relisten_soon()

    async def unsubscribe(self, channels: Iterable[str]) -> None:
        names = set(channels)
        try:
            await super().unsubscribe(names)
        except _BROKEN:  # a replacement will not listen to what is no longer in the set
            self._subscribed_channels.difference_update(names)
            self._relisten_soon()

    def _listener_lost(self, connection: asyncpg.Connection | PoolConnectionProxy) -> None:
        if connection is self._listener_conn:
            self._relisten_soon()

    def _relisten_soon(self) -> None:
        if not self._stopping and (self._relistening is None or self._relistening.done()):
            self._relistening = asyncio.get_running_loop().create_task(self._relisten())

    async def _relisten(self) -> None:
        for attempt in range(1_000_000):
            if self._stopping:
                return
            try:
                await self._replace_listener()
                log.info("friends_listen_restored", attempt=attempt + 1, channels=len(self._subscribed_channels))
                return
            except _BROKEN as exc:
                if attempt == 0:
                    log.warning("friends_listen_lost", error=type(exc).__name__)
                await asyncio.sleep(RELISTEN_WAITS[min(attempt, len(RELISTEN_WAITS) - 1)])

    async def _replace_listener(self) -> None:
        async with self._listener_lock:
            connection = await self._connect()
            try:
                for name in self._subscribed_channels:
                    await connection.add_listener(name, self._listener)  # type: ignore[arg-type]
            except BaseException:
                connection.terminate()
                raise
            old, self._listener_conn = self._listener_conn, connection
            connection.add_termination_listener(self._listener_lost)
            old.terminate()
            if self._queue is not None:
                for name in self._subscribed_channels:
                    self._queue.put_nowait((name, LISTEN_RESTORED))

    async def publish(self, data: bytes, channels: Iterable[str]) -> None:
        if self._queue is None:  # as the framework's: publishing before start-up is a programming error
            raise RuntimeError("Backend not yet initialized. Did you forget to call on_startup?")
        text, names = data.decode("utf-8"), list(channels)
        for attempt in (1, 2):
            try:
                conn = await self._publishing()
                for name in names:
                    await conn.execute(NOTIFY, name, text)
                return
            except (OSError, asyncpg.PostgresConnectionError, asyncpg.InterfaceError) as exc:
                await self._drop_publisher()  # the connection broke (a restart, a failover): the next try opens one
                if attempt == 2:
                    log.warning("friends_publish_dropped", error=type(exc).__name__, channels=len(names))
            except asyncpg.PostgresError as exc:  # refused by the server itself (a payload over 8000 bytes)
                log.warning("friends_publish_refused", error=type(exc).__name__, channels=len(names))
                return

    async def _publishing(self) -> asyncpg.Connection:
        if self._publisher is None or self._publisher.is_closed():
            self._publisher = await self._connect()
        return self._publisher

    async def _drop_publisher(self) -> None:
        publisher, self._publisher = self._publisher, None
        if publisher is not None:
            publisher.terminate()  # no goodbye on a connection that is already broken

    async def on_shutdown(self) -> None:
        self._stopping = True
        relistening, self._relistening = self._relistening, None
        if relistening is not None:
            relistening.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await relistening
        await super().on_shutdown()
        publisher, self._publisher = self._publisher, None
        if publisher is not None and not publisher.is_closed():
            await publisher.close()
