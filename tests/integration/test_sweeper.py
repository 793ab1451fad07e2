"""The sweeper keeps the raise-window deadline with no process state: it claims expired rounds, SKIP LOCKED."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any
from uuid import UUID

import asyncpg
import pytest

from audit.records import decode_record
from paytables.red_dog.events import BetSettled, Decided, Event, RoundSettled
from service.db import audit_sql
from service.runtime.sweeper import sweep
from service.settings import Settings
from tests.conftest import make_settings
from tests.support.client import Signed
from tests.support.clock import ManualClock
from tests.support.live import live
from tests.support.round_rows import state_as_jsonb
from tests.support.scratch import Database, verified_scratch_database


@pytest.fixture(scope="module")
async def database(database_server: str) -> AsyncIterator[Database]:
    """This module's own database: a sweep claims every expired round in it, so no other test's may be there."""
    async with verified_scratch_database(database_server) as database:
        yield database


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


def move_past_deadline(clock: ManualClock, rnd: Any) -> None:
    clock.now = max(clock.now, datetime.fromisoformat(rnd["raise_window_closes_at"]))


async def round_events(db: asyncpg.Connection, round_id: str) -> list[Event]:
    return [decode_record(body).event for body in await audit_sql.select_round_records(db, UUID(round_id))]


async def stored_status(db: asyncpg.Connection, round_id: str) -> str:
    status: str = await db.fetchval("SELECT status FROM rounds WHERE round_id = $1", UUID(round_id))
    return status


async def test_a_sweep_settles_an_expired_round_calling_its_undecided_bets_once(
    settings: Settings, db: asyncpg.Connection, clock: ManualClock
) -> None:
    async with live(settings, clock=clock) as server:
        rnd = await expiring_round(server.api)
        assert await sweep(server.runner) == 0  # not expired yet
        move_past_deadline(clock, rnd)
        assert await stored_status(db, rnd["round_id"]) == "raise_window"
        assert await sweep(server.runner) == 1
        # Read straight from the database: no request has touched the round since it expired.
        assert await stored_status(db, rnd["round_id"]) == "settled"
        records = await round_events(db, rnd["round_id"])
        assert await sweep(server.runner) == 0
        assert await round_events(db, rnd["round_id"]) == records
        settled = await server.api.ok("GET", f"/v1/rounds/{rnd['round_id']}")
        # A decision after the deadline gets the same answer whether or not a sweep settled the round first.
        late = await server.api.post(
            f"/v1/rounds/{rnd['round_id']}/decisions", {"bet_id": rnd["bets"][1]["bet_id"], "action": "raise"}
        )
        assert (late.status_code, late.json()["code"]) == (409, "RAISE_WINDOW_CLOSED")
    decisions = [(e.bet_id, e.action, e.by, e.actor) for e in records if isinstance(e, Decided)]
    p1, p2 = (b["bet_id"] for b in rnd["bets"])
    assert decisions == [(p1, "raise", "player", server.api.operator_id), (p2, "timeout_call", "timeout", "system")]
    assert sum(isinstance(e, RoundSettled) for e in records) == 1
    assert sorted(e.bet_id for e in records if isinstance(e, BetSettled)) == [p1, p2]
    # 9 lies between 3 and J (spread 7, 1 to 1): the raised wager 20 wins 20, the called ante 4 wins 4.
    assert [(b["decision"], b["result"], b["payout"], b["net"]) for b in settled["bets"]] == [
        ("raise", "win", 40, 20),
        ("timeout_call", "win", 8, 4),
    ]


async def test_a_sweep_skips_a_round_another_transaction_holds_instead_of_waiting(
    settings: Settings, db: asyncpg.Connection, clock: ManualClock
) -> None:
    async with live(settings, clock=clock) as server:
        rnd = await expiring_round(server.api)
        move_past_deadline(clock, rnd)
        async with db.transaction():
            await db.execute("SELECT 1 FROM rounds WHERE round_id = $1 FOR UPDATE", UUID(rnd["round_id"]))
            started = time.monotonic()
            # Waiting on the lock would hang until this transaction ends, and the timeout would fire.
            assert await asyncio.wait_for(sweep(server.runner), timeout=5) == 0
            assert time.monotonic() - started < 2
        assert await stored_status(db, rnd["round_id"]) == "raise_window"
        assert await sweep(server.runner) == 1
    assert await stored_status(db, rnd["round_id"]) == "settled"


async def test_the_background_sweeper_settles_an_expired_round_that_no_request_touches(
    database_url: str, db: asyncpg.Connection, clock: ManualClock
) -> None:
    settings = make_settings(database_url, sweep_interval_seconds=0.05)
    async with live(settings, sweep=True, clock=clock) as running:
        rnd = await expiring_round(running.api)
        move_past_deadline(clock, rnd)
        for _ in range(100):  # five seconds at most for the background task's next pass (every 0.05 s)
            if await stored_status(db, rnd["round_id"]) != "raise_window":
                break
            await asyncio.sleep(0.05)
        assert await stored_status(db, rnd["round_id"]) == "settled"
    decisions = [(e.action, e.by) for e in await round_events(db, rnd["round_id"]) if isinstance(e, Decided)]
    assert decisions == [("raise", "player"), ("timeout_call", "timeout")]


async def test_a_round_that_fails_to_settle_does_not_stop_the_sweeper_settling_the_others(
    settings: Settings, db: asyncpg.Connection, clock: ManualClock
) -> None:
    async with live(settings, clock=clock) as server:
        poisoned = await expiring_round(server.api)
        healthy = await expiring_round(server.api)
        # A stored round naming a paytable that was never released cannot settle; it must not block the rest.
        await state_as_jsonb(db, UUID(poisoned["round_id"]))
        await db.execute(
            "UPDATE rounds SET state = jsonb_set(state, '{paytable_id}', '\"withdrawn/v9\"') WHERE round_id = $1",
            UUID(poisoned["round_id"]),
        )
        move_past_deadline(clock, healthy)
        assert await sweep(server.runner) == 1
        statuses = {r["round_id"]: r["status"] for r in await db.fetch("SELECT round_id::text, status FROM rounds")}
        assert (statuses[poisoned["round_id"]], statuses[healthy["round_id"]]) == ("raise_window", "settled")
        # Repair the round: the next pass settles it, so nothing is lost for good.
        await db.execute(
            "UPDATE rounds SET state = jsonb_set(state, '{paytable_id}', '\"standard/v1\"') WHERE round_id = $1",
            UUID(poisoned["round_id"]),
        )
        assert await sweep(server.runner) == 1
