"""The audit log in PostgreSQL: every step of played rounds chained per table, append-only, migrated once."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import asyncpg
import msgspec
import pytest

from audit.chain import Record, decode, verify
from paytables import loader
from service.db import audit
from service.db.migrate import apply_migrations, migration_files
from shoe.shoe import Reveal, verify_reveal
from tests.support.client import Signed
from tests.support.scratch import scratch_database

STANDARD_SHA256 = loader.get("standard/v1").sha256


class Row(msgspec.Struct, frozen=True, kw_only=True):
    """An audit_log row: the columns beside the body, and the body decoded."""

    seq: int
    kind: str
    round_id: UUID | None
    bet_id: str | None
    test: bool
    record: Record


async def audit_rows(db: asyncpg.Connection, table_id: str) -> list[Row]:
    found = await db.fetch(
        "SELECT seq, kind, round_id, bet_id, test, body FROM audit_log WHERE table_id = $1 ORDER BY seq",
        UUID(table_id),
    )
    return [
        Row(
            seq=r["seq"],
            kind=r["kind"],
            round_id=r["round_id"],
            bet_id=r["bet_id"],
            test=r["test"],
            record=decode(r["body"]),
        )
        for r in found
    ]


def payloads(rows: list[Row], kind: str, round_id: str | None = None) -> list[dict[str, Any]]:
    return [r.record.payload for r in rows if r.kind == kind and (round_id is None or r.record.round_id == round_id)]


async def play(api: Signed, table_id: str, cards: list[str], antes: tuple[int, ...] = (10,)) -> Any:
    bets = [{"player_id": f"p{i + 1}", "ante": ante} for i, ante in enumerate(antes)]
    return await api.ok("POST", f"/v1/tables/{table_id}/rounds", {"bets": bets, "forced_cards": cards})


async def decide(api: Signed, rnd: Any, index: int, action: str) -> Any:
    body = {"bet_id": rnd["bets"][index]["bet_id"], "action": action}
    return await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/decisions", body)


async def test_a_played_test_table_leaves_a_gap_free_verifying_chain_of_every_step(
    api: Signed, db: asyncpg.Connection
) -> None:
    table = await api.table(mode="test", raise_window_seconds=1)
    tid = table["table_id"]
    # Opened first so that its one-second window runs out while the other rounds are played.
    timed = await play(api, tid, ["3S", "JH", "9D"], antes=(10, 5))
    await decide(api, timed, 0, "raise")
    consecutive = await play(api, tid, ["5S", "6H"])
    pair = await play(api, tid, ["8S", "8H", "3D"])
    trips = await play(api, tid, ["KS", "KH", "KD"])
    raised = await decide(api, await play(api, tid, ["5S", "9H", "7D"]), 0, "raise")
    dealt = await play(api, tid, ["4S", "TH", "2D"])
    closed = await api.ok("POST", f"/v1/rounds/{dealt['round_id']}/close")
    opened = await play(api, tid, ["2S", "9H"])
    voided = await api.ok("POST", f"/v1/rounds/{opened['round_id']}/void", {"reason": "card misdealt"})
    closes_at = datetime.fromisoformat(timed["raise_window_closes_at"])
    await asyncio.sleep(max(0.0, (closes_at - datetime.now(UTC)).total_seconds()) + 0.05)
    timed = await api.ok("GET", f"/v1/rounds/{timed['round_id']}")
    finals = [timed, consecutive, pair, trips, raised, closed, voided]

    report = verify(await audit.select_chain(db, UUID(tid)), table_id=tid)
    assert report.ok, report.error
    rows = await audit_rows(db, tid)
    assert [r.seq for r in rows] == list(range(1, len(rows) + 1))
    assert report.records == len(rows)
    assert all(r.test and r.record.test for r in rows)
    assert all(
        (r.kind, r.round_id and str(r.round_id), r.bet_id) == (r.record.kind, r.record.round_id, r.record.bet_id)
        for r in rows
    )
    assert rows[0].kind == "table_created"
    assert rows[0].record.payload["paytable_sha256"] == STANDARD_SHA256

    # Hand-worked results: 3-J spread 7 at 1:1, a 9 wins; pushes; trips 11:1; 5-9 spread 3 at 2:1, a 7 wins;
    # 4-T and a 2 loses; the void refunds the ante.
    money = [[(b["player_id"], b["decision"], b["result"], b["payout"], b["net"]) for b in r["bets"]] for r in finals]
    assert money == [
        [("p1", "raise", "win", 40, 20), ("p2", "timeout_call", "win", 10, 5)],
        [("p1", None, "push", 10, 0)],
        [("p1", None, "push", 10, 0)],
        [("p1", None, "trips", 120, 110)],
        [("p1", "raise", "win", 60, 40)],
        [("p1", "timeout_call", "lose", 0, -10)],
        [("p1", None, "void", 10, 0)],
    ]
    assert Counter(r.kind for r in rows) == {
        "table_created": 1,
        "shoe_shuffled": 7,
        "round_opened": 7,
        "card_dealt": 3 + 2 + 3 + 3 + 3 + 3 + 2,
        "spread_announced": 4,
        "decision": 4,
        "bet_settled": 8,
        "round_settled": 6,
        "round_voided": 1,
        "shoe_revealed": 7,
    }
    for rnd in finals:
        rid = rnd["round_id"]
        commitment = rnd["shoe"]["commitment"]
        assert payloads(rows, "round_opened", rid) == [
            {
                "table_id": tid,
                "paytable": "standard/v1",
                "paytable_sha256": STANDARD_SHA256,
                "decks": 6,
                "test": True,
                "commitment": commitment,
                "opened_at": rnd["opened_at"],
                "bets": [{"bet_id": b["bet_id"], "player_id": b["player_id"], "ante": b["ante"]} for b in rnd["bets"]],
            }
        ]
        dealt_cards = [
            (p["position"], p["card"], p["shoe_index"], p["commitment"]) for p in payloads(rows, "card_dealt", rid)
        ]
        assert dealt_cards == [(c["position"], c["card"], c["shoe_index"], commitment) for c in rnd["cards"]]
        settled = {r.bet_id: r.record.payload for r in rows if r.kind == "bet_settled" and r.record.round_id == rid}
        assert settled == {
            b["bet_id"]: {
                "player_id": b["player_id"],
                "ante": b["ante"],
                "raise": b["raise"],
                "decision": b["decision"],
                "result": b["result"],
                "payout": b["payout"],
                "net": b["net"],
                "transactions": b["transactions"],
            }
            for b in rnd["bets"]
        }
        # Its shoe's commitment was published before the round opened, and revealed once it ended.
        shuffled = [r.seq for r in rows if r.kind == "shoe_shuffled" and r.record.payload["commitment"] == commitment]
        (opened_at,) = [r.seq for r in rows if r.kind == "round_opened" and r.record.round_id == rid]
        assert (len(shuffled), shuffled[0] < opened_at) == (1, True)
        (reveal,) = [p for p in payloads(rows, "shoe_revealed") if p["commitment"] == commitment]
        assert reveal["commitment"] == commitment
        assert verify_reveal(commitment, Reveal(salt=reveal["salt"], order=reveal["order"]))
        assert reveal["order"].startswith("".join(c["card"] for c in rnd["cards"]))

    spreads = [
        (r.record.round_id, p["spread"], p["odds"])
        for r in rows
        if r.kind == "spread_announced"
        for p in [r.record.payload]
    ]
    assert spreads == [
        (timed["round_id"], 7, 1),
        (raised["round_id"], 3, 2),
        (dealt["round_id"], 5, 1),
        (opened["round_id"], 6, 1),
    ]
    decisions = [(r.record.round_id, r.bet_id, r.record.payload) for r in rows if r.kind == "decision"]
    assert decisions == [
        (timed["round_id"], f"{timed['round_id']}.1", {"action": "raise", "amount": 10, "by": "player"}),
        (raised["round_id"], f"{raised['round_id']}.1", {"action": "raise", "amount": 10, "by": "player"}),
        (dealt["round_id"], f"{dealt['round_id']}.1", {"action": "timeout_call", "amount": 0, "by": "dealer"}),
        (timed["round_id"], f"{timed['round_id']}.2", {"action": "timeout_call", "amount": 0, "by": "timeout"}),
    ]
    ends = [(r.kind, r.record.round_id) for r in rows if r.kind in ("round_settled", "round_voided")]
    assert Counter(ends) == Counter(
        [("round_settled", r["round_id"]) for r in finals if r is not voided] + [("round_voided", voided["round_id"])]
    )
    assert payloads(rows, "round_voided") == [{"reason": "card misdealt", "at": voided["settled_at"]}]
    assert payloads(rows, "round_settled", trips["round_id"])[0]["outcome"] == "trips"


async def settle(api: Signed, rnd: Any) -> Any:
    """A live round's cards are random: close its window if it opened one."""
    if rnd["status"] == "raise_window":
        return await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/close")
    return rnd


