"""Joins are idempotent: a phone that retries a join whose reply it never got (same `join_key`), or joins again with
the seat token it has, gets the seat it already took, never a second one; two identical joins at once, on two
replicas, take one seat between them."""

from __future__ import annotations

import asyncio
import hashlib
import uuid
from typing import Any

import asyncpg
import httpx
from litestar import Litestar
from litestar.testing import AsyncTestClient

from tests.api.friends_helpers import TABLES, create
from tests.api.test_friends_push import backend_settings
from tests.support.clock import ManualClock
from tests.support.in_loop import serving


async def _join(client: httpx.AsyncClient, code: str, **body: Any) -> httpx.Response:
    return await client.post(f"{TABLES}/{code}/join", json={"name": "Guest", **body})


async def _people(db: asyncpg.Connection, code: str) -> list[tuple[int, str]]:
    rows = await db.fetch(
        "SELECT s.seat, s.name FROM friends_seats s JOIN friends_tables t USING (table_id)"
        " WHERE t.code = $1 AND t.status <> 'closed' ORDER BY s.seat",
        code,
    )
    return [(r["seat"], r["name"]) for r in rows]


async def test_a_join_retried_with_its_key_gets_the_same_seat_and_a_token_that_works(
    http: AsyncTestClient[Litestar], db: asyncpg.Connection
) -> None:
    host = await create(http)
    key = str(uuid.uuid4())
    first = await _join(http, host.code, bearer=True, join_key=key)
    version = (await host.state())["version"]
    retried = await _join(http, host.code, bearer=True, join_key=key)  # the first reply was "lost"
    assert first.status_code == retried.status_code == 201, retried.text
    assert retried.json()["seat"] == first.json()["seat"] == 1
    assert retried.json()["token"] == first.json()["token"]
    assert await _people(db, host.code) == [(0, "Host"), (1, "Guest")]  # no second seat
    assert (await host.state())["version"] == version  # a retry changes nothing
    seen = await http.get(f"{TABLES}/{host.code}", headers={"authorization": f"Bearer {retried.json()['token']}"})
    assert seen.json()["you"]["seat"] == 1


async def test_a_cookie_join_retried_from_a_phone_without_the_cookie_gets_the_same_cookie(
    http: AsyncTestClient[Litestar], db: asyncpg.Connection
) -> None:
    host = await create(http)
    http.cookies.clear()
    key = str(uuid.uuid4())
    first = await _join(http, host.code, join_key=key)
    http.cookies.clear()  # the reply and its Set-Cookie never reached the phone
    retried = await _join(http, host.code, join_key=key)
    assert retried.status_code == 201, retried.text
    assert retried.json()["seat"] == first.json()["seat"] == 1
    assert retried.json()["token"] is None  # still a cookie's join: the body never shows the token
    assert retried.cookies["rd_seat"] == first.cookies["rd_seat"]
    assert await _people(db, host.code) == [(0, "Host"), (1, "Guest")]


async def test_a_join_that_carries_its_seat_token_gets_that_seat_again(
    http: AsyncTestClient[Litestar], db: asyncpg.Connection
) -> None:
    host = await create(http)
    http.cookies.clear()
    first = await _join(http, host.code)  # a cookie phone
    cookie = first.cookies["rd_seat"]
    again = await _join(http, host.code)  # the jar sends the cookie, as a browser does after a refresh
    assert again.status_code == 201, again.text
    assert again.json()["seat"] == first.json()["seat"] == 1
    asked = await _join(http, host.code, bearer=True)  # a script asking for the token in the body
    assert (asked.json()["seat"], asked.json()["token"]) == (1, None)  # the HttpOnly cookie's token is never shown
    assert asked.cookies["rd_seat"] == cookie
    http.cookies.clear()
    bearer = await _join(http, host.code, bearer=True)  # a phone without cookies: a seat of its own
    token = bearer.json()["token"]
    by_header = await http.post(
        f"{TABLES}/{host.code}/join",
        json={"name": "Guest", "bearer": True},
        headers={"authorization": f"Bearer {token}"},
    )
    assert (by_header.json()["seat"], by_header.json()["token"]) == (bearer.json()["seat"], token) == (2, token)
    assert await _people(db, host.code) == [(0, "Host"), (1, "Guest"), (2, "Guest")]


