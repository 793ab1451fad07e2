"""POST /v1/rounds/{id}/rollback: every transaction reversed by one of its own, for every outcome, idempotent, refused
after the grace period, and written to the audit log with its actor and reason."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

import asyncpg
import pytest

from audit.records import decode_record
from paytables.red_dog.events import RoundRolledBack
from tests.api.helpers import decide, fingerprint, moves, open_round, problem
from tests.support.client import Signed
from tests.support.clock import ManualClock

GRACE = 300  # RD_ROLLBACK_GRACE_SECONDS's default, which the test settings keep
ROLLBACK = {"reason": "wallet debit failed"}


async def _rollback(api: Signed, rnd: dict[str, Any], *, key: str | None = None) -> Any:
    response = await api.post(f"/v1/rounds/{rnd['round_id']}/rollback", ROLLBACK, key=key)
    assert response.status_code == 200, response.text
    return response.json()


def _reversed(played: list[tuple[str, str, int]]) -> list[tuple[str, str, int]]:
    """What a rollback must add to a bet's movements, written out by hand: each one back the other way."""
    other = {"debit": "credit", "credit": "debit"}
    return [*played, *(("rollback", other[direction], amount) for _, direction, amount in played)]


def _check_rolled_back(done: dict[str, Any], played: list[list[tuple[str, str, int]]]) -> None:
    """The round is rolled back; each bet's movements are what it played then their reversals, ids included."""
    assert done["status"] == "rolled_back"
    assert done["rollback_reason"] == ROLLBACK["reason"]
    assert done["rolled_back_at"] is not None
    assert done["settled_at"] is not None
    for bet, expected in zip(done["bets"], played, strict=True):
        assert moves(bet) == _reversed(expected)
        assert (bet["result"], bet["net"]) == ("rolled_back", 0)
        assert bet["payout"] == sum(a for _, d, a in _reversed(expected) if d == "credit")
        originals = [t for t in bet["transactions"] if t["kind"] != "rollback"]
        reversals = [t for t in bet["transactions"] if t["kind"] == "rollback"]
        assert [t["reverses"] for t in reversals] == [t["id"] for t in originals]
        assert [t["id"] for t in reversals] == [f"{t['id']}:rollback" for t in originals]
        assert all(t["reverses"] is None for t in originals)
        ids = [t["id"] for t in bet["transactions"]]
        assert len(set(ids)) == len(ids)
        assert {t["currency"] for t in bet["transactions"]} == {done["currency"]}


# (forced cards, antes, what each bet had moved when it settled at open), worked out from the standard/v1 rules
SETTLED_AT_OPEN = {
    "consecutive": (["5S", "6H"], [10], [[("ante", "debit", 10), ("payout", "credit", 10)]]),
    "pair push": (["7S", "7H", "9D"], [10], [[("ante", "debit", 10), ("payout", "credit", 10)]]),
    "trips": (["7S", "7H", "7D"], [10, 4], [[("ante", "debit", 10), ("payout", "credit", 120)],
                                             [("ante", "debit", 4), ("payout", "credit", 48)]]),
}  # fmt: skip


@pytest.mark.parametrize("outcome", list(SETTLED_AT_OPEN))
async def test_a_round_that_settled_at_open_is_rolled_back_by_reversing_each_of_its_movements(
    api: Signed, outcome: str
) -> None:
    cards, antes, played = SETTLED_AT_OPEN[outcome]
    table = await api.table(mode="test")
    rnd = await open_round(api, table["table_id"], [(f"p{i}", a) for i, a in enumerate(antes)], cards)
    assert rnd["status"] == "settled"
    done = await _rollback(api, rnd)
    _check_rolled_back(done, played)
    assert done["cards"] == rnd["cards"]  # what was dealt stays on record
    assert done["outcome"] == rnd["outcome"]
    assert await api.ok("GET", f"/v1/rounds/{rnd['round_id']}") == done


async def test_settled_spread_wins_with_and_without_a_raise_are_both_reversed(api: Signed) -> None:
    table = await api.table(mode="test")
    rnd = await open_round(api, table["table_id"], [("p1", 10), ("p2", 6)], ["3S", "TH", "9D"])
    assert (rnd["spread"], rnd["payout_odds"]) == (6, 1)  # 4..9 lie between a 3 and a ten; standard/v1 pays 1 to 1
    await decide(api, rnd["round_id"], rnd["bets"][0]["bet_id"], "raise")
    settled = (await decide(api, rnd["round_id"], rnd["bets"][1]["bet_id"], "call")).json()
    assert [b["result"] for b in settled["bets"]] == ["win", "win"]
    done = await _rollback(api, settled)
    _check_rolled_back(
        done,
        [
            [("ante", "debit", 10), ("raise", "debit", 10), ("payout", "credit", 40)],  # (10 + 10) x (1 + 1)
            [("ante", "debit", 6), ("payout", "credit", 12)],
        ],
    )


