"""Live across replicas: two app instances on one PostgreSQL, a move made through one reaching a phone whose stream
is on the other, through Litestar's channels plugin, by LISTEN/NOTIFY and (where Redis answers) by Redis pub/sub.
A push carries the version; a phone that reconnects catches up from the version it saw, missing and repeating
nothing."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from service.settings import FriendsSettings, Settings
from tests.api.friends_helpers import TABLES, Phone, create, join, quiet_move
from tests.conftest import make_settings
from tests.support.clock import ManualClock
from tests.support.in_loop import serving

REDIS = ("127.0.0.1", 6379)
WAIT = 10.0  # seconds a hint may take at most to arrive (it takes milliseconds; this only stops a hang)


def redis_answers() -> bool:
    try:
        with socket.create_connection(REDIS, timeout=0.5) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def backend_settings(database_url: str, push: str) -> Settings:
    if push == "redis" and not redis_answers():
        if os.environ.get("CI") == "true":
            pytest.fail("Redis does not answer at 127.0.0.1:6379, and CI=true needs it for the Redis push test")
        pytest.skip("Redis does not answer at 127.0.0.1:6379: the Redis backend is not tested here")
    wide = make_settings(database_url).friends
    friends = FriendsSettings(
        push=push,
        tables_per_hour=wide.tables_per_hour,
        joins_per_minute=wide.joins_per_minute,
        code_joins_per_minute=wide.code_joins_per_minute,
        misses_per_minute=wide.misses_per_minute,
    )
    return make_settings(database_url, friends=friends)


class Events:
    """One phone's event stream: each `table` event's data, in order, as it arrives."""

    def __init__(self, lines: AsyncIterator[str]) -> None:
        self.lines = lines

    async def next(self) -> dict[str, Any]:
        async def one() -> dict[str, Any]:
            fields: dict[str, str] = {}
            async for line in self.lines:
                if line == "" and "data" in fields:
                    assert fields.get("event") == "table"
                    data: dict[str, Any] = json.loads(fields["data"])
                    assert fields["id"] == str(data["version"])  # Last-Event-ID is the version, as the data says
                    return data
                if line and not line.startswith(":"):
                    name, _, value = line.partition(": ")
                    fields[name] = value
            raise AssertionError("the stream ended")

        return await asyncio.wait_for(one(), WAIT)

    async def newer_than(self, version: int) -> dict[str, Any]:
        """The next hint past `version`, as a phone reads them: an older one (the join's, published a moment before
        the stream began, may arrive after the stream's first event) tells it nothing new."""
        while (hint := await self.next())["version"] <= version:
            pass
        return hint


@contextlib.asynccontextmanager
async def stream(client: httpx.AsyncClient, phone: Phone) -> AsyncIterator[Events]:
    async with client.stream("GET", f"{TABLES}/{phone.code}/events", headers=phone.headers()) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        yield Events(response.aiter_lines())


@pytest.mark.parametrize("push", ["postgres", "redis"])
async def test_a_move_on_one_instance_reaches_a_phone_streaming_from_the_other(database_url: str, push: str) -> None:
    settings, clock = backend_settings(database_url, push), ManualClock()
    async with serving(settings, clock) as a, serving(settings, clock) as b:
        host = await create(a.client, seats=2)
        guest = await join(a.client, host.code, "Guest")
        on_b = Phone(client=b.client, code=host.code, seat=guest.seat, token=guest.token)
        async with stream(b.client, on_b) as events:
            first = await events.next()  # the table as it is when the stream starts
            started = await host.ok("/start")  # through instance A
            hint = await events.newer_than(first["version"])
            assert (hint["version"], hint["game_version"], hint["status"]) == (
                started["version"],
                started["game"]["version"],
                "playing",
            )
            assert hint["version"] > first["version"]
            assert hint["code"] == host.code


async def test_a_phone_that_reconnects_catches_up_on_exactly_the_records_it_missed(database_url: str) -> None:
    settings, clock = backend_settings(database_url, "postgres"), ManualClock()
    async with serving(settings, clock) as a, serving(settings, clock) as b:
        host = await create(a.client, seats=2, rounds=5)
        guest = await join(a.client, host.code, "Guest")
        await host.ok("/start")
        phones = {host.seat: host, guest.seat: guest}
        seen = await guest.state()
        last = seen["game"]["version"]
        for _ in range(4):  # moves made while the guest's phone slept
            state = await host.state()
            if state["status"] == "over":
                break
            mover = phones[int(state["game"]["to_act"].removeprefix("seat-"))]
            await mover.ok("/moves", quiet_move(await mover.state()))
        woke = Phone(client=b.client, code=host.code, seat=guest.seat, token=guest.token)
        async with stream(b.client, woke) as events:
            now = await events.next()
            caught = await woke.state(after=last)
            assert now["game_version"] == caught["game"]["version"]
            seqs = [r["seq"] for r in caught["records"]]
            assert seqs == list(range(last + 1, caught["game"]["version"] + 1))  # none missed, none twice
            whole = await host.get("/records", limit=1000)
            assert [r for r in whole.json()["items"] if r["seq"] > last] == caught["records"]


async def test_a_stream_whose_replicas_listener_was_cut_reads_its_table_again_and_hears_the_next_move(
    database_url: str, db: Any
) -> None:
    # Before the mend the framework's LISTEN connection was never replaced: the stream kept sending keep-alives and
    # never another hint, so the phone on B waited for a move that had happened.
    settings, clock = backend_settings(database_url, "postgres"), ManualClock()
    async with serving(settings, clock) as a, serving(settings, clock) as b:
        host = await create(a.client, seats=2)
        guest = await join(a.client, host.code, "Guest")
        on_b = Phone(client=b.client, code=host.code, seat=guest.seat, token=guest.token)
        async with stream(b.client, on_b) as events:
            first = await events.next()
            listener = b.app.state.push._backend._listener_conn
            assert await db.fetchval("SELECT pg_terminate_backend($1)", listener.get_server_pid())
            started = await host.ok("/start")  # through A while B's listener is away: B cannot hear its hint
            again = await events.newer_than(first["version"])  # B's listener back: the table read again
            assert (again["version"], again["status"]) == (started["version"], "playing")
            assert b.app.state.push._backend._listener_conn is not listener
            phones = [host, Phone(client=a.client, code=host.code, seat=guest.seat, token=guest.token)]
            states = [await p.state() for p in phones]
            mover = next(i for i, s in enumerate(states) if s["you"]["to_act"])
            moved = await phones[mover].ok("/moves", quiet_move(states[mover]))  # on A: B hears its hint again
            assert (await events.newer_than(again["version"]))["version"] == moved["version"]
