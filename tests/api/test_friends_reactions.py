"""Emoji reactions at a friends' table: a seat's reaction reaches another phone's push stream, on another app
instance, as `event: reaction` with no version; a reaction outside the fixed set, or from a spectator, is refused
and writes nothing; a seat past its few in ten seconds is refused with 429 until the window turns."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import asyncpg

from service.settings import Settings
from tests.api.friends_helpers import Phone, create, join
from tests.api.helpers import problem
from tests.api.test_friends_limits import address, limited, phones
from tests.api.test_friends_push import WAIT, backend_settings, stream
from tests.support.clock import ManualClock
from tests.support.in_loop import serving


async def next_event(lines: Any) -> tuple[dict[str, str], dict[str, Any]]:
    """The stream's next event: its fields (event, id) and its data."""

    async def one() -> tuple[dict[str, str], dict[str, Any]]:
        fields: dict[str, str] = {}
        async for line in lines:
            if line == "" and "data" in fields:
                return fields, json.loads(fields["data"])
            if line and not line.startswith(":"):
                name, _, value = line.partition(": ")
                fields[name] = value
        raise AssertionError("the stream ended")

    return await asyncio.wait_for(one(), WAIT)


async def limit_rows(database_url: str, bucket_like: str) -> int:
    conn = await asyncpg.connect(database_url)
    try:
        found: int = await conn.fetchval(
            "SELECT coalesce(sum(hits), 0) FROM friends_limits WHERE bucket LIKE $1", bucket_like
        )
        return found
    finally:
        await conn.close()


async def test_a_seats_reaction_reaches_another_phone_on_another_instance_and_moves_no_version(
    database_url: str,
) -> None:
    settings, clock = backend_settings(database_url, "postgres"), ManualClock()
    async with serving(settings, clock) as a, serving(settings, clock) as b:
        host = await create(a.client, seats=2)
        guest = await join(a.client, host.code, "Guest")
        on_b = Phone(client=b.client, code=host.code, seat=guest.seat, token=guest.token)
        before = await host.state()
        async with stream(b.client, on_b) as events:
            fields, first = await next_event(events.lines)  # the table as the stream starts
            assert fields["event"] == "table"
            sent = await host.post("/reactions", {"reaction": "namaste"})
            assert sent.status_code == 202, sent.text
            assert sent.json() == {"code": host.code, "seat": 0, "reaction": "namaste"}
            while (got := await next_event(events.lines))[0]["event"] == "table":
                pass  # the guest's join, published just before the stream began, may come after its first event
            fields, data = got
            assert data == {"code": host.code, "seat": 0, "reaction": "namaste"}
            assert "id" not in fields  # no version: a phone's Last-Event-ID stays the table's
        after = await host.state()
        assert after["version"] == before["version"] == first["version"]  # the table did not change
        assert after["game"] == before["game"]  # nor did any game (none yet; a started one is a chain untouched)


async def test_a_reaction_outside_the_fixed_set_or_from_a_spectator_is_refused_and_writes_nothing(
    database_url: str,
) -> None:
    async with phones(limited(database_url), ManualClock()) as client:
        host = await create(client(address()), seats=2)
        for bad in ({"reaction": "💩"}, {"reaction": "hello friends"}, {"reaction": ""}, {}, {"reaction": 3}):
            refused = await host.post("/reactions", bad)
            assert refused.status_code in (400, 422), refused.text
            assert refused.json()["code"] == "VALIDATION_ERROR"
        spectator = Phone(client=client(address()), code=host.code, seat=None, token=None)
        problem(await spectator.post("/reactions", {"reaction": "clap"}), 401, "SEAT_TOKEN_REQUIRED")
        tables = await asyncpg.connect(database_url)
        try:
            table_hex = (await tables.fetchval("SELECT table_id FROM friends_tables WHERE code = $1", host.code)).hex
        finally:
            await tables.close()
        assert await limit_rows(database_url, f"react:{table_hex}:%") == 0


async def test_a_seat_past_its_reactions_in_ten_seconds_is_refused_until_the_window_turns(database_url: str) -> None:
    settings: Settings = limited(database_url, reactions_per_10s=3)
    clock = ManualClock()
    async with phones(settings, clock) as client:
        host = await create(client(address()), seats=2)
        guest = await join(client(address()), host.code, "Guest")
        clock.advance(10 - clock.now.second % 10)  # the start of a ten-second window: all of this falls in it
        for reaction in ("clap", "laugh", "fire"):
            assert (await host.post("/reactions", {"reaction": reaction})).status_code == 202
        refused = await host.post("/reactions", {"reaction": "wow"})
        body = problem(refused, 429, "RATE_LIMITED")
        assert body["retryable"] is True
        assert 1 <= int(refused.headers["retry-after"]) <= 10
        assert (await guest.post("/reactions", {"reaction": "sad"})).status_code == 202  # the limit is per seat
        clock.advance(10)
        assert (await host.post("/reactions", {"reaction": "wow"})).status_code == 202