async def test_an_open_round_is_rolled_back_without_its_third_card_and_its_stakes_are_reversed(api: Signed) -> None:
    table = await api.table(mode="test")
    rnd = await open_round(api, table["table_id"], [("p1", 10), ("p2", 5)], ["3S", "JH", "9D"])
    await decide(api, rnd["round_id"], rnd["bets"][0]["bet_id"], "raise", 7)
    done = await _rollback(api, rnd)
    # The stakes taken so far: p1's ante and raise, p2's ante; nothing was paid.
    _check_rolled_back(done, [[("ante", "debit", 10), ("raise", "debit", 7)], [("ante", "debit", 5)]])
    assert [c["card"] for c in done["cards"]] == ["3S", "JH"]
    assert done["shoe"]["reveal"] is not None  # the round's own shoe retired with it, and is shown
    late = await decide(api, rnd["round_id"], rnd["bets"][1]["bet_id"], "call")
    problem(late, 409, "NOT_IN_RAISE_WINDOW")
    problem(await api.post(f"/v1/rounds/{rnd['round_id']}/void", {"reason": "x"}), 409, "NOT_IN_RAISE_WINDOW")


async def test_a_voided_round_can_be_rolled_back_and_its_refund_is_reversed_too(api: Signed) -> None:
    table = await api.table(mode="test")
    rnd = await open_round(api, table["table_id"], [("p1", 10)], ["3S", "JH"])
    await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/void", {"reason": "dealer error"})
    done = await _rollback(api, rnd)
    _check_rolled_back(done, [[("ante", "debit", 10), ("refund", "credit", 10)]])


async def test_a_round_past_its_raise_window_settles_by_timeout_and_is_then_rolled_back(
    api: Signed, clock: ManualClock
) -> None:
    table = await api.table(mode="test", raise_window_seconds=5)
    rnd = await open_round(api, table["table_id"], [("p1", 10)], ["3S", "JH", "KD"])
    clock.advance(6)
    done = await _rollback(api, rnd)
    assert done["bets"][0]["decision"] == "timeout_call"
    assert [c["card"] for c in done["cards"]] == ["3S", "JH", "KD"]
    _check_rolled_back(done, [[("ante", "debit", 10), ("payout", "credit", 0)]])  # a king is outside 3..J: lost


async def test_a_cut_card_table_plays_on_after_its_open_round_is_rolled_back(api: Signed) -> None:
    table = await api.table(mode="test", shoe_policy="cut_card")
    rnd = await open_round(api, table["table_id"], [("p1", 10)], ["3S", "JH"])
    await _rollback(api, rnd)
    nxt = await open_round(api, table["table_id"], [("p1", 10)])
    assert nxt["cards"][0]["shoe_index"] == 2  # the same shoe, from where the rolled-back round left it


async def test_a_second_rollback_changes_nothing_and_a_replayed_one_returns_the_same_bytes(
    api: Signed, db: asyncpg.Connection, clock: ManualClock
) -> None:
    table = await api.table(mode="test")
    rnd = await open_round(api, table["table_id"], [("p1", 10)], ["5S", "6H"])
    path = f"/v1/rounds/{rnd['round_id']}/rollback"
    first = await api.post(path, ROLLBACK, key="rb-1")
    before = await fingerprint(db, api.operator_id)
    replay = await api.post(path, ROLLBACK, key="rb-1")
    assert (replay.status_code, replay.content, replay.headers["idempotent-replayed"]) == (200, first.content, "true")
    again = await api.post(path, {"reason": "asked twice"}, key="rb-2")
    assert again.status_code == 200
    assert again.json() == first.json()  # the first reason stays
    clock.advance(GRACE + 60)  # even once the grace period is over
    late = await api.post(path, ROLLBACK, key="rb-3")
    assert late.json() == first.json()
    after = await fingerprint(db, api.operator_id)
    assert after[1:] == before[1:]  # no round or table row changed
    assert {k: v for k, v in after[0].items() if k != "idempotency_keys"} == {
        k: v for k, v in before[0].items() if k != "idempotency_keys"
    }  # nothing but the two new keys was written: no audit record


async def test_a_rollback_after_the_grace_period_is_refused_and_changes_nothing(
    api: Signed, db: asyncpg.Connection, clock: ManualClock
) -> None:
    table = await api.table(mode="test")
    rnd = await open_round(api, table["table_id"], [("p1", 10)], ["5S", "6H"])
    clock.advance(GRACE + 1)
    before = await fingerprint(db, api.operator_id)
    refused = await api.post(f"/v1/rounds/{rnd['round_id']}/rollback", ROLLBACK)
    problem(refused, 409, "ROLLBACK_GRACE_EXPIRED")
    assert await fingerprint(db, api.operator_id) == before


