"""`reddog audit verify --db` reconciles every round's stored state with its records: a rewritten round is caught even
though its hash chain is intact."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any
from uuid import UUID

import asyncpg
import pytest

from service.cli.cli import main
from service.db.app_login import login_url
from tests.support.client import Signed
from tests.support.round_rows import state_as_jsonb
from tests.support.scratch import TEST_LOGIN, TEST_LOGIN_PASSWORD, Database, scratch_database, verify_everything


@pytest.fixture(scope="module")
async def database(database_server: str) -> AsyncIterator[Database]:
    """This module's own database, left unverified at the end: its tests rewrite rounds on purpose."""
    async with scratch_database(database_server) as url:
        yield Database(owner_url=url, app_url=login_url(url, TEST_LOGIN, TEST_LOGIN_PASSWORD))


async def play(api: Signed, cards: list[str], raise_first: bool = False) -> Any:
    """A test-table round with forced cards; 3-J is a spread of 7 (1 to 1) and a 9 falls between."""
    table = await api.table(mode="test")
    bets = [{"player_id": "p1", "ante": 10}, {"player_id": "p2", "ante": 4}]
    rnd = await api.ok("POST", f"/v1/tables/{table['table_id']}/rounds", {"bets": bets, "forced_cards": cards})
    if raise_first:
        body = {"bet_id": rnd["bets"][0]["bet_id"], "action": "raise"}
        rnd = await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/decisions", body)
    return rnd


async def problems_of(db: asyncpg.Connection, round_id: str) -> list[str]:
    report = await verify_everything(db)
    return [d.detail for d in report.rounds.differences if d.round_id == round_id]


async def test_untouched_rounds_in_every_state_reconcile(api: Signed, db: asyncpg.Connection) -> None:
    settled = await play(api, ["3S", "JH", "9D"], raise_first=True)
    settled = await api.ok("POST", f"/v1/rounds/{settled['round_id']}/close")
    pushed = await play(api, ["5S", "6H"])
    open_round = await play(api, ["3S", "JH", "9D"], raise_first=True)
    voided = await play(api, ["4S", "TH"])
    voided = await api.ok("POST", f"/v1/rounds/{voided['round_id']}/void", {"reason": "misdeal"})
    assert [r["status"] for r in (settled, pushed, open_round, voided)] == [
        "settled",
        "settled",
        "raise_window",
        "void",
    ]
    report = (await verify_everything(db)).rounds
    ours = {r["round_id"] for r in (settled, pushed, open_round, voided)}
    assert [d for d in report.differences if d.round_id in ours] == []
    assert report.checked >= 4


# (what the owner rewrites in one settled round, a word the report must name)
REWRITES = {
    "a bet's payout": ("state = jsonb_set(state, '{bets,0,payout}', '999')", "payout"),
    "a bet's net": ("state = jsonb_set(state, '{bets,1,net}', '0')", "net"),
    "a bet's result": ("state = jsonb_set(state, '{bets,1,result}', '\"lose\"')", "result"),
    "a transaction's amount": ("state = jsonb_set(state, '{bets,0,transactions,0,amount}', '1')", "transactions"),
    "the status column": ("status = 'void'", "its status column is 'void', its records say 'settled'"),
    "the stored status": ("state = jsonb_set(state, '{status}', '\"void\"')", "status stored 'void'"),
    "a bet dropped": ("state = jsonb_set(state, '{bets}', (state->'bets') - 1)", "1 bets stored, 2 recorded"),
    "the outcome": ("state = jsonb_set(state, '{outcome}', '\"trips\"')", "outcome"),
}


@pytest.mark.parametrize("case", list(REWRITES))
async def test_a_settled_round_whose_stored_state_the_owner_changed_is_reported(
    api: Signed, db: asyncpg.Connection, case: str
) -> None:
    assignment, named = REWRITES[case]
    rnd = await play(api, ["3S", "JH", "9D"], raise_first=True)
    rnd = await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/close")
    assert rnd["status"] == "settled"
    assert await problems_of(db, rnd["round_id"]) == []
    await state_as_jsonb(db, UUID(rnd["round_id"]))
    await db.execute(f"UPDATE rounds SET {assignment} WHERE round_id = $1", UUID(rnd["round_id"]))  # noqa: S608
    problems = await problems_of(db, rnd["round_id"])
    assert problems, case
    assert any(named in p for p in problems), problems


async def test_a_voided_round_reopened_in_its_stored_state_is_reported(api: Signed, db: asyncpg.Connection) -> None:
    rnd = await play(api, ["4S", "TH"])
    rnd = await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/void", {"reason": "misdeal"})
    await state_as_jsonb(db, UUID(rnd["round_id"]))
    await db.execute(
        "UPDATE rounds SET status = 'raise_window', state = jsonb_set(state, '{status}', '\"raise_window\"')"
        " WHERE round_id = $1",
        UUID(rnd["round_id"]),
    )
    problems = await problems_of(db, rnd["round_id"])
    assert "its status column is 'raise_window', its records say 'void'" in problems
    assert any(p.startswith("status stored 'raise_window', recorded 'void'") for p in problems), problems


async def test_the_verify_command_fails_and_names_a_rewritten_round(
    api: Signed,
    db: asyncpg.Connection,
    database: Database,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    rnd = await play(api, ["3S", "JH", "9D"], raise_first=True)
    rnd = await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/close")
    payout = rnd["bets"][0]["payout"]
    await state_as_jsonb(db, UUID(rnd["round_id"]))
    await db.execute(
        "UPDATE rounds SET state = jsonb_set(state, '{bets,0,payout}', $2::jsonb) WHERE round_id = $1",
        UUID(rnd["round_id"]),
        json.dumps(payout * 10),
    )
    # What the API shows now disagrees with what was recorded...
    assert (await api.ok("GET", f"/v1/rounds/{rnd['round_id']}"))["bets"][0]["payout"] == payout * 10
    # ...and the verifier, run as the app's own login (reads only), says which round and fails.
    monkeypatch.setenv("DATABASE_URL", database.app_url)
    assert await asyncio.to_thread(main, ["audit", "verify", "--db"]) == 1
    err = capsys.readouterr().err
    assert f"STORED ROUND DIFFERS {rnd['round_id']}: bet {rnd['bets'][0]['bet_id']} payout stored {payout * 10}" in err
