"""What the service really writes, read back from a real run's audit_log: no record holds a float (the system
chain's start included, from schema 3), and a void and a rollback write exactly the records docs/audit.md says."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any
from uuid import UUID

import asyncpg
import pytest

from service.settings import Settings
from tests.api.helpers import decide, open_round
from tests.api.inbetween_helpers import humans, start
from tests.support.client import Signed
from tests.support.scratch import Database, verified_scratch_database


@pytest.fixture(scope="module")
async def database(database_server: str) -> AsyncIterator[Database]:
    """This module's own database: every record in it was written by this module's runs."""
    async with verified_scratch_database(database_server) as database:
        yield database


def no_float(text: str) -> float:
    raise AssertionError(f"a record holds the float {text}")


async def bodies(db: asyncpg.Connection, table_id: str | None = None) -> list[dict[str, Any]]:
    """Every record's body (of one chain, or all), parsed so that a float anywhere fails the test."""
    rows = await db.fetch(
        "SELECT body FROM audit_log WHERE ($1::uuid IS NULL OR table_id = $1) ORDER BY table_id, seq",
        None if table_id is None else UUID(table_id),
    )
    return [json.loads(r["body"], parse_float=no_float, parse_constant=no_float) for r in rows]


async def test_no_record_of_a_real_run_holds_a_float(api: Signed, db: asyncpg.Connection, settings: Settings) -> None:
    table = await api.table(mode="test")
    for cards in (["5S", "6H"], ["8S", "8H", "8D"], ["2S", "JH", "TD"]):
        rnd = await open_round(api, table["table_id"], [("p1", 10)], cards)
        if rnd["status"] == "raise_window":
            await decide(api, rnd["round_id"], rnd["bets"][0]["bet_id"], "raise")
    await start(api, humans("alice", "bob"), ["4S", "JH"])
    await api.ok("POST", f"/v1/tables/{table['table_id']}/close")
    records = await bodies(db)  # the system chain's start, migrations and every table's and game's records
    kinds = {r["event"]["kind"] for r in records}
    assert {"service_started", "migration_applied", "round_settled", "ib_game_started"} <= kinds
    (started, *_) = [r for r in records if r["event"]["kind"] == "service_started"]
    assert started["schema"] == 3
    assert started["event"]["settings"]["sweep_interval_ms"] == round(settings.sweep_interval_seconds * 1000)
    assert "sweep_interval_seconds" not in started["event"]["settings"]
    assert {r["schema"] for r in records if r["table_id"] != "00000000-0000-0000-0000-000000000000"} == {2}


async def two_bets_one_raised(api: Signed, table_id: str) -> dict[str, Any]:
    """A spread of 8 (2 and J); the first bet raises 4, the second has not decided."""
    rnd: dict[str, Any] = await open_round(api, table_id, [("p1", 10), ("p2", 7)], ["2S", "JH", "TD"])
    assert (await decide(api, rnd["round_id"], rnd["bets"][0]["bet_id"], "raise", 4)).status_code == 200
    return rnd


def from_opening(records: list[dict[str, Any]], round_id: str) -> list[dict[str, Any]]:
    first = next(i for i, r in enumerate(records) if r["event"].get("round_id") == round_id)
    return [r["event"] for r in records[first:]]


async def test_a_void_writes_one_void_bet_settled_per_open_bet_then_round_voided(
    api: Signed, db: asyncpg.Connection
) -> None:
    table = await api.table(mode="test", decks=1)
    rnd = await two_bets_one_raised(api, table["table_id"])
    await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/void", {"reason": "misdeal"})
    events = from_opening(await bodies(db, table["table_id"]), rnd["round_id"])
    shuffled_for_it = events[0]
    assert shuffled_for_it["kind"] == "shoe_shuffled"
    after_decision = [e["kind"] for e in events[1:]]
    assert after_decision == [
        "round_opened", "card_dealt", "card_dealt", "spread_announced", "decision",
        "bet_settled", "bet_settled", "round_voided", "shoe_revealed",
    ]  # fmt: skip
    first, second = (e for e in events if e["kind"] == "bet_settled")
    bet1, bet2 = (b["bet_id"] for b in rnd["bets"])
    assert (first["result"], first["decision"], first["raise_amount"], first["payout"], first["net"]) == (
        "void", "raise", 4, 14, 0,
    )  # fmt: skip
    assert [(t["kind"], t["type"], t["amount"]) for t in first["transactions"]] == [
        ("ante", "debit", 10), ("raise", "debit", 4), ("refund", "credit", 14),
    ]  # fmt: skip
    assert (second["bet_id"], second["result"], second["decision"], second["raise_amount"], second["net"]) == (
        bet2, "void", None, 0, 0,
    )  # fmt: skip
    assert [(t["kind"], t["type"], t["amount"]) for t in second["transactions"]] == [
        ("ante", "debit", 7), ("refund", "credit", 7),
    ]  # fmt: skip
    assert first["bet_id"] == bet1
    assert not [e for e in events if e["kind"] == "card_dealt" and e["position"] == 3]


async def test_a_rollback_of_an_open_round_lists_the_stakes_taken_and_reveals_the_shoe_after(
    api: Signed, db: asyncpg.Connection
) -> None:
    table = await api.table(mode="test", decks=1)
    rnd = await two_bets_one_raised(api, table["table_id"])
    await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/rollback", {"reason": "wallet debit failed"})
    events = from_opening(await bodies(db, table["table_id"]), rnd["round_id"])
    assert [e["kind"] for e in events[1:]] == [
        "round_opened", "card_dealt", "card_dealt", "spread_announced", "decision", "round_rolled_back",
        "shoe_revealed",
    ]  # fmt: skip
    rolled = events[-2]
    assert rolled["previous_status"] == "raise_window"
    bet1, bet2 = (b["bet_id"] for b in rnd["bets"])
    moves = {b["bet_id"]: [(t["id"], t["type"], t["amount"], t.get("reverses")) for t in b["transactions"]]
             for b in rolled["bets"]}  # fmt: skip
    assert moves == {
        bet1: [
            (f"{bet1}:ante", "debit", 10, None),
            (f"{bet1}:raise", "debit", 4, None),  # a decided raise was taken: it is listed and reversed
            (f"{bet1}:ante:rollback", "credit", 10, f"{bet1}:ante"),
            (f"{bet1}:raise:rollback", "credit", 4, f"{bet1}:raise"),
        ],
        bet2: [(f"{bet2}:ante", "debit", 7, None), (f"{bet2}:ante:rollback", "credit", 7, f"{bet2}:ante")],
    }
