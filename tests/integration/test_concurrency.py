"""Two app instances on one database, racing: every round settles once, every bet is paid once, the chain holds."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import AsyncIterator, Awaitable
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

import asyncpg
import httpx
import pytest

from audit.records import decode_record
from audit.verify_export import verify_links
from paytables.red_dog.events import BetSettled, Decided, Event
from service.db import audit_sql
from service.runtime.sweeper import sweep
from service.settings import Settings
from tests.support.client import Signed
from tests.support.clock import ManualClock
from tests.support.live import live
from tests.support.racing import after, code
from tests.support.scratch import Database, verified_scratch_database

# 3-J is a spread of 7 at 1 to 1 and a 9 falls between; 4-T is a spread of 5 and a king falls outside.
WIN, LOSE = ["3S", "JH", "9D"], ["4S", "TH", "KD"]
LONG = 300  # a window no test here outlives, so the only expired rounds the sweeps find are the race's


@pytest.fixture(scope="module")
async def database(database_server: str) -> AsyncIterator[Database]:
    """This module's own database: the sweeps raced here count every expired round in it."""
    async with verified_scratch_database(database_server) as database:
        yield database


async def round_events(db: asyncpg.Connection, round_id: str) -> list[Event]:
    return [decode_record(body).event for body in await audit_sql.select_round_records(db, UUID(round_id))]


async def open_round(api: Signed, table_id: str, cards: list[str] | None, players: int = 1) -> Any:
    body: dict[str, Any] = {"bets": [{"player_id": f"p{i + 1}", "ante": 10} for i in range(players)]}
    if cards is not None:
        body["forced_cards"] = cards
    return await api.ok("POST", f"/v1/tables/{table_id}/rounds", body)


def decision(api: Signed, rnd: Any, index: int, action: str) -> Awaitable[httpx.Response]:
    return api.post(
        f"/v1/rounds/{rnd['round_id']}/decisions", {"bet_id": rnd["bets"][index]["bet_id"], "action": action}
    )


async def assert_chain_is_whole(db: asyncpg.Connection, table_id: str) -> int:
    links = await audit_sql.select_chain(db, UUID(table_id))
    report = verify_links(table_id, links)
    assert report.ok, report.faults
    assert [link.seq for link in links] == list(range(1, len(links) + 1))
    assert await db.fetchval("SELECT audit_seq FROM game_tables WHERE table_id = $1", UUID(table_id)) == len(links)
    return len(links)


def hand_paid(cards: list[str], decision: str) -> tuple[int, int]:
    """(payout, net) for an ante of 10, worked out by hand: a raise doubles the wager to 20."""
    wager = 20 if decision == "raise" else 10
    return (2 * wager, wager) if cards == WIN else (0, -wager)


async def test_decisions_closes_and_sweeps_racing_at_the_deadline_settle_each_round_exactly_once(
    settings: Settings, db: asyncpg.Connection, clock: ManualClock
) -> None:
    async with live(settings, clock=clock) as a, live(settings, clock=clock) as b:
        table = await a.api.table(mode="test", raise_window_seconds=1)
        deals = [WIN if i % 2 else LOSE for i in range(8)]
        rounds = [
            await open_round((a, b)[i % 2].api, table["table_id"], cards, players=2) for i, cards in enumerate(deals)
        ]
        for i, rnd in enumerate(rounds):
            assert (await decision((b, a)[i % 2].api, rnd, 0, "raise")).status_code == 200
        # Requests and sweeps land at jittered moments while the shared clock jumps past every deadline in the
        # middle of them, so some rounds are decided or closed in time, some settle on a late request, some in a sweep.
        first = datetime.fromisoformat(rounds[0]["raise_window_closes_at"])
        last = datetime.fromisoformat(rounds[-1]["raise_window_closes_at"])
        clock.now = first - timedelta(milliseconds=100)

        async def pass_the_deadlines() -> None:
            clock.now = last + timedelta(milliseconds=1)

        jitter = random.Random(20240501)
        requests = [
            after(jitter.uniform(0, 0.15), request)
            for rnd in rounds
            for request in (
                decision(a.api, rnd, 1, "call"),
                decision(b.api, rnd, 1, "raise"),
                a.api.post(f"/v1/rounds/{rnd['round_id']}/close"),
                b.api.post(f"/v1/rounds/{rnd['round_id']}/close"),
            )
        ]
        sweeps = [after(0.015 * i, sweep((a, b)[i % 2].runner)) for i in range(12)]
        responses, swept, _ = await asyncio.gather(
            asyncio.gather(*requests), asyncio.gather(*sweeps), after(0.06, pass_the_deadlines())
        )
        finals = [await a.api.ok("GET", f"/v1/rounds/{rnd['round_id']}") for rnd in rounds]

    assert {code(r) for r in responses} <= {"OK", "NOT_IN_RAISE_WINDOW", "RAISE_WINDOW_CLOSED"}
    unclaimed, late_refusals = 0, 0  # rounds the deadline settled without a 200: a sweep or a late decision did
    for i, (cards, rnd, final) in enumerate(zip(deals, rounds, finals, strict=True)):
        records = await round_events(db, rnd["round_id"])
        kinds = Counter(type(e).__name__ for e in records)
        assert (kinds["RoundSettled"], kinds["BetSettled"], kinds["Decided"], kinds["CardDealt"]) == (1, 2, 2, 3)
        assert final["status"] == "settled"
        first, second = final["bets"]
        by = {e.bet_id: e.by for e in records if isinstance(e, Decided)}
        assert (first["decision"], by[first["bet_id"]]) == ("raise", "player")
        # Requests per round: a's call, b's raise, a's close, b's close. At most one can have settled it.
        mine = responses[4 * i : 4 * i + 4]
        won = [j for j, r in enumerate(mine) if r.status_code == 200]
        assert len(won) <= 1
        settler = by[second["bet_id"]]
        if settler == "player":
            assert won in ([0], [1])
            assert second["decision"] == ("call", "raise")[won[0]]
        elif settler == "dealer":
            assert won in ([2], [3])
            assert second["decision"] == "timeout_call"
        else:
            assert (settler, second["decision"]) == ("timeout", "timeout_call")
            assert won in ([], [2], [3])
            if not won:
                unclaimed += 1
                late_refusals += any(code(r) == "RAISE_WINDOW_CLOSED" for r in mine[:2])
        if won:
            assert mine[won[0]].json() == final
        paid = {e.bet_id: (e.payout, e.net) for e in records if isinstance(e, BetSettled)}
        for bet in final["bets"]:
            assert paid[bet["bet_id"]] == (bet["payout"], bet["net"]) == hand_paid(cards, bet["decision"])
    # A sweep settles only rounds nobody else did; the rest of those went to a late decision (a 409 that settled).
    assert sum(swept) <= unclaimed <= sum(swept) + late_refusals
    await assert_chain_is_whole(db, table["table_id"])


