"""The sweeper settles expired rounds in batches: many rounds of one table in one transaction, each exactly once,
the table's audit chain carried from round to round; a batch that fails falls back to one round at a time."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any
from uuid import UUID

import asyncpg
import pytest
from prometheus_client import REGISTRY

from audit.records import decode_record
from audit.verify_export import verify_links
from paytables.red_dog.events import RoundSettled
from service.db import audit_sql
from service.runtime import sweeper
from service.settings import Settings
from tests.support.client import Signed
from tests.support.clock import ManualClock
from tests.support.live import live
from tests.support.scratch import Database, verified_scratch_database


@pytest.fixture(scope="module")
async def database(database_server: str) -> AsyncIterator[Database]:
    """This module's own database: a pass counts every open window in it, so no other test's rounds may be there."""
    async with verified_scratch_database(database_server) as database:
        yield database


def sample(name: str) -> float:
    return REGISTRY.get_sample_value(name) or 0.0


async def expiring_rounds(api: Signed, table_id: str, count: int) -> list[Any]:
    """Spread rounds (3 and J: spread 7) left undecided in their one-second window."""
    body = {"bets": [{"player_id": "p1", "ante": 10}], "forced_cards": ["3S", "JH", "9D"]}
    return [await api.ok("POST", f"/v1/tables/{table_id}/rounds", body) for _ in range(count)]


def past_every_deadline(clock: ManualClock, rounds: list[Any]) -> None:
    clock.now = max(clock.now, *(datetime.fromisoformat(r["raise_window_closes_at"]) for r in rounds))


async def statuses(db: asyncpg.Connection, rounds: list[Any]) -> list[str]:
    ids = [UUID(r["round_id"]) for r in rounds]
    found = {
        r["round_id"]: r["status"]
        for r in await db.fetch("SELECT round_id, status FROM rounds WHERE round_id = ANY($1)", ids)
    }
    return [found[i] for i in ids]


async def test_many_expired_rounds_of_one_table_settle_in_batches_each_once_with_the_chain_whole(
    settings: Settings, db: asyncpg.Connection, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sweeper, "SWEEP_BATCH", 4)  # ten rounds of one table take three batches
    async with live(settings, clock=clock) as server:
        busy = await server.api.table(mode="test", raise_window_seconds=1)
        quiet = await server.api.table(mode="test", raise_window_seconds=1)
        rounds = await expiring_rounds(server.api, busy["table_id"], 10) + await expiring_rounds(
            server.api, quiet["table_id"], 3
        )
        past_every_deadline(clock, rounds)
        swept_before, lags_before = sample("reddog_sweeper_settled_total"), sample("reddog_sweeper_lag_seconds_count")
        assert await sweeper.sweep(server.runner) == 13
        assert await sweeper.sweep(server.runner) == 0
    assert await statuses(db, rounds) == ["settled"] * 13
    for table in (busy, quiet):
        links = await audit_sql.select_chain(db, UUID(table["table_id"]))
        assert verify_links(table["table_id"], links).ok
        assert await db.fetchval(
            "SELECT audit_seq FROM game_tables WHERE table_id = $1", UUID(table["table_id"])
        ) == len(links)
        settled = [decode_record(link.body).event for link in links]
        assert sum(isinstance(e, RoundSettled) for e in settled) == (10 if table is busy else 3)
    assert (
        await db.fetchval(
            "SELECT count(*) FROM round_figures WHERE round_id = ANY($1)", [UUID(r["round_id"]) for r in rounds]
        )
        == 13
    )
    assert sample("reddog_sweeper_settled_total") - swept_before == 13
    assert sample("reddog_sweeper_lag_seconds_count") - lags_before == 13
    assert (sample("reddog_open_raise_windows"), sample("reddog_rounds_past_deadline")) == (0, 0)


async def test_a_batch_the_database_refuses_falls_back_to_one_round_at_a_time(
    settings: Settings, db: asyncpg.Connection, clock: ManualClock
) -> None:
    async with live(settings, clock=clock) as server:
        table = await server.api.table(mode="test", raise_window_seconds=1)
        bad, *good = await expiring_rounds(server.api, table["table_id"], 3)
        # A figures row already there: the bad round's insert violates the key, and the batch's one statement fails.
        await db.execute(
            "INSERT INTO round_figures SELECT * FROM (SELECT $1::uuid, table_id, operator_id, 'standard/v1', 6, 'EUR',"
            " true, 'settled', 'spread_7', now(), 1, 0, 0, 0, 1, 0, 0, 0 FROM rounds WHERE round_id = $1) x",
            UUID(bad["round_id"]),
        )
        past_every_deadline(clock, [bad, *good])
        assert await sweeper.sweep(server.runner) == 2
        assert await statuses(db, [bad, *good]) == ["raise_window", "settled", "settled"]
        assert (sample("reddog_open_raise_windows"), sample("reddog_rounds_past_deadline")) == (1, 1)
        await db.execute("DELETE FROM round_figures WHERE round_id = $1", UUID(bad["round_id"]))
        assert await sweeper.sweep(server.runner) == 1
    assert await statuses(db, [bad]) == ["settled"]


async def test_a_round_another_transaction_holds_is_left_and_counted_past_its_deadline(
    settings: Settings, db: asyncpg.Connection, clock: ManualClock
) -> None:
    async with live(settings, clock=clock) as server:
        table = await server.api.table(mode="test", raise_window_seconds=1)
        held, free = await expiring_rounds(server.api, table["table_id"], 2)
        past_every_deadline(clock, [held, free])
        async with db.transaction():
            await db.execute("SELECT 1 FROM rounds WHERE round_id = $1 FOR UPDATE", UUID(held["round_id"]))
            assert await sweeper.sweep(server.runner) == 1
            assert (sample("reddog_open_raise_windows"), sample("reddog_rounds_past_deadline")) == (1, 1)
        assert await sweeper.sweep(server.runner) == 1
        assert (sample("reddog_open_raise_windows"), sample("reddog_rounds_past_deadline")) == (0, 0)
