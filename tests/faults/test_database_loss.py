"""The database lost under load (its backends terminated, then no connection accepted for a while): requests in the
gap are retryable 503s, never 500s; the service recovers by itself; nothing is half-written."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import asyncpg
import msgspec
import pytest

from service.settings import Settings
from tests.conftest import make_settings
from tests.faults.load import ANTE, assert_paid_once, assert_settled_by_hand, history
from tests.faults.proxy import Proxy, proxied
from tests.support.client import Signed
from tests.support.live import live
from tests.support.scratch import TEST_LOGIN, Database, verified_scratch_database, verify_everything

# `make fuzz` runs the long form: more clients, a longer gap.
CLIENTS = int(os.environ.get("RD_FAULT_CLIENTS", "6"))
GAP_SECONDS = float(os.environ.get("RD_FAULT_GAP_SECONDS", "1.5"))  # how long the database refuses connections
GIVE_UP_SECONDS = 30  # a client retrying a 503 longer than this after the gap means the service did not recover


class Answer(msgspec.Struct, frozen=True, kw_only=True):
    at: float
    status: int
    body: bytes
    retry_after: str | None


@pytest.fixture(scope="module")
async def database(database_server: str) -> AsyncIterator[Database]:
    """This module's own database: its connections are terminated here."""
    async with verified_scratch_database(database_server) as database:
        yield database


async def until_answered(api: Signed, path: str, body: dict[str, Any], key: str, answers: list[Answer]) -> Any:
    """What an aggregator does: retry a 503 with the same key and bytes until the service answers."""
    raw = json.dumps(body).encode()
    deadline = time.monotonic() + GIVE_UP_SECONDS
    while True:
        response = await api.post(path, key=key, raw=raw)
        answers.append(
            Answer(
                at=time.monotonic(),
                status=response.status_code,
                body=response.content,
                retry_after=response.headers.get("retry-after"),
            )
        )
        if response.status_code != 503 or time.monotonic() > deadline:
            return response.json()
        await asyncio.sleep(0.05)


async def until(holds: Callable[[], bool], failure: str, seconds: float = GIVE_UP_SECONDS) -> None:
    """Poll until `holds()` is true: a condition waited for, not a guessed sleep; past `seconds`, fail saying why."""
    deadline = time.monotonic() + seconds
    while not holds():
        if time.monotonic() > deadline:
            raise AssertionError(f"{failure} (waited {seconds} s)")
        await asyncio.sleep(0.02)


async def play(api: Signed, table_id: str, name: str, answers: list[Answer], stop: asyncio.Event) -> list[Any]:
    """Rounds on one table until told to stop; every spread decided. The last answer each round got."""
    rounds: list[Any] = []
    n = 0
    while not stop.is_set():
        n += 1
        body = {"bets": [{"player_id": "p1", "ante": ANTE}]}
        rnd = await until_answered(api, f"/v1/tables/{table_id}/rounds", body, f"{name}-{n}-open", answers)
        if rnd.get("status") == "raise_window":
            decision = {"bet_id": rnd["bets"][0]["bet_id"], "action": ("call", "raise")[n % 2]}
            path = f"/v1/rounds/{rnd['round_id']}/decisions"
            rnd = await until_answered(api, path, decision, f"{name}-{n}-decide", answers)
        rounds.append(rnd)
    return rounds


async def lose_the_database(db: asyncpg.Connection, proxy: Proxy) -> tuple[float, float]:
    """Terminate the app login's backends, refuse connections for GAP_SECONDS, then let them through again."""
    terminated = await db.fetchval(
        "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
        " WHERE datname = current_database() AND usename = $1) AS t",
        TEST_LOGIN,
    )
    assert terminated >= 1
    begun = time.monotonic()
    await proxy.cut()
    await asyncio.sleep(GAP_SECONDS)
    await proxy.start()
    return begun, time.monotonic()


async def test_a_database_lost_under_load_costs_retryable_503s_and_nothing_else(
    database: Database, db: asyncpg.Connection
) -> None:
    async with proxied(database.app_url) as (url, proxy):
        settings: Settings = make_settings(url, pool_min_size=2, pool_max_size=4)
        async with live(settings) as server:
            tables = [(await server.api.table(name=f"loss-{i}"))["table_id"] for i in range(CLIENTS)]
            answers: list[Answer] = []
            stop = asyncio.Event()
            players = [asyncio.create_task(play(server.api, t, f"c{i}", answers, stop)) for i, t in enumerate(tables)]
            # The database is lost under load: as many rounds answered as there are clients, so all are under way.
            await until(
                lambda: sum(a.status in (200, 201) for a in answers) >= CLIENTS,
                "no load to lose the database under: the clients' rounds were not answered",
            )
            begun, ended = await lose_the_database(db, proxy)
            # The service answers again without a restart: a request that succeeds after the database came back.
            await until(
                lambda: any(a.status in (200, 201) and a.at > ended for a in answers),
                "the service never recovered: no request succeeded after the database came back",
            )
            stop.set()
            played = await asyncio.gather(*players)
            statuses = {a.status for a in answers}
            assert statuses <= {200, 201, 503}, [a.body for a in answers if a.status not in (200, 201, 503)][:3]
            refused = [a for a in answers if a.status == 503]
            assert refused, "no request met the lost database"
            for answer in refused:
                problem = json.loads(answer.body)
                assert (problem["code"], problem["retryable"], answer.retry_after) == ("SERVICE_UNAVAILABLE", True, "1")
                assert begun - 0.5 <= answer.at <= ended + 5, "a 503 long after the database came back"
            for table_id, rounds in zip(tables, played, strict=True):
                stored = await history(server.api, table_id)
                assert {r["round_id"] for r in stored} == {r["round_id"] for r in rounds}
                for rnd in stored:
                    assert_settled_by_hand(rnd)  # every spread was decided, after however many 503s
                await assert_paid_once(db, table_id, stored)
    report = await verify_everything(db)
    assert report.ok, (report.chains.faults[:5], report.rounds.differences[:5])