async def test_rounds_on_a_live_table_are_recorded_with_test_false(api: Signed, db: asyncpg.Connection) -> None:
    table = await api.table()
    rnd = await api.ok("POST", f"/v1/tables/{table['table_id']}/rounds", {"bets": [{"player_id": "p", "ante": 5}]})
    rnd = await settle(api, rnd)
    assert rnd["test"] is False
    rows = await audit_rows(db, table["table_id"])
    assert {r.kind for r in rows} >= {"table_created", "round_opened", "card_dealt", "bet_settled", "round_settled"}
    assert not any(r.test or r.record.test for r in rows)
    assert payloads(rows, "round_opened")[0]["test"] is False


async def test_a_cut_card_shoe_is_shuffled_with_the_table_dealt_on_across_rounds_and_revealed_at_close(
    api: Signed, db: asyncpg.Connection
) -> None:
    table = await api.table(shoe_policy="cut_card", penetration=50, decks=1)
    tid = table["table_id"]
    for _ in range(3):
        await settle(api, await api.ok("POST", f"/v1/tables/{tid}/rounds", {"bets": [{"player_id": "p", "ante": 5}]}))
    await api.ok("POST", f"/v1/tables/{tid}/close")
    rows = await audit_rows(db, tid)
    assert verify(await audit.select_chain(db, UUID(tid)), table_id=tid).ok
    kinds = [r.kind for r in rows]
    assert kinds[:2] == ["table_created", "shoe_shuffled"]
    assert kinds[-2:] == ["table_closed", "shoe_revealed"]
    # Three rounds of at most three cards stay well short of the cut: one shoe all along.
    assert (kinds.count("shoe_shuffled"), kinds.count("shoe_revealed")) == (1, 1)
    (shuffled,) = payloads(rows, "shoe_shuffled")
    (revealed,) = payloads(rows, "shoe_revealed")
    # One 52-card deck cut at 50 percent.
    assert (shuffled["policy"], shuffled["decks"], shuffled["cut_position"]) == ("cut_card", 1, 26)
    assert revealed["commitment"] == shuffled["commitment"]
    assert verify_reveal(shuffled["commitment"], Reveal(salt=revealed["salt"], order=revealed["order"]))
    dealt = payloads(rows, "card_dealt")
    assert [p["shoe_index"] for p in dealt] == list(range(len(dealt)))  # one shoe, dealt on from where it stopped
    assert [p["card"] for p in dealt] == [revealed["order"][2 * i : 2 * i + 2] for i in range(len(dealt))]
    assert revealed["dealt"] == len(dealt)


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE audit_log SET kind = 'nothing happened' WHERE table_id = $1",
        "DELETE FROM audit_log WHERE table_id = $1",
        "TRUNCATE audit_log",
    ],
)
async def test_the_audit_log_refuses_update_delete_and_truncate(
    api: Signed, db: asyncpg.Connection, statement: str
) -> None:
    table_id = UUID((await api.table())["table_id"])
    before = await audit.select_chain(db, table_id)
    assert len(before) == 1
    transaction = db.transaction()
    await transaction.start()
    try:
        with pytest.raises(asyncpg.exceptions.InsufficientPrivilegeError, match="append-only"):
            await db.execute(statement, *([table_id] if "$1" in statement else []))
    finally:
        await transaction.rollback()  # should the trigger ever be missing, the session's records still survive
    assert await audit.select_chain(db, table_id) == before


