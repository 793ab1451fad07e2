"""The audit log in PostgreSQL: every step of played rounds chained per table, append-only, migrated once."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import datetime
from typing import Any, TypeVar
from uuid import UUID

import asyncpg
import msgspec
import pytest

from audit.chain import Record
from audit.records import decode_record
from audit.verify_export import verify_links
from paytables.red_dog import loader
from paytables.red_dog.events import (
    BetSettled,
    CardDealt,
    Decided,
    Event,
    OpenedBet,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    ShoeRevealed,
    ShoeShuffled,
    SpreadAnnounced,
    TableCreated,
    kind_of,
)
from service.db import audit_sql
from service.db.migrate import apply_migrations, migration_files
from shoe.shoe import Reveal, verify_reveal
from tests.support.client import Signed
from tests.support.clock import ManualClock
from tests.support.scratch import TEST_APP_ROLE, scratch_database

E = TypeVar("E")

STANDARD_SHA256 = loader.get("standard/v1").sha256


class Row(msgspec.Struct, frozen=True, kw_only=True):
    """An audit_log row: the columns beside the body, and the body decoded."""

    seq: int
    kind: str
    round_id: UUID | None
    bet_id: str | None
    test: bool
    recorded_at: datetime
    record: Record[Event]


async def audit_rows(db: asyncpg.Connection, table_id: str) -> list[Row]:
    found = await db.fetch(
        "SELECT seq, kind, round_id, bet_id, test, recorded_at, body FROM audit_log WHERE table_id = $1 ORDER BY seq",
        UUID(table_id),
    )
    return [
        Row(
            seq=r["seq"],
            kind=r["kind"],
            round_id=r["round_id"],
            bet_id=r["bet_id"],
            test=r["test"],
            recorded_at=r["recorded_at"],
            record=decode_record(r["body"]),
        )
        for r in found
    ]


def events(rows: list[Row], kind: type[E], round_id: str | None = None) -> list[E]:
    found = [r.record.event for r in rows if round_id is None or r.round_id == UUID(round_id)]
    return [e for e in found if isinstance(e, kind)]


async def play(api: Signed, table_id: str, cards: list[str], antes: tuple[int, ...] = (10,)) -> Any:
    bets = [{"player_id": f"p{i + 1}", "ante": ante} for i, ante in enumerate(antes)]
    return await api.ok("POST", f"/v1/tables/{table_id}/rounds", {"bets": bets, "forced_cards": cards})


async def decide(api: Signed, rnd: Any, index: int, action: str) -> Any:
    body = {"bet_id": rnd["bets"][index]["bet_id"], "action": action}
    return await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/decisions", body)


async def test_a_played_test_table_leaves_a_gap_free_verifying_chain_of_every_step(
    api: Signed, db: asyncpg.Connection, clock: ManualClock
) -> None:
    table = await api.table(mode="test", raise_window_seconds=1)
    tid = table["table_id"]
    operator = api.operator_id
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
    clock.now = max(clock.now, datetime.fromisoformat(timed["raise_window_closes_at"]))
    timed = await api.ok("GET", f"/v1/rounds/{timed['round_id']}")
    finals = [timed, consecutive, pair, trips, raised, closed, voided]

    report = verify_links(tid, await audit_sql.select_chain(db, UUID(tid)))
    assert report.ok, report.faults
    rows = await audit_rows(db, tid)
    assert [r.seq for r in rows] == list(range(1, len(rows) + 1))
    assert report.records == len(rows)
    assert all(r.test and r.record.test for r in rows)
    assert all(r.record.schema == 2 for r in rows)
    assert all(
        (r.kind, r.round_id and str(r.round_id), r.bet_id)
        == (kind_of(r.record.event), getattr(r.record.event, "round_id", None), getattr(r.record.event, "bet_id", None))
        for r in rows
    )
    # recorded_at never goes backwards along the chain, and the column says what the hashed body says.
    assert [r.record.recorded_at for r in rows] == sorted(r.record.recorded_at for r in rows)
    assert all(r.recorded_at == r.record.recorded_at for r in rows)
    (created,) = events(rows, TableCreated)
    assert (rows[0].kind, created.operator_id, created.settings.paytable_sha256) == (
        "table_created",
        operator,
        STANDARD_SHA256,
    )

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
        assert events(rows, RoundOpened, rid) == [
            RoundOpened(
                round_id=rid,
                paytable="standard/v1",
                paytable_sha256=STANDARD_SHA256,
                decks=6,
                commitment=commitment,
                opened_at=datetime.fromisoformat(rnd["opened_at"]),
                bets=tuple(
                    OpenedBet(bet_id=b["bet_id"], player_id=b["player_id"], ante=b["ante"]) for b in rnd["bets"]
                ),
                actor=operator,
            )
        ]
        dealt_cards = [(e.position, e.card, e.shoe_index, e.commitment) for e in events(rows, CardDealt, rid)]
        assert dealt_cards == [(c["position"], c["card"], c["shoe_index"], commitment) for c in rnd["cards"]]
        settled = {e.bet_id: e for e in events(rows, BetSettled, rid)}
        assert {
            bet_id: (e.player_id, e.ante, e.raise_amount, e.decision, e.result, e.payout, e.net)
            for bet_id, e in settled.items()
        } == {
            b["bet_id"]: (b["player_id"], b["ante"], b["raise"], b["decision"], b["result"], b["payout"], b["net"])
            for b in rnd["bets"]
        }
        for b in rnd["bets"]:
            # The API adds the table's currency (and `reverses`, null but for a rollback) to what the record holds.
            recorded = ("id", "kind", "type", "amount")
            shown = [{k: t[k] for k in recorded} for t in b["transactions"]]
            assert msgspec.to_builtins(list(settled[b["bet_id"]].transactions)) == shown
            assert {(t["currency"], t["reverses"]) for t in b["transactions"]} == {(rnd["currency"], None)}
        # Its shoe's commitment was published, naming the round, before the round opened, and revealed once it ended.
        shuffled = [
            r.seq for r in rows if isinstance(r.record.event, ShoeShuffled) and r.record.event.commitment == commitment
        ]
        (opened_at,) = [r.seq for r in rows if r.kind == "round_opened" and r.round_id == UUID(rid)]
        assert (len(shuffled), shuffled[0] < opened_at) == (1, True)
        (announced,) = [e for e in events(rows, ShoeShuffled) if e.commitment == commitment]
        assert (announced.round_id, announced.forced_cards) == (rid, tuple(c["card"] for c in rnd["cards"]) or ())
        (reveal,) = [e for e in events(rows, ShoeRevealed) if e.commitment == commitment]
        assert reveal.round_id == rid
        assert verify_reveal(commitment, Reveal(salt=reveal.salt, order=reveal.order))
        assert reveal.order.startswith("".join(c["card"] for c in rnd["cards"]))

    spreads = [(e.round_id, e.spread, e.odds) for e in events(rows, SpreadAnnounced)]
    assert spreads == [
        (timed["round_id"], 7, 1),
        (raised["round_id"], 3, 2),
        (dealt["round_id"], 5, 1),
        (opened["round_id"], 6, 1),
    ]
    decisions = [(e.round_id, e.bet_id, e.action, e.raise_amount, e.by, e.actor) for e in events(rows, Decided)]
    assert decisions == [
        (timed["round_id"], f"{timed['round_id']}.1", "raise", 10, "player", operator),
        (raised["round_id"], f"{raised['round_id']}.1", "raise", 10, "player", operator),
        (dealt["round_id"], f"{dealt['round_id']}.1", "timeout_call", 0, "dealer", operator),
        (timed["round_id"], f"{timed['round_id']}.2", "timeout_call", 0, "timeout", "system"),
    ]
    ends = [(r.kind, str(r.round_id)) for r in rows if r.kind in ("round_settled", "round_voided")]
    assert Counter(ends) == Counter(
        [("round_settled", r["round_id"]) for r in finals if r is not voided] + [("round_voided", voided["round_id"])]
    )
    voided_at = datetime.fromisoformat(voided["settled_at"])
    assert events(rows, RoundVoided) == [
        RoundVoided(round_id=voided["round_id"], reason="card misdealt", voided_at=voided_at, actor=operator)
    ]
    assert events(rows, RoundSettled, trips["round_id"])[0].outcome == "trips"


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


async def test_a_cut_card_shoe_is_shuffled_with_the_table_dealt_on_across_rounds_and_revealed_at_close(
    api: Signed, db: asyncpg.Connection
) -> None:
    table = await api.table(shoe_policy="cut_card", penetration=50, decks=1)
    tid = table["table_id"]
    for _ in range(3):
        await settle(api, await api.ok("POST", f"/v1/tables/{tid}/rounds", {"bets": [{"player_id": "p", "ante": 5}]}))
    await api.ok("POST", f"/v1/tables/{tid}/close")
    rows = await audit_rows(db, tid)
    assert verify_links(tid, await audit_sql.select_chain(db, UUID(tid))).ok
    kinds = [r.kind for r in rows]
    assert kinds[:2] == ["table_created", "shoe_shuffled"]
    assert kinds[-2:] == ["table_closed", "shoe_revealed"]
    # Three rounds of at most three cards stay well short of the cut: one shoe all along.
    assert (kinds.count("shoe_shuffled"), kinds.count("shoe_revealed")) == (1, 1)
    (shuffled,) = events(rows, ShoeShuffled)
    (revealed,) = events(rows, ShoeRevealed)
    # One 52-card deck cut at 50 percent; a table's shoe belongs to no one round.
    assert (shuffled.policy, shuffled.decks, shuffled.cut_position, shuffled.round_id) == ("cut_card", 1, 26, None)
    assert (revealed.commitment, revealed.round_id) == (shuffled.commitment, None)
    assert verify_reveal(shuffled.commitment, Reveal(salt=revealed.salt, order=revealed.order))
    dealt = events(rows, CardDealt)
    assert [e.shoe_index for e in dealt] == list(range(len(dealt)))  # one shoe, dealt on from where it stopped
    assert [e.card for e in dealt] == [revealed.order[2 * i : 2 * i + 2] for i in range(len(dealt))]
    assert revealed.dealt == len(dealt)


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE audit_log SET kind = 'nothing happened' WHERE table_id = $1",
        "DELETE FROM audit_log WHERE table_id = $1",
        # Where the records are stored (migration 024): a request's together, and those of before in audit_rows.
        "UPDATE audit_batches SET kinds = '{nothing happened}' WHERE table_id = $1",
        "DELETE FROM audit_batches WHERE table_id = $1",
        "TRUNCATE audit_batches",
        "TRUNCATE audit_rows",  # empty on a new database: its row triggers are the ones audit_log always had
    ],
)
async def test_the_audit_log_refuses_update_delete_and_truncate(
    api: Signed, db: asyncpg.Connection, statement: str
) -> None:
    table_id = UUID((await api.table())["table_id"])
    before = await audit_sql.select_chain(db, table_id)
    assert len(before) == 1
    transaction = db.transaction()
    await transaction.start()
    try:
        with pytest.raises(asyncpg.exceptions.InsufficientPrivilegeError, match="append-only"):
            await db.execute(statement, *([table_id] if "$1" in statement else []))
    finally:
        await transaction.rollback()  # should the trigger ever be missing, the session's records still survive
    assert await audit_sql.select_chain(db, table_id) == before


@pytest.mark.parametrize(
    ("privilege", "granted"),
    [("SELECT", True), ("INSERT", True), ("UPDATE", False), ("DELETE", False), ("TRUNCATE", False)],
)
async def test_the_app_role_may_only_insert_and_select_audit_records(
    db: asyncpg.Connection, privilege: str, granted: bool
) -> None:
    assert await db.fetchval("SELECT role_name FROM app_role") == TEST_APP_ROLE
    for stored in ("audit_log", "audit_batches", "audit_rows"):  # the view, and the two tables behind it
        assert await db.fetchval("SELECT has_table_privilege($1, $2, $3)", TEST_APP_ROLE, stored, privilege) is granted


async def test_the_app_role_is_refused_an_update_before_any_trigger_runs(api: Signed, db: asyncpg.Connection) -> None:
    table_id = UUID((await api.table())["table_id"])
    async with db.transaction():
        await db.execute(f"SET LOCAL ROLE {TEST_APP_ROLE}")
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
            results = await asyncio.gather(
                apply_migrations(first, app_role=TEST_APP_ROLE), apply_migrations(second, app_role=TEST_APP_ROLE)
            )
            assert sorted(results) == [[], versions]
            found = await first.fetch("SELECT version FROM schema_migrations ORDER BY version")
            assert [r["version"] for r in found] == versions
            assert await first.fetchval("SELECT to_regclass('audit_log') IS NOT NULL") is True
        finally:
            await first.close()
            await second.close()