@pytest.mark.parametrize(("players", "refusal"), [(1, "NOT_IN_RAISE_WINDOW"), (2, "ALREADY_DECIDED")])
async def test_fifty_concurrent_decisions_on_one_bet_make_exactly_one_decision(
    settings: Settings, db: asyncpg.Connection, players: int, refusal: str
) -> None:
    async with live(settings) as a, live(settings) as b:
        table = await a.api.table(mode="test", raise_window_seconds=LONG)
        rnd = await open_round(a.api, table["table_id"], ["5S", "9H", "7D"], players=players)
        attempts = [decision((a, b)[i % 2].api, rnd, 0, ("raise", "call")[i // 2 % 2]) for i in range(50)]
        responses = await asyncio.gather(*attempts)
    codes = Counter(code(r) for r in responses)
    # With one bet its decision settles the round, so the rest find the window gone; with two it stays open.
    assert codes == {"OK": 1, refusal: 49}
    (winner,) = [r.json() for r in responses if r.status_code == 200]
    bet_id = rnd["bets"][0]["bet_id"]
    decisions = [(e.bet_id, e.action) for e in await round_events(db, rnd["round_id"]) if isinstance(e, Decided)]
    assert decisions == [(bet_id, winner["bets"][0]["decision"])]
    assert winner["status"] == ("settled" if players == 1 else "raise_window")


@pytest.mark.parametrize("copies", [2, 10])
async def test_concurrent_requests_with_one_idempotency_key_have_one_effect_and_one_reply(
    settings: Settings, db: asyncpg.Connection, copies: int
) -> None:
    async with live(settings) as a, live(settings) as b:
        table = await a.api.table(mode="test", raise_window_seconds=LONG)
        path = f"/v1/tables/{table['table_id']}/rounds"
        body = {"bets": [{"player_id": "p1", "ante": 10}], "forced_cards": ["5S", "9H"]}
        key = f"same-key-{table['table_id']}"
        responses = await asyncio.gather(*((a, b)[i % 2].api.post(path, body, key=key) for i in range(copies)))
        listed = await a.api.ok("GET", f"/v1/rounds?table_id={table['table_id']}")
    assert [r.status_code for r in responses] == [201] * copies
    assert len({r.content for r in responses}) == 1
    assert sorted(r.headers.get("idempotent-replayed", "") for r in responses) == [""] + ["true"] * (copies - 1)
    assert [item["round_id"] for item in listed["items"]] == [responses[0].json()["round_id"]]
    kinds = Counter(
        r["kind"] for r in await db.fetch("SELECT kind FROM audit_log WHERE table_id = $1", UUID(table["table_id"]))
    )
    assert (kinds["round_opened"], kinds["shoe_shuffled"]) == (1, 1)


async def test_many_concurrent_rounds_on_one_table_keep_its_audit_chain_gap_free(
    settings: Settings, db: asyncpg.Connection
) -> None:
    async with live(settings) as a, live(settings) as b:
        table = await a.api.table(raise_window_seconds=LONG)
        tid = table["table_id"]
        first = await asyncio.gather(*(open_round((a, b)[i % 2].api, tid, None, players=2) for i in range(20)))
        waiting = [rnd for rnd in first if rnd["status"] == "raise_window"]
        # Settle the waiting rounds (a decision and a close each) while more rounds open on the same table.
        decided: list[httpx.Response]
        closed: list[httpx.Response]
        _, decided, closed = await asyncio.gather(
            asyncio.gather(*(open_round((b, a)[i % 2].api, tid, None) for i in range(10))),
            asyncio.gather(*(decision(a.api, rnd, 0, "raise") for rnd in waiting)),
            asyncio.gather(*(b.api.post(f"/v1/rounds/{rnd['round_id']}/close") for rnd in waiting)),
        )
    # A decision on the first bet leaves the round open for the close; a close first refuses the decision.
    assert {r.status_code for r in decided} <= {200, 409}
    assert [r.status_code for r in closed] == [200] * len(waiting)
    records = await assert_chain_is_whole(db, tid)
    rows = await db.fetch("SELECT kind, round_id FROM audit_log WHERE table_id = $1", UUID(tid))
    opened = Counter(r["round_id"] for r in rows if r["kind"] == "round_opened")
    settled = Counter(r["round_id"] for r in rows if r["kind"] == "round_settled")
    assert len(opened) == 30
    assert set(opened.values()) == {1}
    assert set(settled.values()) == {1}
    assert {UUID(rnd["round_id"]) for rnd in first} <= set(settled)
    assert records == len(rows)