async def test_a_rollback_a_second_before_the_grace_period_ends_is_accepted(api: Signed, clock: ManualClock) -> None:
    table = await api.table(mode="test")
    rnd = await open_round(api, table["table_id"], [("p1", 10)], ["5S", "6H"])
    clock.now = _time(rnd["opened_at"]) + timedelta(seconds=GRACE - 1)
    await _rollback(api, rnd)


async def test_a_late_rollback_of_an_expired_round_settles_it_by_timeout_and_is_then_refused(
    api: Signed, clock: ManualClock
) -> None:
    table = await api.table(mode="test", raise_window_seconds=5)
    rnd = await open_round(api, table["table_id"], [("p1", 10)], ["3S", "JH", "9D"])
    clock.advance(GRACE + 1)
    problem(await api.post(f"/v1/rounds/{rnd['round_id']}/rollback", ROLLBACK), 409, "ROLLBACK_GRACE_EXPIRED")
    after = await api.ok("GET", f"/v1/rounds/{rnd['round_id']}")
    assert (after["status"], after["bets"][0]["decision"]) == ("settled", "timeout_call")


async def test_another_operators_round_cannot_be_rolled_back(api: Signed, other_api: Signed) -> None:
    table = await api.table(mode="test")
    rnd = await open_round(api, table["table_id"], [("p1", 10)], ["5S", "6H"])
    problem(await other_api.post(f"/v1/rounds/{rnd['round_id']}/rollback", ROLLBACK), 404, "NOT_FOUND")


@pytest.mark.parametrize("body", [{}, {"reason": ""}, {"reason": "x", "extra": 1}, {"reason": 5}])
async def test_a_rollback_needs_a_reason(api: Signed, body: dict[str, Any]) -> None:
    table = await api.table(mode="test")
    rnd = await open_round(api, table["table_id"], [("p1", 10)], ["5S", "6H"])
    problem(await api.post(f"/v1/rounds/{rnd['round_id']}/rollback", body), 400, "VALIDATION_ERROR")


async def test_the_audit_log_records_the_rollback_with_its_actor_reason_and_every_reversal(
    api: Signed, db: asyncpg.Connection
) -> None:
    table = await api.table(mode="test")
    rnd = await open_round(api, table["table_id"], [("p1", 10), ("p2", 3)], ["7S", "7H", "7D"])
    done = await _rollback(api, rnd)
    rows = await db.fetch("SELECT kind, body FROM audit_log WHERE round_id = $1 ORDER BY seq", UUID(rnd["round_id"]))
    assert rows[-1]["kind"] == "round_rolled_back"
    assert [r["kind"] for r in rows].count("round_rolled_back") == 1
    event = decode_record(rows[-1]["body"]).event
    assert isinstance(event, RoundRolledBack)
    assert (event.actor, event.reason, event.previous_status) == (api.operator_id, ROLLBACK["reason"], "settled")
    assert _time(done["rolled_back_at"]) == event.rolled_back_at
    recorded = {b.bet_id: [(t.id, t.kind, t.type, t.amount, t.reverses) for t in b.transactions] for b in event.bets}
    shown = {
        b["bet_id"]: [(t["id"], t["kind"], t["type"], t["amount"], t["reverses"]) for t in b["transactions"]]
        for b in done["bets"]
    }
    assert recorded == shown
    # The earlier records are all still there: the settlement that was rolled back is not erased.
    assert [r["kind"] for r in rows].count("bet_settled") == 2


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def test_a_rolled_back_round_shows_its_rollback_in_recall_and_points_support_to_its_replay_link(
    api: Signed,
) -> None:
    table = await api.table(mode="test")
    rnd = await open_round(api, table["table_id"], [("p1", 10)], ["5S", "6H"])
    done = await _rollback(api, rnd)
    assert done["recall_link"] == f"/v1/rounds/{rnd['round_id']}/recall-link"
    recalled = (await api.ok("GET", "/v1/players/p1/rounds"))["items"][0]
    assert recalled["round"]["status"] == "rolled_back"
    last = recalled["timeline"][-1]
    assert last["kind"] == "round_rolled_back"
    assert last["text"] == "Round rolled back, every transaction reversed: wallet debit failed"
    link = await api.ok("POST", done["recall_link"], {"player_id": "p1"})
    assert f"/recall/{rnd['round_id']}?player=p1&" in link["url"]