async def test_a_retry_still_gets_its_seat_once_the_table_is_full_or_started(http: AsyncTestClient[Litestar]) -> None:
    host = await create(http, seats=2)
    key = str(uuid.uuid4())
    first = await _join(http, host.code, bearer=True, join_key=key)
    full = await _join(http, host.code, bearer=True, join_key=key)
    assert (full.status_code, full.json()["seat"]) == (201, first.json()["seat"])
    await host.ok("/start")
    started = await _join(http, host.code, bearer=True, join_key=key)
    assert started.status_code == 201, started.text
    assert started.json()["token"] == first.json()["token"]
    assert started.json()["table"]["status"] == "playing"
    newcomer = await _join(http, host.code, bearer=True, join_key=str(uuid.uuid4()))
    assert newcomer.json()["code"] == "TABLE_STARTED"


async def test_a_key_sent_again_with_another_name_or_token_mode_is_refused_and_writes_nothing(
    http: AsyncTestClient[Litestar], db: asyncpg.Connection
) -> None:
    host = await create(http)
    http.cookies.clear()
    key = str(uuid.uuid4())
    assert (await _join(http, host.code, join_key=key)).status_code == 201
    http.cookies.clear()
    version = (await host.state())["version"]
    for body in ({"name": "Someone else", "join_key": key}, {"name": "Guest", "join_key": key, "bearer": True}):
        refused = await http.post(f"{TABLES}/{host.code}/join", json=body)
        assert (refused.status_code, refused.json()["code"]) == (422, "VALIDATION_ERROR"), refused.text
        assert "token" not in refused.text.lower().replace("token mode", "")
    assert await _people(db, host.code) == [(0, "Host"), (1, "Guest")]
    assert (await host.state())["version"] == version


async def test_a_join_key_is_stored_only_as_its_sha256_and_the_token_is_not_in_the_row(
    http: AsyncTestClient[Litestar], db: asyncpg.Connection
) -> None:
    host = await create(http)
    key = str(uuid.uuid4())
    token = (await _join(http, host.code, bearer=True, join_key=key)).json()["token"]
    row = await db.fetchrow(
        "SELECT s.* FROM friends_seats s JOIN friends_tables t USING (table_id) WHERE t.code = $1 AND s.seat = 1",
        host.code,
    )
    assert row is not None
    assert row["join_key_hash"] == hashlib.sha256(key.encode()).digest()
    assert row["token_hash"] == hashlib.sha256(token.encode()).digest()
    stored = b"".join(v if isinstance(v, bytes) else str(v).encode() for v in row.values())
    assert key.encode() not in stored
    assert token.encode() not in stored
    assert len(row["join_salt"]) == 32


async def test_two_identical_joins_at_once_on_two_replicas_take_one_seat(database_url: str) -> None:
    settings, clock = backend_settings(database_url, "postgres"), ManualClock()
    async with serving(settings, clock) as a, serving(settings, clock) as b:
        host = await create(a.client, seats=4)
        key = str(uuid.uuid4())
        for _ in range(5):  # each time both requests are in flight together; one waits for the other's lock
            replies = await asyncio.gather(
                _join(a.client, host.code, bearer=True, join_key=key),
                _join(b.client, host.code, bearer=True, join_key=key),
            )
            assert [r.status_code for r in replies] == [201, 201], [r.text for r in replies]
            assert {(r.json()["seat"], r.json()["token"]) for r in replies} == {
                (replies[0].json()["seat"], replies[0].json()["token"])
            }
        state = await host.state()
        assert [p["name"] for p in state["players"] if p is not None] == ["Host", "Guest"]
        other = await asyncio.gather(*(_join(c.client, host.code, bearer=True) for c in (a, b)))
        assert sorted(r.json()["seat"] for r in other) == [2, 3]  # two phones without keys: two seats
