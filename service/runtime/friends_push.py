"""Live updates of the friends' tables across replicas, through Litestar's channels plugin: a move on one replica
reaches the phones connected to any other. The backend is a setting: PostgreSQL's LISTEN/NOTIFY (asyncpg; the
default, nothing more to run; published on one kept connection, friends_channels) or Redis pub/sub
(RD_FRIENDS_PUSH=redis), for a fan-out that outgrows one database.

A push is only a hint: `{"code", "version", "game_version", "status"}` of the table after a change, published after
the change commits. A phone that sees a version it has not read asks the state route for the records since the
game version it last saw, so a push lost or published twice never loses or repeats a move.

A reaction (an emoji a seat sent) travels on the same channel as `event: reaction`, `{"code", "seat", "reaction"}`,
with no `id`: it is no change of the table, so it carries no version and leaves the phone's Last-Event-ID alone;
one lost is simply not seen.

Served as Server-Sent Events: the traffic is one way (moves are POSTs, with their problem details and 409 on a stale
version), EventSource reconnects by itself, an SSE stream is plain HTTP through any proxy, and the seat's HttpOnly
cookie rides on it as on every other request.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from uuid import UUID

import asyncpg
import msgspec
import structlog
from litestar.channels import ChannelsPlugin
from litestar.channels.backends.base import ChannelsBackend
from litestar.channels.backends.redis import RedisChannelsPubSubBackend
from litestar.response import ServerSentEventMessage

from service.db import storage_forms
from service.runtime.friends_channels import LISTEN_RESTORED, LongLivedPublisherBackend
from service.settings import Settings
from service.use_cases.friends_reaction_use_cases import Reaction
from service.use_cases.friends_use_cases import Hint

log = structlog.get_logger("reddog.friends.push")
KEEP_ALIVE_SECONDS = 15.0  # a comment line this often keeps proxies from closing a quiet stream
RETRY_MS = 2000  # how long EventSource waits before reconnecting
BACKLOG = 64  # hints held for one slow phone; past it the oldest go (each newer hint says as much)
_encode = msgspec.json.Encoder(order="deterministic").encode


class HintMessage(msgspec.Struct, frozen=True, kw_only=True):
    code: str
    version: int
    game_version: int
    status: str


class ReactionMessage(msgspec.Struct, frozen=True, kw_only=True):
    code: str
    seat: int
    reaction: str


class _Either(msgspec.Struct, frozen=True):
    """What a stream reads of any message on a table's channel: a hint has a version, a reaction none."""

    version: int | None = None


def channel(table_id: UUID) -> str:
    """A table's channel: a PostgreSQL identifier as LISTEN takes it, a Redis channel name as is."""
    return f"friends_{table_id.hex}"


def backend(settings: Settings) -> tuple[ChannelsBackend, contextlib.AsyncExitStack]:
    """The configured backend, and what closes the client it opened."""
    stack = contextlib.AsyncExitStack()
    if settings.friends.push == "redis":
        from redis.asyncio import Redis  # only where Redis is the backend

        client = Redis.from_url(settings.friends.redis_url)
        stack.push_async_callback(client.aclose)
        return RedisChannelsPubSubBackend(redis=client), stack
    url = settings.database_url
    assert url is not None  # create_pool refused to start without one

    async def connect() -> asyncpg.Connection:  # named as the pool's are: a connection of this release (storage_forms)
        return await asyncpg.connect(url, server_settings={"application_name": storage_forms.APPLICATION_NAME})

    return LongLivedPublisherBackend(make_connection=connect), stack


@contextlib.asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[ChannelsPlugin]:
    """The channels plugin for one app's lifespan: started with it, stopped (its queue drained) with it."""
    chosen, stack = backend(settings)
    plugin = ChannelsPlugin(
        backend=chosen,
        arbitrary_channels_allowed=True,
        create_ws_route_handlers=False,
        subscriber_max_backlog=BACKLOG,
        subscriber_backlog_strategy="dropleft",
    )
    async with stack, plugin:
        yield plugin


