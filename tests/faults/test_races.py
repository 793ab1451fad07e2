"""Two app instances, each with its own background sweeper, racing every way a round can end: a player's decision,
the dealer's close, a void, a read that settles a round past its deadline, and the sweepers, while the shared clock
passes the deadline. Each round ends exactly once, as whoever won says, and pays what the rules say."""

from __future__ import annotations

import asyncio
import os
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
from paytables.red_dog.events import Decided
from tests.conftest import make_settings
from tests.faults.load import assert_paid_once, assert_settled_by_hand
from tests.support.clock import ManualClock
from tests.support.live import Live, live
from tests.support.racing import after, code
from tests.support.scratch import Database, verified_scratch_database

ROUNDS = int(os.environ.get("RD_RACE_ROUNDS", "16"))  # `make fuzz` races more
WIN, LOSE = ["3S", "JH", "9D"], ["4S", "TH", "KD"]  # a spread of 7 with a 9 between; a spread of 5 with a king outside
REFUSALS = {"NOT_IN_RAISE_WINDOW", "RAISE_WINDOW_CLOSED"}


@pytest.fixture(scope="module")
async def database(database_server: str) -> AsyncIterator[Database]:
    """This module's own database: its sweepers see only its rounds."""
    async with verified_scratch_database(database_server) as database:
        yield database


def ended(rnd: dict[str, Any]) -> dict[str, Any]:
    """The round without the checkpoint size of the moment it was shown (the checkpoint loop moves it)."""
    return {k: v for k, v in rnd.items() if k != "checkpoint_size"}


def contenders(a: Live, b: Live, rnd: Any) -> list[Awaitable[httpx.Response]]:
    """Every way to end the round, split over both instances: a decision each, a close, a void, a read each."""
    path = f"/v1/rounds/{rnd['round_id']}"
    last_bet = rnd["bets"][1]["bet_id"]
    return [
        a.api.post(f"{path}/decisions", {"bet_id": last_bet, "action": "call"}),
        b.api.post(f"{path}/decisions", {"bet_id": last_bet, "action": "raise"}),
        a.api.post(f"{path}/close", {"requested_by": "dealer"}),
        b.api.post(f"{path}/void", {"reason": "dealer fault", "requested_by": "pit boss"}),
        a.api.get(path),
        b.api.get(path),
    ]


async def test_every_way_a_round_can_end_racing_on_two_instances_ends_each_round_once(
    database: Database, db: asyncpg.Connection, clock: ManualClock
) -> None:
    settings = make_settings(database.app_url, sweep_interval_seconds=0.02)
    async with live(settings, clock=clock, sweep=True) as a, live(settings, clock=clock, sweep=True) as b:
        table = await a.api.table(mode="test", raise_window_seconds=1)
        deals = [WIN if i % 2 else LOSE for i in range(ROUNDS)]
        rounds = []
        for i, cards in enumerate(deals):
            body = {"bets": [{"player_id": "p1", "ante": 10}, {"player_id": "p2", "ante": 10}], "forced_cards": cards}
            rnd = await (a, b)[i % 2].api.ok("POST", f"/v1/tables/{table['table_id']}/rounds", body)
            decided = {"bet_id": rnd["bets"][0]["bet_id"], "action": "raise"}
            await (b, a)[i % 2].api.ok("POST", f"/v1/rounds/{rnd['round_id']}/decisions", decided)
            rounds.append(rnd)
        last = max(datetime.fromisoformat(r["raise_window_closes_at"]) for r in rounds)

        async def pass_the_deadlines() -> None:  # the sweepers of both instances wake to it within 20 ms
            clock.now = last + timedelta(milliseconds=1)

        # Three rounds in four race their requests before the deadline; then the clock passes every deadline and the
        # rest race theirs against both instances' sweepers (which wake within 20 ms) and each other.
        early, late = [r for i, r in enumerate(rounds) if i % 4], [r for i, r in enumerate(rounds) if not i % 4]
        jitter = random.Random(20261130)
        answers: dict[str, list[httpx.Response]] = {}
        for batch in (early, late):
            racing = (after(jitter.uniform(0, 0.05), r) for rnd in batch for r in contenders(a, b, rnd))
            got = await asyncio.gather(*racing)
            answers |= {rnd["round_id"]: got[6 * k : 6 * k + 6] for k, rnd in enumerate(batch)}
            await pass_the_deadlines()
        await asyncio.sleep(0.2)  # the sweepers settle whatever no request did
        finals = [await a.api.ok("GET", f"/v1/rounds/{rnd['round_id']}") for rnd in rounds]

    ended_by = Counter[str]()
    for cards, final in zip(deals, finals, strict=True):
        mine = answers[final["round_id"]]
        assert {code(r) for r in mine} <= {"OK"} | REFUSALS, [r.text for r in mine]
        writes_won = [j for j, r in enumerate(mine[:4]) if r.status_code == 200]
        assert len(writes_won) <= 1, "two requests both ended one round"
        if writes_won:
            assert ended(mine[writes_won[0]].json()) == ended(final)  # the winner was told the round's one ending
        records = [
            decode_record(r["body"]).event
            for r in await db.fetch(
                "SELECT body FROM audit_log WHERE round_id = $1 ORDER BY seq", UUID(final["round_id"])
            )
        ]
        kinds = Counter(type(e).__name__ for e in records)
        if final["status"] == "void":
            assert writes_won == [3]
            assert (kinds["RoundVoided"], kinds["RoundSettled"], kinds["BetSettled"], kinds["CardDealt"]) == (
                1,
                0,
                2,  # each bet settles as a refund
                2,
            )
            refunds = [
                [(t["type"], t["amount"]) for t in b["transactions"] if t["kind"] == "refund"] for b in final["bets"]
            ]
            assert refunds == [[("credit", 20)], [("credit", 10)]]  # the raised stake, the undecided ante
            ended_by["void"] += 1
            continue
        assert (kinds["RoundSettled"], kinds["RoundVoided"], kinds["BetSettled"], kinds["CardDealt"]) == (1, 0, 2, 3)
        assert [c["card"] for c in final["cards"]] == cards
        assert_settled_by_hand(final)
        by = {e.bet_id: e.by for e in records if isinstance(e, Decided)}[final["bets"][1]["bet_id"]]
        decision = final["bets"][1]["decision"]
        if by == "player":
            assert writes_won in ([0], [1])
            assert decision == ("call", "raise")[writes_won[0]]
        elif by == "dealer":
            assert (writes_won, decision) == ([2], "timeout_call")
        else:  # the deadline: a sweeper, a read, a late write that settled it and refused, or a late close
            assert (by, decision) == ("timeout", "timeout_call")
            assert writes_won in ([], [2])  # a close past the deadline answers the timeout's settlement
        ended_by[by] += 1
    await assert_paid_once(db, table["table_id"], finals)
    assert sum(ended_by.values()) == ROUNDS
