"""A request that starts from the rows this worker's last commit left (service/db/recent_rows.py) answers what a read
of the database would have answered: when another replica, the background pass or a proof changed anything since,
its write finds out and the request is decided again from a read."""

from __future__ import annotations

from typing import Any

from litestar import Litestar
from litestar.testing import AsyncTestClient
from prometheus_client import REGISTRY

from service.app import create_app
from service.settings import Settings
from tests.api.helpers import decide, open_round
from tests.support.client import Signed
from tests.support.clock import ManualClock

SPREAD_5 = ["4S", "TH", "7D"]  # posts 4 and 10: a raise window, and a 7 to finish the round


def started_from() -> float:
    """reddog_remembered_row_starts_total, as /metrics exports it."""
    return REGISTRY.get_sample_value("reddog_remembered_row_starts_total") or 0.0


async def two_bet_round(api: Signed) -> Any:
    table = await api.table(mode="test")
    return await open_round(api, table["table_id"], [("p1", 10), ("p2", 20)], SPREAD_5)


async def test_a_rounds_next_requests_on_the_same_worker_start_from_what_the_last_one_left(api: Signed) -> None:
    table = await api.table(mode="test")
    rnd = await open_round(api, table["table_id"], [("p1", 10)], SPREAD_5)
    before = started_from()
    decided = await decide(api, rnd["round_id"], rnd["bets"][0]["bet_id"], "call")
    assert decided.status_code == 200, decided.text
    assert started_from() == before + 1  # the decision: the round its open left
    await open_round(api, table["table_id"], [("p1", 10)], SPREAD_5)
    assert started_from() == before + 2  # the next open: the table the decision left
    # What the decision answered is what the database holds.
    assert await api.ok("GET", f"/v1/rounds/{rnd['round_id']}") == decided.json()


async def test_a_round_another_replica_changed_since_is_decided_from_what_the_database_holds(
    api: Signed, app: Litestar, settings: Settings, clock: ManualClock
) -> None:
    rnd = await two_bet_round(api)  # remembered here: both bets undecided
    first, second = (bet["bet_id"] for bet in rnd["bets"])
    async with AsyncTestClient(app=create_app(settings, clock=clock, sweep=False)) as http:
        other = Signed(http, api.operator_id, api.secret, clock=clock)
        there = await decide(other, rnd["round_id"], first, "call")
        assert there.status_code == 200, there.text
        assert there.json()["status"] == "raise_window"
        here = await decide(api, rnd["round_id"], second, "call")
        assert here.status_code == 200, here.text
        # The last decision deals the third card and settles both bets, as the database's round says it is.
        assert here.json()["status"] == "settled"
        assert [bet["decision"] for bet in here.json()["bets"]] == ["call", "call"]
        assert here.json() == await other.ok("GET", f"/v1/rounds/{rnd['round_id']}")
        # A refusal is what a read gives too.
        again_here = await decide(api, rnd["round_id"], first, "raise")
        again_there = await decide(other, rnd["round_id"], first, "raise")
    assert again_here.status_code == again_there.status_code == 409
    assert again_here.json()["code"] == again_there.json()["code"]


async def test_a_refusal_from_a_remembered_round_is_the_one_a_read_gives(
    api: Signed, app: Litestar, settings: Settings, clock: ManualClock
) -> None:
    rnd = await two_bet_round(api)
    first = rnd["bets"][0]["bet_id"]
    assert (await decide(api, rnd["round_id"], first, "call")).status_code == 200  # remembered: the first decided
    async with AsyncTestClient(app=create_app(settings, clock=clock, sweep=False)) as http:
        other = Signed(http, api.operator_id, api.secret, clock=clock)
        voided = await other.post(f"/v1/rounds/{rnd['round_id']}/void", {"reason": "table fault"})
        assert voided.status_code == 200, voided.text
        # Remembered, the round would refuse a second decision of its first bet as made already; it is void.
        here = await decide(api, rnd["round_id"], first, "raise")
        there = await decide(other, rnd["round_id"], first, "raise")
    assert here.status_code == there.status_code == 409
    assert here.json()["code"] == there.json()["code"] != "ALREADY_DECIDED"


async def test_a_checkpoint_signed_since_is_named_in_the_reply_as_a_read_names_it(api: Signed, app: Litestar) -> None:
    rnd = await two_bet_round(api)
    proof = await api.get(f"/v1/rounds/{rnd['round_id']}/proof")  # signs the table's head: no record is added
    assert proof.status_code == 200, proof.text
    signed = proof.json()["tree_size"]
    assert rnd["checkpoint_size"] < signed
    decided = await decide(api, rnd["round_id"], rnd["bets"][0]["bet_id"], "call")
    assert decided.status_code == 200, decided.text
    assert decided.json()["checkpoint_size"] == signed
