"""The sweeper keeps the raise-window deadline with no process state: it claims expired rounds, SKIP LOCKED."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import asyncpg
import pytest

from audit.chain import decode
from service.db import audit
from service.settings import Settings
from service.sweeper import sweep
from tests.conftest import make_settings
from tests.support.client import Signed
from tests.support.live import live
from tests.support.scratch import verified_scratch_database


@pytest.fixture(scope="module")
async def database_url(database_server: str) -> AsyncIterator[str]:
    """This module's own database: a sweep claims every expired round in it, so no other test's may be there."""
    async with verified_scratch_database(database_server) as url:
        yield url


async def expiring_round(api: Signed) -> Any:
    """A one-second spread round (3 and J: spread 7, 1 to 1; a 9 wins) with p1 raised and p2 undecided."""
    table = await api.table(mode="test", raise_window_seconds=1)
    body = {
        "bets": [{"player_id": "p1", "ante": 10}, {"player_id": "p2", "ante": 4}],
        "forced_cards": ["3S", "JH", "9D"],
    }
    rnd = await api.ok("POST", f"/v1/tables/{table['table_id']}/rounds", body)
    await api.ok(
        "POST", f"/v1/rounds/{rnd['round_id']}/decisions", {"bet_id": rnd["bets"][0]["bet_id"], "action": "raise"}
    )
    return rnd


async def wait_until_expired(rnd: Any) -> None:
    closes_at = datetime.fromisoformat(rnd["raise_window_closes_at"])
    await asyncio.sleep(max(0.0, (closes_at - datetime.now(UTC)).total_seconds()) + 0.05)


async def round_records(db: asyncpg.Connection, round_id: str) -> list[tuple[str, str | None, dict[str, Any]]]:
    bodies = await audit.select_round_records(db, UUID(round_id))
    return [(r.kind, r.bet_id, r.payload) for r in map(decode, bodies)]


async def stored_status(db: asyncpg.Connection, round_id: str) -> str:
    status: str = await db.fetchval("SELECT status FROM rounds WHERE round_id = $1", UUID(round_id))
    return status


async def test_a_sweep_settles_an_expired_round_calling_its_undecided_bets_once(
    settings: Settings, db: asyncpg.Connection
) -> None:
    async with live(settings) as server:
        rnd = await expiring_round(server.api)
        assert await sweep(server.pool, settings) == 0  # not expired yet
        await wait_until_expired(rnd)
        assert await stored_status(db, rnd["round_id"]) == "raise_window"
        assert await sweep(server.pool, settings) == 1
        # Read straight from the database: no request has touched the round since it expired.
        assert await stored_status(db, rnd["round_id"]) == "settled"
        records = await round_records(db, rnd["round_id"])
        assert await sweep(server.pool, settings) == 0
        assert await round_records(db, rnd["round_id"]) == records
        settled = await server.api.ok("GET", f"/v1/rounds/{rnd['round_id']}")
        # A decision after the deadline gets the same answer whether or not a sweep settled the round first.
        late = await server.api.post(
            f"/v1/rounds/{rnd['round_id']}/decisions", {"bet_id": rnd["bets"][1]["bet_id"], "action": "raise"}
        )
        assert (late.status_code, late.json()["code"]) == (409, "RAISE_WINDOW_CLOSED")
    decisions = [(bet, p["action"], p["by"]) for kind, bet, p in records if kind == "decision"]
    p1, p2 = (b["bet_id"] for b in rnd["bets"])
    assert decisions == [(p1, "raise", "player"), (p2, "timeout_call", "timeout")]
    assert [kind for kind, _, _ in records].count("round_settled") == 1
    assert sorted(bet or "" for kind, bet, _ in records if kind == "bet_settled") == [p1, p2]
    # 9 lies between 3 and J (spread 7, 1 to 1): the raised wager 20 wins 20, the called ante 4 wins 4.
    assert [(b["decision"], b["result"], b["payout"], b["net"]) for b in settled["bets"]] == [
        ("raise", "win", 40, 20),
        ("timeout_call", "win", 8, 4),
    ]


async def test_a_sweep_skips_a_round_another_transaction_holds_instead_of_waiting(
    settings: Settings, db: asyncpg.Connection
) -> None:
    async with live(settings) as server:
        rnd = await expiring_round(server.api)
        await wait_until_expired(rnd)
        async with db.transaction():
            await db.execute("SELECT 1 FROM rounds WHERE round_id = $1 FOR UPDATE", UUID(rnd["round_id"]))
            started = time.monotonic()
            # Waiting on the lock would hang until this transaction ends, and the timeout would fire.
            assert await asyncio.wait_for(sweep(server.pool, settings), timeout=5) == 0
            assert time.monotonic() - started < 2
        assert await stored_status(db, rnd["round_id"]) == "raise_window"
        assert await sweep(server.pool, settings) == 1
    assert await stored_status(db, rnd["round_id"]) == "settled"


async def test_the_background_sweeper_settles_an_expired_round_that_no_request_touches(
    database_url: str, db: asyncpg.Connection
) -> None:
    settings = make_settings(database_url, sweep_interval_seconds=0.2)
    async with live(settings, sweep=True) as running:
        rnd = await expiring_round(running.api)
        for _ in range(50):  # five seconds at most; the sweeper runs every 0.2 s
            if await stored_status(db, rnd["round_id"]) != "raise_window":
                break
            await asyncio.sleep(0.1)
        assert await stored_status(db, rnd["round_id"]) == "settled"
    decisions = [
        (p["action"], p["by"]) for kind, _, p in await round_records(db, rnd["round_id"]) if kind == "decision"
    ]
    assert decisions == [("raise", "player"), ("timeout_call", "timeout")]


async def test_a_round_that_fails_to_settle_does_not_stop_the_sweeper_settling_the_others(
    settings: Settings, db: asyncpg.Connection
) -> None:
    async with live(settings) as server:
        poisoned = await expiring_round(server.api)
        healthy = await expiring_round(server.api)
        # A stored round naming a paytable that was never released cannot settle; it must not block the rest.
        await db.execute(
            "UPDATE rounds SET state = jsonb_set(state, '{paytable_id}', '\"withdrawn/v9\"') WHERE round_id = $1",
            UUID(poisoned["round_id"]),
        )
        await wait_until_expired(healthy)
        assert await sweep(server.pool, settings) == 1
        statuses = {r["round_id"]: r["status"] for r in await db.fetch("SELECT round_id::text, status FROM rounds")}
        assert (statuses[poisoned["round_id"]], statuses[healthy["round_id"]]) == ("raise_window", "settled")
        # Repair the round: the next pass settles it, so nothing is lost for good.
        await db.execute(
            "UPDATE rounds SET state = jsonb_set(state, '{paytable_id}', '\"standard/v1\"') WHERE round_id = $1",
            UUID(poisoned["round_id"]),
        )
        assert await sweep(server.pool, settings) == 1
