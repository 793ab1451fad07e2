"""kill -9 of a real `reddog serve` again and again under load (signed clients; rounds settled by hand, by the sweeper
at the deadline, voided and rolled back), its notifications going to a real receiver that fails 20% of deliveries and
answers 5% too late: after the last restart has drained the outbox, every settlement, void and rollback the audit log
records has exactly one applied notification, in the round's order, none lost, and GET /v1/notifications lists each
once. `make test` kills it twice; `make fuzz` six times, longer and with more clients (RD_OUTBOX_KILLS,
RD_FAULT_LOAD_SECONDS, RD_FAULT_CLIENTS)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import time
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest

from tests.faults.load import Exchange, round_body, send
from tests.support.client import Signed
from tests.support.notification_receiver import Receiver, running
from tests.support.round_rows import round_states
from tests.support.scratch import Database, verified_scratch_database
from tests.support.served import OPERATOR, served

CLIENTS = int(os.environ.get("RD_FAULT_CLIENTS", "6"))
LOAD_SECONDS = float(os.environ.get("RD_FAULT_LOAD_SECONDS", "0.7"))  # of each of the runs before a kill
KILLS = int(os.environ.get("RD_OUTBOX_KILLS", "2"))  # `make fuzz`: 6 (each restart costs seconds of start-up)
SECRET = "outbox-crash-notification-secret"
ENDINGS = {"round_settled": "round.settled", "round_voided": "round.voided", "round_rolled_back": "round.rolled_back"}


@pytest.fixture(scope="module")
async def database(database_server: str) -> AsyncIterator[Database]:
    async with verified_scratch_database(database_server) as database:
        yield database


def outbox_env(receiver: Receiver) -> dict[str, str]:
    return {
        "RD_NOTIFY_URLS": f"{OPERATOR[0]}={receiver.url}",
        "RD_NOTIFY_SECRETS": f"{OPERATOR[0]}:{SECRET}",
        "RD_OUTBOX_TIMEOUT_SECONDS": "0.5",  # the receiver's late answers (1 s) time out
        "RD_OUTBOX_BACKOFF_BASE_SECONDS": "0.05",
        "RD_OUTBOX_BACKOFF_MAX_SECONDS": "0.5",
        "RD_OUTBOX_POLL_SECONDS": "0.05",
        "RD_OUTBOX_MAX_ATTEMPTS": "1000",
        "RD_SWEEP_INTERVAL_SECONDS": "0.2",
    }


async def player(api: Signed, table_id: str, name: str, stop: asyncio.Event) -> None:
    """Rounds one after another: called by hand, left to the sweeper's deadline, voided, or called and rolled back."""
    n = 0
    while not stop.is_set():
        n += 1
        opened = await send(api, Exchange(path=f"/v1/tables/{table_id}/rounds", key=f"{name}-{n}", body=round_body()))
        if not opened.answered:
            return
        rnd = json.loads(opened.content)
        if opened.status != 201 or rnd["status"] != "raise_window":
            continue
        path = f"/v1/rounds/{rnd['round_id']}"
        bet = rnd["bets"][0]["bet_id"]
        steps = {
            0: [("decisions", {"bet_id": bet, "action": "call"})],
            1: [],  # the sweeper settles it at the deadline
            2: [("void", {"reason": "table fault"})],
            3: [("decisions", {"bet_id": bet, "action": "call"}), ("rollback", {"reason": "wallet debit failed"})],
        }[n % 4]
        for i, (verb, body) in enumerate(steps):
            sent = await send(
                api, Exchange(path=f"{path}/{verb}", key=f"{name}-{n}-{i}", body=json.dumps(body).encode())
            )
            if not sent.answered:
                return


async def load_until_killed(url: str, pid: int, run: int) -> None:
    stop = asyncio.Event()
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        api = Signed(client, *OPERATOR)
        tables = [
            (await api.table(name=f"outbox-{run}-{i}", raise_window_seconds=1))["table_id"] for i in range(CLIENTS)
        ]
        players = [asyncio.create_task(player(api, t, f"r{run}c{i}", stop)) for i, t in enumerate(tables)]
        await asyncio.sleep(LOAD_SECONDS)
        os.kill(pid, signal.SIGKILL)  # mid-load, mid-delivery: claims leased, attempts in flight
        stop.set()
        await asyncio.gather(*players)


