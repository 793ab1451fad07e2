"""The friends' push publisher (service/runtime/friends_channels.py) against Litestar's own asyncpg channels backend it
replaces the publishing of: a listener receives the same notifications, in the same order, from both; the
framework's come from a new server process per message, ours from one; and ours outlives its connection breaking."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import asyncpg
import pytest
from litestar.channels.backends.asyncpg import AsyncPgChannelsBackend

from service.runtime.friends_channels import LISTEN_RESTORED, LongLivedPublisherBackend

CHANNELS = ("friends_aa", "friends_bb")
MESSAGES = [
    (b'{"version":1}', ["friends_aa"]),
    (b'{"version":2}', ["friends_bb"]),
    (b'{"v":"\xe0\xa4\xb0"}', ["friends_aa", "friends_bb"]),
]
Notification = tuple[int, str, str]  # the sending backend's pid, the channel, the payload


async def _heard(
    database_url: str, backend: AsyncPgChannelsBackend, publish: Callable[[], Awaitable[None]]
) -> list[Notification]:
    """What a LISTENing connection of its own hears while `publish` runs against the started backend."""
    heard: list[Notification] = []
    listener = await asyncpg.connect(database_url)
    try:
        for name in CHANNELS:
            await listener.add_listener(name, lambda _c, pid, channel, payload: heard.append((pid, channel, payload)))
        await backend.on_startup()
        try:
            await publish()
            expected = sum(len(channels) for _, channels in MESSAGES)
            for _ in range(200):
                if len(heard) >= expected:
                    break
                await asyncio.sleep(0.01)
        finally:
            await backend.on_shutdown()
    finally:
        await listener.close()
    return heard


def _connecting(database_url: str) -> Callable[[], Awaitable[asyncpg.Connection]]:
    async def connect() -> asyncpg.Connection:
        return await asyncpg.connect(database_url)

    return connect


async def _publish_all(backend: AsyncPgChannelsBackend) -> None:
    for data, channels in MESSAGES:
        await backend.publish(data, channels)


async def test_a_listener_hears_from_the_kept_connection_what_the_framework_would_send_from_one_per_message(
    database_url: str,
) -> None:
    framework = AsyncPgChannelsBackend(make_connection=_connecting(database_url))
    ours = LongLivedPublisherBackend(make_connection=_connecting(database_url))
    theirs_heard = await _heard(database_url, framework, lambda: _publish_all(framework))
    ours_heard = await _heard(database_url, ours, lambda: _publish_all(ours))
    expected = [(channel, data.decode()) for data, channels in MESSAGES for channel in channels]
    assert [(c, p) for _, c, p in theirs_heard] == expected
    assert [(c, p) for _, c, p in ours_heard] == expected
    assert len({pid for pid, _, _ in theirs_heard}) == len(MESSAGES)  # the framework: a new connection per message
    assert len({pid for pid, _, _ in ours_heard}) == 1  # ours: every message from one


async def test_a_publisher_whose_connection_was_cut_reconnects_and_delivers_the_next_message(
    database_url: str, db: asyncpg.Connection
) -> None:
    ours = LongLivedPublisherBackend(make_connection=_connecting(database_url))

    async def publish_across_a_cut() -> None:
        await ours.publish(b'{"version":1}', ["friends_aa"])
        assert ours._publisher is not None
        cut = ours._publisher.get_server_pid()
        assert await db.fetchval("SELECT pg_terminate_backend($1)", cut)
        await asyncio.sleep(0.1)
        await ours.publish(b'{"version":2}', ["friends_aa"])  # must not raise: the plugin's task would end with it

    heard = await _heard(database_url, ours, publish_across_a_cut)
    assert [p for _, _, p in heard] == ['{"version":1}', '{"version":2}']
    assert heard[0][0] != heard[1][0]


async def test_publishing_before_start_up_is_refused_as_the_framework_refuses_it(database_url: str) -> None:
    for backend in (
        AsyncPgChannelsBackend(make_connection=_connecting(database_url)),
        LongLivedPublisherBackend(make_connection=_connecting(database_url)),
    ):
        with pytest.raises(RuntimeError, match="not yet initialized"):
            await backend.publish(b"{}", ["friends_aa"])


async def test_a_listener_cut_twice_is_replaced_each_time_and_every_channel_hears_again(
    database_url: str, db: asyncpg.Connection
) -> None:
    ours = LongLivedPublisherBackend(make_connection=_connecting(database_url))
    await ours.on_startup()
    try:
        await ours.subscribe(CHANNELS)
        events = ours.stream_events()
        for cut in (1, 2):
            assert await db.fetchval("SELECT pg_terminate_backend($1)", ours._listener_conn.get_server_pid())
            restored = [await asyncio.wait_for(anext(events), 5) for _ in CHANNELS]
            assert sorted(restored) == [(name, LISTEN_RESTORED) for name in CHANNELS], f"cut {cut}"
            for name in CHANNELS:
                await db.execute("SELECT pg_notify($1, $2)", name, f'{{"cut":{cut}}}')
            heard = [await asyncio.wait_for(anext(events), 5) for _ in CHANNELS]
            assert heard == [(name, f'{{"cut":{cut}}}'.encode()) for name in CHANNELS]
    finally:
        await ours.on_shutdown()
