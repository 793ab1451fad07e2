"""What the API tests share: forced-card rounds, problem-details checks, money and shoe-reveal checks, row counts."""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import Any

import asyncpg
from httpx import Response

from tests.support.client import Signed

PROBLEM_JSON = "application/problem+json"
RANKS = "23456789TJQKA"
SUITS = "SHDC"


def problem(response: Response, status: int, code: str) -> dict[str, Any]:
    """Assert an RFC 9457 problem with our `code` and `retryable`; return its body."""
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM_JSON), response.headers
    body: dict[str, Any] = response.json()
    assert body["status"] == status
    assert body["code"] == code, body
    assert isinstance(body["title"], str)
    assert body["title"]
    assert isinstance(body["detail"], str)
    assert body["detail"]
    assert isinstance(body["retryable"], bool)
    return body


async def open_round(api: Signed, table_id: str, bets: list[tuple[str, int]], forced: list[str] | None = None) -> Any:
    body: dict[str, Any] = {"bets": [{"player_id": p, "ante": a} for p, a in bets]}
    if forced is not None:
        body["forced_cards"] = forced
    return await api.ok("POST", f"/v1/tables/{table_id}/rounds", body)


async def decide(api: Signed, round_id: str, bet_id: str, action: str, amount: int | None = None) -> Response:
    body: dict[str, Any] = {"bet_id": bet_id, "action": action}
    if amount is not None:
        body["amount"] = amount
    return await api.post(f"/v1/rounds/{round_id}/decisions", body)


def fill(template: str, ids: dict[str, str]) -> str:
    """Put ids into a template such as "/v1/rounds/{round}/close"."""
    for name, value in ids.items():
        template = template.replace("{" + name + "}", value)
    return template


def moves(bet: dict[str, Any]) -> list[tuple[str, str, int]]:
    """A bet's transactions as (kind, type, amount), in the order the API lists them."""
    return [(t["kind"], t["type"], t["amount"]) for t in bet["transactions"]]


def check_money(rnd: dict[str, Any], bet: dict[str, Any], expected: list[tuple[str, str, int]]) -> None:
    """The transactions are the expected ones, add up to the net, and carry ids a wallet can apply once."""
    assert moves(bet) == expected
    balance = sum(amount if kind == "credit" else -amount for _, kind, amount in expected)
    assert bet["net"] == balance
    credits = [t["amount"] for t in bet["transactions"] if t["type"] == "credit"]
    assert bet["payout"] == sum(credits)
    ids = [t["id"] for t in bet["transactions"]]
    assert len(set(ids)) == len(ids)
    for tx_id in ids:
        assert rnd["round_id"] in tx_id
        assert bet["bet_id"] in tx_id


def check_reveal(rnd: dict[str, Any], first_index: int | None = 0) -> str:
    """The revealed shoe hashes to the commitment and is the shoe the dealt cards came from; returns the order."""
    # A per-round shoe deals from its first card; a cut-card shoe (first_index=None) from wherever it had got to.
    reveal = rnd["shoe"]["reveal"]
    assert reveal is not None
    salt, order = reveal["salt"], reveal["order"]
    assert hashlib.sha256(bytes.fromhex(salt) + order.encode()).hexdigest() == rnd["shoe"]["commitment"]
    # a real shoe: `decks` copies of each of the 52 cards
    codes = [order[i : i + 2] for i in range(0, len(order), 2)]
    assert Counter(codes) == Counter({r + s: rnd["decks"] for r in RANKS for s in SUITS})
    for card in rnd["cards"]:
        i = card["shoe_index"]
        assert order[2 * i : 2 * i + 2] == card["card"]
    indices = [c["shoe_index"] for c in rnd["cards"]]
    start = indices[0] if first_index is None else first_index
    assert indices == list(range(start, start + len(indices)))  # dealt in shoe order, none skipped
    assert [c["position"] for c in rnd["cards"]] == list(range(1, len(indices) + 1))
    return str(order)


async def counts(db: asyncpg.Connection, operator_id: str) -> dict[str, int]:
    """How many rows this operator has in every table a request could write to."""
    return {
        "game_tables": await db.fetchval("SELECT count(*) FROM game_tables WHERE operator_id = $1", operator_id),
        "rounds": await db.fetchval("SELECT count(*) FROM rounds WHERE operator_id = $1", operator_id),
        "audit_log": await db.fetchval(
            "SELECT count(*) FROM audit_log a JOIN game_tables t USING (table_id) WHERE t.operator_id = $1",
            operator_id,
        ),
        "idempotency_keys": await db.fetchval(
            "SELECT count(*) FROM idempotency_keys WHERE operator_id = $1", operator_id
        ),
    }


async def fingerprint(db: asyncpg.Connection, operator_id: str) -> tuple[Any, ...]:
    """Counts plus every round's state and every table's status: a refused request must change none of it."""
    rounds = await db.fetch(
        "SELECT round_id, status, state::text FROM rounds WHERE operator_id = $1 ORDER BY round_id", operator_id
    )
    tables = await db.fetch(
        "SELECT table_id, status, audit_seq FROM game_tables WHERE operator_id = $1 ORDER BY table_id", operator_id
    )
    return (await counts(db, operator_id), [tuple(r) for r in rounds], [tuple(t) for t in tables])
