"""What the fault tests share: signed clients playing rounds under load that keep every byte they were sent, the
settlement of standard/v1 worked out by hand, and the checks that the money and the audit log still add up."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections import Counter
from typing import Any
from uuid import UUID

import asyncpg
import httpx
import msgspec

from audit.records import decode_record
from paytables.red_dog.events import BetSettled
from tests.support.client import Signed
from tests.support.database import ROOT

RANK = {r: v for v, r in enumerate("23456789TJQKA", start=2)}  # aces high
SPREAD_ODDS = [5, 4, 2, 1, 1, 1, 1, 1, 1, 1, 1]  # standard/v1, spreads 1..11, read off its released file by eye
TRIPS_ODDS = 11
ANTE = 10


class Exchange(msgspec.Struct, kw_only=True):
    """One POST as a client sent it, and what came back: no status when the connection died before an answer."""

    path: str
    key: str
    body: bytes
    status: int | None = None
    content: bytes = b""

    @property
    def answered(self) -> bool:
        return self.status is not None


async def send(api: Signed, exchange: Exchange) -> Exchange:
    """Send (or resend) the exchange's request with its own key and bytes; keep the answer, if any comes."""
    try:
        response = await api.post(exchange.path, key=exchange.key, raw=exchange.body)
    except httpx.TransportError:
        return exchange
    exchange.status, exchange.content = response.status_code, response.content
    return exchange


def round_body(players: int = 1) -> bytes:
    return json.dumps({"bets": [{"player_id": f"p{i + 1}", "ante": ANTE} for i in range(players)]}).encode()


def decision_body(rnd: dict[str, Any], action: str) -> bytes:
    return json.dumps({"bet_id": rnd["bets"][0]["bet_id"], "action": action}).encode()


async def play(
    api: Signed, table_id: str, name: str, log: list[Exchange], stop: asyncio.Event, *, leave_open: bool = True
) -> None:
    """Open rounds on one table until told to stop or the server goes away; decide most spreads, and leave every
    third open unless told not to (a cut-card table plays one round at a time)."""
    n = 0
    while not stop.is_set():
        n += 1
        opened = await send(
            api, Exchange(path=f"/v1/tables/{table_id}/rounds", key=f"{name}-{n}-open", body=round_body())
        )
        log.append(opened)
        if not opened.answered:
            return
        assert opened.status == 201, opened.content
        rnd = json.loads(opened.content)
        if rnd["status"] != "raise_window" or (leave_open and n % 3 == 0):  # for the dealer to close, after the crash
            continue
        path = f"/v1/rounds/{rnd['round_id']}/decisions"
        action = ("call", "raise")[n % 2]
        decided = await send(api, Exchange(path=path, key=f"{name}-{n}-decide", body=decision_body(rnd, action)))
        log.append(decided)
        if not decided.answered:
            return
        assert decided.status == 200, decided.content


def by_hand(cards: list[str], ante: int, decision: str | None) -> tuple[str, int, int]:
    """(result, payout, net) of one standard/v1 bet on these cards, from the rules as the docs state them."""
    first, second = RANK[cards[0][0]], RANK[cards[1][0]]
    if abs(first - second) == 1:
        return "push", ante, 0
    if first == second:
        return (
            ("trips", ante * (1 + TRIPS_ODDS), ante * TRIPS_ODDS) if RANK[cards[2][0]] == first else ("push", ante, 0)
        )
    wager = 2 * ante if decision == "raise" else ante
    low, high = sorted((first, second))
    if low < RANK[cards[2][0]] < high:
        odds = SPREAD_ODDS[high - low - 2]
        return "win", wager * (1 + odds), wager * odds
    return "lose", 0, -wager


def assert_settled_by_hand(rnd: dict[str, Any]) -> None:
    assert rnd["status"] == "settled", rnd
    cards = [c["card"] for c in rnd["cards"]]
    for bet in rnd["bets"]:
        assert (bet["result"], bet["payout"], bet["net"]) == by_hand(cards, bet["ante"], bet["decision"]), rnd


def assert_each_card_dealt_once(rounds: list[dict[str, Any]]) -> None:
    """Within each shoe (by its commitment), the rounds in the order they opened dealt consecutive shoe positions:
    no card dealt twice, none skipped (a shoe that outlives its rounds, a cut-card table's, is where this bites)."""
    dealt: dict[str, list[int]] = {}
    for rnd in sorted(rounds, key=lambda r: (r["opened_at"], r["round_id"])):
        dealt.setdefault(rnd["shoe"]["commitment"], []).extend(c["shoe_index"] for c in rnd["cards"])
    for commitment, positions in dealt.items():
        assert positions == list(range(positions[0], positions[0] + len(positions))), (commitment, positions)


async def history(api: Signed, table_id: str) -> list[dict[str, Any]]:
    """Every round of a table, as its history pages list them."""
    rounds: list[dict[str, Any]] = []
    cursor = ""
    while True:
        page = await api.ok("GET", f"/v1/rounds?table_id={table_id}&limit=200{cursor}")
        rounds += page["items"]
        if page["next_cursor"] is None:
            return rounds
        cursor = f"&cursor={page['next_cursor']}"


async def assert_paid_once(db: asyncpg.Connection, table_id: str, rounds: list[dict[str, Any]]) -> None:
    """Every bet of every ended round (settled, or voided: a refund) has exactly one settlement record, and what the
    history says was paid is what the audit log says was paid, bet by bet."""
    rows = await db.fetch("SELECT kind, round_id, body FROM audit_log WHERE table_id = $1", UUID(table_id))
    kinds = Counter((r["kind"], str(r["round_id"])) for r in rows)
    recorded: dict[str, tuple[int, int]] = {}
    for row in rows:
        event = decode_record(row["body"]).event
        if isinstance(event, BetSettled):
            assert event.bet_id not in recorded, f"bet {event.bet_id} settled twice"
            recorded[event.bet_id] = (event.payout, event.net)
    assert {rid for (kind, rid) in kinds if kind == "round_opened"} == {r["round_id"] for r in rounds}
    for rnd in rounds:
        rid = rnd["round_id"]
        assert kinds[("round_opened", rid)] == 1
        assert kinds[("round_settled", rid)] + kinds[("round_voided", rid)] == (rnd["status"] != "raise_window")
        for bet in rnd["bets"]:
            if rnd["status"] != "raise_window":
                assert recorded.pop(bet["bet_id"]) == (bet["payout"], bet["net"])
    assert recorded == {}, f"settlement records for bets no round shows: {sorted(recorded)[:5]}"


def audit_verify(owner_url: str) -> None:
    """`reddog audit verify --db` as an operator runs it: every chain and every round against its records."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("RD_")} | {"DATABASE_URL": owner_url}
    done = subprocess.run(
        [sys.executable, "-m", "service.cli.cli", "audit", "verify", "--db"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