def message_of(hint: Hint) -> HintMessage:
    return HintMessage(code=hint.code, version=hint.version, game_version=hint.game_version, status=hint.status)


def publish(plugin: ChannelsPlugin | None, hint: Hint) -> None:
    """Queue the hint for every replica's subscribers (returns at once; the plugin's worker sends it)."""
    _publish(plugin, _encode(message_of(hint)), hint.table_id)


def publish_reaction(plugin: ChannelsPlugin | None, sent: Reaction) -> None:
    """Queue a seat's reaction for every phone at the table, as a hint is."""
    _publish(plugin, _encode(ReactionMessage(code=sent.code, seat=sent.seat, reaction=sent.reaction)), sent.table_id)


def _publish(plugin: ChannelsPlugin | None, data: bytes, table_id: UUID) -> None:
    if plugin is None:
        return
    try:
        plugin.publish(data, channel(table_id))
    except Exception as exc:  # a push is a hint: a client catches up from the state route all the same
        log.warning("friends_push_failed", error=type(exc).__name__)


def sse(hint: bytes, version: int) -> ServerSentEventMessage:
    return ServerSentEventMessage(data=hint.decode(), event="table", id=str(version), retry=RETRY_MS)


def sse_of(data: bytes) -> ServerSentEventMessage:
    """A message from the channel as its event: a hint with its version as `id`, a reaction with none."""
    either = msgspec.json.decode(data, type=_Either)
    if either.version is None:
        return ServerSentEventMessage(data=data.decode(), event="reaction")
    return sse(data, either.version)


async def stream(
    plugin: ChannelsPlugin,
    table_id: UUID,
    now: Callable[[], Awaitable[Hint]],
    seconds: float,
    stop: asyncio.Event | None = None,
) -> AsyncIterator[ServerSentEventMessage]:
    """The table's hints as SSE: first the table as it is `now` (read once subscribed, so no change falls between),
    then every hint published (and the table as it is again once a lost listener is back), a keep-alive comment when
    it is quiet, until the client goes, `seconds` pass or the server starts to stop (`stop`): EventSource then
    reconnects by itself, to another replica if this one is going, and catches up from the version it saw. A stopping
    server waits for its streams, so they must not wait on it."""
    async with plugin.start_subscription([channel(table_id)]) as subscriber:
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        helpers = [asyncio.create_task(_forward(subscriber.iter_events(), queue))]
        if stop is not None:
            helpers.append(asyncio.create_task(_end_on(stop, queue)))
        try:
            first = await now()
            yield sse(_encode(message_of(first)), first.version)
            loop = asyncio.get_running_loop()
            ends = loop.time() + seconds
            while (left := ends - loop.time()) > 0:
                try:
                    data = await asyncio.wait_for(queue.get(), min(KEEP_ALIVE_SECONDS, left))
                except TimeoutError:
                    yield ServerSentEventMessage(data=None, comment="keep-alive")
                    continue
                if data is _STOPPING:
                    return
                if data == LISTEN_RESTORED:  # hints may have gone unheard while the listener was away
                    again = await now()
                    yield sse(_encode(message_of(again)), again.version)
                    continue
                yield sse_of(data)
        finally:
            for helper in helpers:
                helper.cancel()
            for helper in helpers:
                with contextlib.suppress(asyncio.CancelledError):
                    await helper


_STOPPING = b""  # what a stopping server puts in a stream's queue: no hint is empty


async def _forward(events: AsyncIterator[bytes], queue: asyncio.Queue[bytes]) -> None:
    async for data in events:
        queue.put_nowait(data)


async def _end_on(stop: asyncio.Event, queue: asyncio.Queue[bytes]) -> None:
    await stop.wait()
    queue.put_nowait(_STOPPING)
