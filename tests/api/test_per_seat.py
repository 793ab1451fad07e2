"""Per-seat tables through the API: each bet shows its own hand, the raise window is the round's, the audit log
names every card's seat."""

from __future__ import annotations

import asyncio
import hashlib
from collections import Counter
from typing import Any
from uuid import UUID

import asyncpg

from audit.records import decode_record
from paytables.red_dog.events import CardDealt
from service.db import audit_sql
from service.settings import Settings
from tests.api.helpers import check_money, decide, fingerprint, open_round, problem
from tests.support.client import Signed
from tests.support.clock import ManualClock
from tests.support.live import live

# Seat 1: 5 6 push; seat 2: 8 8 then 8, trips; seat 3: 4 T, a spread of 5 at 1 to 1, and a 7 wins.
MIXED = ["5S", "8S", "4D", "6H", "8H", "TC", "8D", "7C"]
THREE = [("p1", 10), ("p2", 10), ("p3", 10)]


async def per_seat_table(api: Signed, **overrides: Any) -> Any:
    return await api.table(mode="test", deal="per_seat", **overrides)


def hand(bet: dict[str, Any]) -> list[tuple[int, str, int, int]]:
    return [(c["position"], c["card"], c["shoe_index"], c["seat"]) for c in bet["cards"]]


async def test_a_per_seat_table_says_so_and_a_shared_one_by_default_too(api: Signed) -> None:
    assert (await per_seat_table(api))["deal"] == "per_seat"
    assert (await api.table())["deal"] == "shared"


async def test_each_bet_carries_its_own_cards_outcome_spread_and_odds(api: Signed) -> None:
    table = await per_seat_table(api)
    rnd = await open_round(api, table["table_id"], THREE, MIXED)
    assert (rnd["deal"], rnd["status"], rnd["outcome"], rnd["spread"]) == ("per_seat", "raise_window", None, None)
    p1, p2, p3 = rnd["bets"]
    assert hand(p1) == [(1, "5S", 0, 1), (2, "6H", 3, 1)]
    assert hand(p2) == [(1, "8S", 1, 2), (2, "8H", 4, 2), (3, "8D", 6, 2)]
    assert hand(p3) == [(1, "4D", 2, 3), (2, "TC", 5, 3)]  # its third card is not shown before it is dealt
    assert [(b["outcome"], b["spread"], b["payout_odds"], b["result"]) for b in rnd["bets"]] == [
        ("consecutive", None, None, "push"),
        ("trips", None, None, "trips"),
        ("spread", 5, 1, None),
    ]
    check_money(rnd, p2, [("ante", "debit", 10), ("payout", "credit", 120)])  # 11 to 1 on the ante
    assert [c["card"] for c in rnd["cards"]] == MIXED[:7]  # every card so far, in dealing order
    done = (await decide(api, rnd["round_id"], p3["bet_id"], "raise")).json()
    assert done["status"] == "settled"
    check_money(done, done["bets"][2], [("ante", "debit", 10), ("raise", "debit", 10), ("payout", "credit", 40)])
    assert hand(done["bets"][2])[2] == (3, "7C", 7, 3)
    reveal = done["shoe"]["reveal"]
    assert (
        hashlib.sha256(bytes.fromhex(reveal["salt"]) + reveal["order"].encode()).hexdigest()
        == rnd["shoe"]["commitment"]
    )
    assert reveal["order"].startswith("".join(MIXED))
    assert [c["shoe_index"] for c in done["cards"]] == list(range(8))  # dealt in shoe order, none skipped


async def test_a_shared_round_keeps_its_shape_and_its_bets_repeat_the_rounds_hand(api: Signed) -> None:
    table = await api.table(mode="test")
    rnd = await open_round(api, table["table_id"], [("p1", 10), ("p2", 5)], ["4S", "TH"])
    assert rnd["deal"] == "shared"
    assert rnd["cards"] == [
        {"position": 1, "card": "4S", "shoe_index": 0},
        {"position": 2, "card": "TH", "shoe_index": 1},
    ]
    for bet in rnd["bets"]:
        assert (bet["cards"], bet["outcome"], bet["spread"], bet["payout_odds"]) == (rnd["cards"], "spread", 5, 1)


