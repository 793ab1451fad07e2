"""Two app instances on one database, each with its own delivery worker (and sweeper), delivering at once to a real
HTTP receiver that checks every signature, fails 30% of deliveries and answers 5% too late, while rounds are settled,
voided and rolled back through both: every notification arrives, each applied once, and one round's in the order its
endings happened, whichever instance sent which."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections import Counter
from collections.abc import AsyncIterator

import asyncpg
import msgspec
import pytest

from service.outbox_settings import NotificationTarget, OutboxSettings
from service.settings import Settings
from tests.conftest import make_settings
from tests.support.live import Live, live
from tests.support.notification_receiver import Receiver, running
from tests.support.scratch import Database, verified_scratch_database

ROUNDS = int(os.environ.get("RD_OUTBOX_INSTANCE_ROUNDS", "48"))  # four ways to end, taken in turn
SECRET = "two-instances-notification-secret"
CONSECUTIVE = ["5S", "6H"]  # posts one apart: the round settles at the deal (standard/v1)
SPREAD = ["3S", "JH", "9D"]  # a spread: the round waits in its raise window for a decision or a void


@pytest.fixture(scope="module")
async def database(database_server: str) -> AsyncIterator[Database]:
    """This module's own database: the two workers see only its messages (and park no other test's)."""
    async with verified_scratch_database(database_server) as database:
        yield database


def instance_settings(plain: Settings, receiver: Receiver, source: str) -> Settings:
    operator = next(op for op in plain.operators if op != "other")
    outbox = OutboxSettings(
        targets={operator: NotificationTarget(url=receiver.url_for(source), secrets=(SECRET,))},
        timeout_seconds=0.3,  # the receiver's late answers (0.6 s) time out, and are sent again
        backoff_base_seconds=0.02,
        backoff_max_seconds=0.1,
        poll_seconds=0.02,
        max_attempts=1000,
    )
    return msgspec.structs.replace(plain, outbox=outbox)


async def end_round(a: Live, b: Live, table_id: str, n: int) -> tuple[str, list[str]]:
    """Round n, ended the (n % 4)th way, its steps split over both instances; its notifications, as the rules say
    they follow from those steps, in order."""
    first, second = (a, b) if n % 2 else (b, a)
    path = f"/v1/tables/{table_id}/rounds"
    bets = [{"player_id": f"p{n}", "ante": 10}]
    cards = SPREAD if n % 4 in (1, 2) else CONSECUTIVE
    rnd = await first.api.ok("POST", path, {"bets": bets, "forced_cards": cards})
    at = f"/v1/rounds/{rnd['round_id']}"
    if n % 4 == 1:  # called on the other instance: settled there
        await second.api.ok("POST", f"{at}/decisions", {"bet_id": rnd["bets"][0]["bet_id"], "action": "call"})
    if n % 4 == 2:
        await second.api.ok("POST", f"{at}/void", {"reason": "table fault", "requested_by": "pit boss"})
        return rnd["round_id"], ["round.voided"]
    if n % 4 == 3:  # settled at the deal and left at that
        return rnd["round_id"], ["round.settled"]
    await (second if n % 4 == 0 else first).api.ok("POST", f"{at}/rollback", {"reason": "wallet debit failed"})
    return rnd["round_id"], ["round.settled", "round.rolled_back"]


async def drained(db: asyncpg.Connection, operator: str, within: float) -> int:
    """Wait until the operator is owed nothing; the number of its messages."""
    deadline, found = time.monotonic() + within, {}
    while time.monotonic() < deadline:
        rows = await db.fetch(
            "SELECT status, count(*) AS n FROM outbox WHERE operator_id = $1 GROUP BY status", operator
        )
        found = {r["status"]: r["n"] for r in rows}
        if set(found) == {"delivered"}:
            return int(found["delivered"])
        await asyncio.sleep(0.05)
    raise AssertionError(f"not drained within {within} s: {found}")


async def test_two_instances_delivering_at_once_lose_double_and_reorder_no_rounds_notification(
    database: Database, db: asyncpg.Connection
) -> None:
    started = time.monotonic()
    plain = make_settings(database.app_url, sweep_interval_seconds=0.05)
    operator = next(op for op in plain.operators if op != "other")
    with running((SECRET,), fail_rate=0.3, timeout_rate=0.05, seed=27) as receiver:
        receiver.stall_seconds = 0.6
        one, two = instance_settings(plain, receiver, "one"), instance_settings(plain, receiver, "two")
        async with live(one, sweep=True) as a, live(two, sweep=True) as b:
            # A table's rounds run one at a time; four tables side by side keep both workers busy at once. No raise
            # window closes within the test: each round ends as the test ends it, not by a sweeper.
            tables = [
                (await (a, b)[k % 2].api.table(mode="test", raise_window_seconds=30))["table_id"] for k in range(4)
            ]

            async def dealer(k: int) -> list[tuple[str, list[str]]]:
                return [await end_round(a, b, tables[k], n) for n in range(k, ROUNDS, len(tables))]

            expected = dict(r for ended in await asyncio.gather(*map(dealer, range(len(tables)))) for r in ended)
            owed = await drained(db, operator, within=30)  # some 3 s alone; room for a busy machine
            await asyncio.sleep(0.1)  # the last late answers' threads finish their bookkeeping
    applied = [receiver.applied[i] for i in receiver.order]
    got: dict[str, list[str]] = {}
    for event in (e for e in applied if e["type"].startswith("round.")):
        got.setdefault(event["data"]["round_id"], []).append(event["type"])
    # The checkpoint loops of both instances sign their tables too: a table's checkpoints arrive in size order.
    sizes: dict[str, list[int]] = {}
    for event in (e for e in applied if e["type"] == "checkpoint.signed"):
        sizes.setdefault(event["data"]["table_id"], []).append(event["data"]["tree_size"])
    pairs = Counter((r, k) for r, kinds in got.items() for k in kinds)
    wanted = Counter((r, k) for r, kinds in expected.items() for k in kinds)
    checkpoints = sum(map(len, sizes.values()))
    figures = {
        "rounds": len(expected),
        "messages": owed,
        "checkpoints": checkpoints,
        "attempts": receiver.attempts,
        "failed_500": receiver.failed,
        "answered_late": receiver.stalled,
        "received_again": receiver.attempts - receiver.failed - receiver.bad_signatures - len(receiver.order),
        "applied_from": dict(receiver.applied_from),
        "lost": sum((wanted - pairs).values()),
        "doubled": sum((pairs - wanted).values()),
        "out_of_order": sum(got.get(r, []) != kinds for r, kinds in expected.items())
        + sum(seen != sorted(set(seen)) for seen in sizes.values()),
        "seconds": round(time.monotonic() - started, 2),
    }
    print(f"outbox two-instance figures: {json.dumps(figures)}")
    assert receiver.bad_signatures == 0
    assert owed == sum(wanted.values()) + checkpoints == len(receiver.order), figures
    assert len(set(receiver.order)) == len(receiver.order)
    assert (figures["lost"], figures["doubled"], figures["out_of_order"]) == (0, 0, 0), figures
    assert min(receiver.failed, receiver.stalled) > 0, figures  # the faults happened, and were outlived
    assert min(receiver.applied_from["one"], receiver.applied_from["two"]) > 0, figures  # both instances delivered
