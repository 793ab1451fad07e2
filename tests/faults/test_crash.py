"""kill -9 of a real `reddog serve` under load, then a restart: nothing the clients were told is taken back, nothing
is paid twice or lost, every retry replays its first answer byte for byte, and the audit chains verify."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest

from tests.faults.load import (
    Exchange,
    assert_each_card_dealt_once,
    assert_paid_once,
    assert_settled_by_hand,
    audit_verify,
    history,
    play,
    send,
)
from tests.support.client import Signed
from tests.support.scratch import Database, verified_scratch_database
from tests.support.served import OPERATOR, served

# `make fuzz` runs the long form: more clients, longer load.
CLIENTS = int(os.environ.get("RD_FAULT_CLIENTS", "8"))
LOAD_SECONDS = float(os.environ.get("RD_FAULT_LOAD_SECONDS", "0.7"))  # before the kill


@pytest.fixture(scope="module")
async def database(database_server: str) -> AsyncIterator[Database]:
    """This module's own database, verified whole when the module is done."""
    async with verified_scratch_database(database_server) as database:
        yield database


async def load_until_killed(url: str, pid: int) -> tuple[list[str], list[list[Exchange]]]:
    """CLIENTS signed clients, each on its own table, play until the server is killed under them."""
    stop = asyncio.Event()
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        api = Signed(client, *OPERATOR)
        # Every other table keeps one shoe across its rounds (and plays them one at a time): its position must
        # survive the crash too.
        policies = [("per_round", "cut_card")[i % 2] for i in range(CLIENTS)]
        tables = [
            (await api.table(name=f"crash-{i}", raise_window_seconds=300, shoe_policy=policy))["table_id"]
            for i, policy in enumerate(policies)
        ]
        logs: list[list[Exchange]] = [[] for _ in tables]
        players = [
            asyncio.create_task(play(api, t, f"c{i}", logs[i], stop, leave_open=policies[i] == "per_round"))
            for i, t in enumerate(tables)
        ]
        started = time.monotonic()
        # LOAD_SECONDS of load and a few answers per client at least, however slow the machine is today
        while time.monotonic() - started < LOAD_SECONDS or sum(map(len, logs)) < 3 * CLIENTS:
            assert time.monotonic() - started < 60, "the load never got going"
            await asyncio.sleep(0.02)
        os.kill(pid, signal.SIGKILL)  # mid-load: requests in flight, transactions open
        stop.set()
        await asyncio.gather(*players)
    return tables, logs


async def test_a_server_killed_under_load_and_restarted_keeps_every_answer_it_gave(
    database: Database, db: asyncpg.Connection, tmp_path: Path
) -> None:
    with served(database.app_url, tmp_path / "first") as first:
        tables, logs = await load_until_killed(first.api_url, first.pid)
    answered = [e for log in logs for e in log if e.answered]
    assert any(not e.answered for log in logs for e in log), "the kill came after every request had its answer"
    kept = {e.key: (e.status, e.content) for e in answered}

    with served(database.app_url, tmp_path / "second") as second:
        async with httpx.AsyncClient(base_url=second.api_url, timeout=30) as client:
            api = Signed(client, *OPERATOR)
            # Every request sent again with its own key and bytes (each client's in its order, the clients side by
            # side): an answered one replays its answer byte for byte; one that died with the server gets its answer
            # now, whether its transaction had committed or not.
            await asyncio.gather(*(resend(api, log, kept) for log in logs))
            for table_id, log in zip(tables, logs, strict=True):
                await check_table(api, db, table_id, log, kept)
    audit_verify(database.owner_url)


async def resend(api: Signed, log: list[Exchange], kept: dict[str, tuple[int | None, bytes]]) -> None:
    for exchange in log:
        again = await send(api, Exchange(path=exchange.path, key=exchange.key, body=exchange.body))
        if exchange.key in kept:
            assert (again.status, again.content) == kept[exchange.key], exchange.key
        else:
            assert again.status in (200, 201), again.content
            kept[exchange.key] = (again.status, again.content)


async def check_table(
    api: Signed, db: asyncpg.Connection, table_id: str, log: list[Exchange], kept: dict[str, tuple[int | None, bytes]]
) -> None:
    """Each open request made one round; each round shows the cards its client saw; the open ones settle right."""
    seen: dict[str, dict[str, Any]] = {}  # the last answer each round's client has, per round
    for exchange in log:
        rnd = json.loads(kept[exchange.key][1])
        seen[rnd["round_id"]] = rnd
    stored = {r["round_id"]: r for r in await history(api, table_id)}
    assert set(stored) == set(seen), "a round with no request that made it, or a request whose round is gone"
    for round_id, rnd in seen.items():
        now = stored[round_id]
        assert now["cards"] == rnd["cards"]
        assert (now["status"], now["bets"]) == (rnd["status"], rnd["bets"])
        if now["status"] == "raise_window":
            closed = await api.ok("POST", f"/v1/rounds/{round_id}/close", {"requested_by": "after the crash"})
            assert closed["cards"][:2] == rnd["cards"]  # the posts the client saw, then the third card
            assert [b["decision"] for b in closed["bets"]] == ["timeout_call"]
            stored[round_id] = closed
        assert_settled_by_hand(stored[round_id])
    assert_each_card_dealt_once(list(stored.values()))
    await assert_paid_once(db, table_id, list(stored.values()))