async def owed(db: asyncpg.Connection) -> list[tuple[str, str]]:
    """(round id, notification type) of every ending the audit log records, in each round's chain order."""
    rows = await db.fetch(
        "SELECT round_id, kind FROM audit_log WHERE kind = ANY($1::text[]) ORDER BY table_id, seq", list(ENDINGS)
    )
    return [(str(r["round_id"]), ENDINGS[r["kind"]]) for r in rows]


async def drained(db: asyncpg.Connection, within: float) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        open_rounds = await db.fetchval("SELECT count(*) FROM rounds WHERE status = 'raise_window'")
        waiting = await db.fetchval("SELECT count(*) FROM outbox WHERE status = 'pending'")
        if open_rounds == 0 and waiting == 0:
            return
        await asyncio.sleep(0.2)
    raise AssertionError(f"not drained: {open_rounds} rounds open, {waiting} messages owed")


async def listed(url: str) -> list[dict[str, Any]]:
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        api = Signed(client, *OPERATOR)
        seen: list[dict[str, Any]] = []
        after = 0
        while page := (await api.ok("GET", f"/v1/notifications?after={after}&limit=500"))["notifications"]:
            seen += [item["notification"] for item in page]
            after = page[-1]["seq"]
        return seen


async def test_kill_9_again_and_again_mid_delivery_loses_doubles_and_reorders_no_notification(
    database: Database, db: asyncpg.Connection, tmp_path: Path
) -> None:
    with running((SECRET,), fail_rate=0.2, timeout_rate=0.05) as receiver:
        receiver.stall_seconds = 1.0
        for run in range(KILLS):
            with served(database.app_url, tmp_path / f"run-{run}", env=outbox_env(receiver)) as server:
                await load_until_killed(server.api_url, server.pid, run)
        with served(database.app_url, tmp_path / "last", env=outbox_env(receiver)) as last:
            await drained(db, within=120)
            await asyncio.sleep(0.3)  # the last acknowledgements' marks
            seen = await listed(last.api_url)
        expected = await owed(db)
        applied = [receiver.applied[i] for i in receiver.order if receiver.applied[i]["type"].startswith("round.")]
        got = [(e["data"]["round_id"], e["type"]) for e in applied]
        per_round_expected: dict[str, list[str]] = {}
        per_round_got: dict[str, list[str]] = {}
        for round_id, kind in expected:
            per_round_expected.setdefault(round_id, []).append(kind)
        for round_id, kind in got:
            per_round_got.setdefault(round_id, []).append(kind)
        lost = sum((Counter(expected) - Counter(got)).values())
        doubled = sum((Counter(got) - Counter(expected)).values())
        disordered = sum(per_round_got.get(r, []) != kinds for r, kinds in per_round_expected.items())
        ids = Counter(e["id"] for e in seen)
        lag = await db.fetchval(
            "SELECT percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM delivered_at - created_at))"
            " FROM outbox WHERE status = 'delivered'"
        )
        figures = {
            "rounds": len(per_round_expected),
            "swept": sum(state["bets"][0]["decision"] == "timeout_call" for state in await round_states(db)),
            "notifications": len(expected),
            "kills": KILLS,
            "attempts": receiver.attempts,
            "failed_500": receiver.failed,
            "answered_late": receiver.stalled,
            "received_again": receiver.attempts - receiver.failed - receiver.bad_signatures - len(receiver.order),
            "cut_short_by_a_kill": receiver.cut_short,
            "lost": lost,
            "doubled": doubled,
            "out_of_order": disordered,
            "p99_lag_seconds": round(float(lag or 0), 3),
        }
        print(f"outbox kill -9 figures: {json.dumps(figures)}")
        (Path(os.environ.get("RD_FIGURES_DIR", tmp_path)) / "outbox-crash.json").write_text(json.dumps(figures))
        assert len(per_round_expected) > 10 * KILLS, figures  # the load got going
        assert receiver.bad_signatures == 0
        assert (lost, doubled, disordered) == (0, 0, 0), figures
        assert [n for n, c in ids.items() if c > 1] == []
        listed_rounds = [(e["data"]["round_id"], e["type"]) for e in seen if e["type"].startswith("round.")]
        assert sorted(listed_rounds) == sorted(expected)
        by_round = {r: [k for rr, k in listed_rounds if rr == r] for r in per_round_expected}
        assert by_round == per_round_expected
        # Rounds the sweeper settled at their deadline (their bets called by the timer) are among those told.
        swept = figures["swept"]
        assert swept > 0