async def test_a_bet_settled_at_the_deal_refuses_a_decision_and_writes_nothing(
    api: Signed, db: asyncpg.Connection
) -> None:
    table = await per_seat_table(api)
    rnd = await open_round(api, table["table_id"], THREE, MIXED)
    before = await fingerprint(db, api.operator_id)
    problem(await decide(api, rnd["round_id"], rnd["bets"][1]["bet_id"], "raise"), 409, "NOT_IN_RAISE_WINDOW")
    assert await fingerprint(db, api.operator_id) == before


async def test_the_shared_window_closes_on_the_deadline_and_calls_every_undecided_spread(
    api: Signed, clock: ManualClock
) -> None:
    table = await per_seat_table(api, raise_window_seconds=5)
    # Seat 1: 2 and A (spread 11), seat 2: 5 and 9 (spread 3 at 2:1); thirds K (between) and 5 (a post).
    rnd = await open_round(api, table["table_id"], [("p1", 10), ("p2", 4)], ["2S", "5H", "AD", "9C", "KS", "5D"])
    assert [b["outcome"] for b in rnd["bets"]] == ["spread", "spread"]
    clock.advance(5)
    done = await api.ok("GET", f"/v1/rounds/{rnd['round_id']}")
    assert [(b["decision"], b["result"], b["payout"], b["net"]) for b in done["bets"]] == [
        ("timeout_call", "win", 20, 10),
        ("timeout_call", "lose", 0, -4),
    ]


async def test_voiding_a_per_seat_round_refunds_the_open_bets_only(api: Signed) -> None:
    table = await per_seat_table(api)
    rnd = await open_round(api, table["table_id"], THREE, MIXED)
    voided = await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/void", {"reason": "shoe dropped"})
    assert voided["status"] == "void"
    assert [(b["result"], b["payout"], b["net"]) for b in voided["bets"]] == [
        ("push", 10, 0),
        ("trips", 120, 110),
        ("void", 10, 0),
    ]


async def test_forced_cards_may_cover_three_a_seat_but_no_more(api: Signed) -> None:
    table = await per_seat_table(api)
    too_many = MIXED + ["2C"] * 2  # 10 cards for three seats is fine, 10 for two is not
    problem(
        await api.post(
            f"/v1/tables/{table['table_id']}/rounds",
            {"bets": [{"player_id": "a", "ante": 1}, {"player_id": "b", "ante": 1}], "forced_cards": too_many[:7]},
        ),
        400,
        "VALIDATION_ERROR",
    )


async def test_every_card_goes_into_the_audit_log_with_its_seat_and_shoe_position(
    api: Signed, db: asyncpg.Connection
) -> None:
    table = await per_seat_table(api)
    rnd = await open_round(api, table["table_id"], THREE, MIXED)
    await decide(api, rnd["round_id"], rnd["bets"][2]["bet_id"], "call")
    bodies = await audit_sql.select_round_records(db, UUID(rnd["round_id"]))
    dealt = [e for e in (decode_record(b).event for b in bodies) if isinstance(e, CardDealt)]
    assert [(e.seat, e.position, e.card, e.shoe_index) for e in dealt] == [
        (1, 1, "5S", 0), (2, 1, "8S", 1), (3, 1, "4D", 2),
        (1, 2, "6H", 3), (2, 2, "8H", 4), (3, 2, "TC", 5),
        (2, 3, "8D", 6), (3, 3, "7C", 7),
    ]  # fmt: skip


async def test_concurrent_decisions_on_one_per_seat_round_make_each_bet_decide_once(
    settings: Settings, clock: ManualClock
) -> None:
    async with live(settings, clock=clock) as a, live(settings, clock=clock) as b:
        table = await a.api.table(mode="test", deal="per_seat")
        cards = ["2S", "5H", "AD", "9C", "KS", "7D"]  # two spreads
        rnd = await open_round(a.api, table["table_id"], [("p1", 10), ("p2", 10)], cards)
        attempts = [
            decide((a, b)[i % 2].api, rnd["round_id"], rnd["bets"][i % 2]["bet_id"], ("raise", "call")[i // 2 % 2])
            for i in range(20)
        ]
        responses = await asyncio.gather(*attempts)
        final = await a.api.ok("GET", f"/v1/rounds/{rnd['round_id']}")
    codes = Counter(r.status_code for r in responses)
    assert codes[200] == 2  # one decision per bet; the rest find it decided or the round settled
    assert set(codes) <= {200, 409}
    assert final["status"] == "settled"
    assert all(b["decision"] in ("raise", "call") for b in final["bets"])