@pytest.mark.parametrize(
    ("privilege", "granted"),
    [("SELECT", True), ("INSERT", True), ("UPDATE", False), ("DELETE", False), ("TRUNCATE", False)],
)
async def test_the_app_role_may_only_insert_and_select_audit_records(
    db: asyncpg.Connection, privilege: str, granted: bool
) -> None:
    assert await db.fetchval("SELECT count(*) FROM pg_roles WHERE rolname = 'reddog_app'") == 1
    assert await db.fetchval("SELECT has_table_privilege('reddog_app', 'audit_log', $1)", privilege) is granted


async def test_the_app_role_is_refused_an_update_before_any_trigger_runs(api: Signed, db: asyncpg.Connection) -> None:
    table_id = UUID((await api.table())["table_id"])
    async with db.transaction():
        await db.execute("SET LOCAL ROLE reddog_app")
        assert await db.fetchval("SELECT count(*) FROM audit_log WHERE table_id = $1", table_id) == 1
        with pytest.raises(asyncpg.exceptions.InsufficientPrivilegeError, match="permission denied"):
            async with db.transaction():  # a savepoint, so the outer transaction can go on to RESET
                await db.execute("UPDATE audit_log SET kind = 'x' WHERE table_id = $1", table_id)
        await db.execute("RESET ROLE")


async def test_running_the_migrations_again_applies_nothing(db: asyncpg.Connection) -> None:
    versions = [version for version, _ in migration_files()]
    assert versions == sorted(versions)
    assert len(versions) >= 2
    assert await apply_migrations(db) == []
    assert [r["version"] for r in await db.fetch("SELECT version FROM schema_migrations ORDER BY version")] == versions


async def test_two_concurrent_migration_runs_on_a_fresh_database_apply_each_version_once(database_server: str) -> None:
    versions = [version for version, _ in migration_files()]
    async with scratch_database(database_server, migrate=False) as url:
        first, second = await asyncpg.connect(url), await asyncpg.connect(url)
        try:
            results = await asyncio.gather(apply_migrations(first), apply_migrations(second))
            assert sorted(results) == [[], versions]
            found = await first.fetch("SELECT version FROM schema_migrations ORDER BY version")
            assert [r["version"] for r in found] == versions
            assert await first.fetchval("SELECT to_regclass('audit_log') IS NOT NULL") is True
        finally:
            await first.close()
            await second.close()
