"""Every refusal is problem details with a stable code, never a 500, and a refused request writes nothing."""

from __future__ import annotations

import json
from typing import Any

import asyncpg
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.app import create_app
from service.settings import Settings
from tests.api.helpers import fill, fingerprint, open_round, problem
from tests.conftest import make_settings
from tests.support.client import Signed

TABLE = {"name": "t", "paytable": "standard/v1", "currency": "EUR", "min_ante": 1, "max_ante": 1000}
BET = {"player_id": "p1", "ante": 10}


def _round(bets: list[Any] | None = None, **extra: Any) -> dict[str, Any]:
    return {"bets": [BET] if bets is None else bets, **extra}


# (path template, body: a dict to encode or raw bytes, status, code)
BAD: dict[str, tuple[str, Any, int, str]] = {
    # tables
    "table malformed json": ("/v1/tables", b'{"name": ', 400, "VALIDATION_ERROR"),
    "table json array": ("/v1/tables", b"[]", 400, "VALIDATION_ERROR"),
    "table empty body": ("/v1/tables", b"", 400, "VALIDATION_ERROR"),
    "table unknown field": ("/v1/tables", {**TABLE, "colour": "red"}, 400, "VALIDATION_ERROR"),
    "table missing field": ("/v1/tables", {k: v for k, v in TABLE.items() if k != "currency"}, 400, "VALIDATION_ERROR"),
    "table string ante": ("/v1/tables", {**TABLE, "min_ante": "1"}, 400, "VALIDATION_ERROR"),
    "table float ante": ("/v1/tables", {**TABLE, "max_ante": 10.5}, 400, "VALIDATION_ERROR"),
    "table zero ante": ("/v1/tables", {**TABLE, "min_ante": 0}, 400, "VALIDATION_ERROR"),
    "table negative ante": ("/v1/tables", {**TABLE, "min_ante": -1}, 400, "VALIDATION_ERROR"),
    "table absurd ante": ("/v1/tables", {**TABLE, "max_ante": 10**13}, 400, "VALIDATION_ERROR"),
    "table huge ante": ("/v1/tables", {**TABLE, "max_ante": 10**40}, 400, "VALIDATION_ERROR"),
    "table zero decks": ("/v1/tables", {**TABLE, "decks": 0}, 400, "VALIDATION_ERROR"),
    "table nine decks": ("/v1/tables", {**TABLE, "decks": 9}, 400, "VALIDATION_ERROR"),
    "table lowercase currency": ("/v1/tables", {**TABLE, "currency": "eur"}, 400, "VALIDATION_ERROR"),
    "table unknown policy": ("/v1/tables", {**TABLE, "shoe_policy": "never"}, 400, "VALIDATION_ERROR"),
    "table unknown mode": ("/v1/tables", {**TABLE, "mode": "demo"}, 400, "VALIDATION_ERROR"),
    "table eight bets": ("/v1/tables", {**TABLE, "max_bets": 8}, 400, "VALIDATION_ERROR"),
    "table zero window": ("/v1/tables", {**TABLE, "raise_window_seconds": 0}, 400, "VALIDATION_ERROR"),
    "table empty name": ("/v1/tables", {**TABLE, "name": ""}, 400, "VALIDATION_ERROR"),
    "table unknown paytable": ("/v1/tables", {**TABLE, "paytable": "nope/v1"}, 422, "VALIDATION_ERROR"),
    "table unreleased version": ("/v1/tables", {**TABLE, "paytable": "standard/v2"}, 422, "VALIDATION_ERROR"),
    "table max below min": ("/v1/tables", {**TABLE, "min_ante": 50, "max_ante": 49}, 422, "VALIDATION_ERROR"),
    "table penetration per round": ("/v1/tables", {**TABLE, "penetration": 50}, 422, "VALIDATION_ERROR"),
    # rounds
    "round malformed json": ("/v1/tables/{test}/rounds", b'{"bets": [', 400, "VALIDATION_ERROR"),
    "round empty body": ("/v1/tables/{test}/rounds", b"", 400, "VALIDATION_ERROR"),
    "round unknown field": ("/v1/tables/{test}/rounds", _round(colour="red"), 400, "VALIDATION_ERROR"),
    "bet unknown field": ("/v1/tables/{test}/rounds", _round([{**BET, "seat": 1}]), 400, "VALIDATION_ERROR"),
    "bet string ante": ("/v1/tables/{test}/rounds", _round([{**BET, "ante": "10"}]), 400, "VALIDATION_ERROR"),
    "bet float ante": ("/v1/tables/{test}/rounds", _round([{**BET, "ante": 10.5}]), 400, "VALIDATION_ERROR"),
    "bet whole float ante": ("/v1/tables/{test}/rounds", _round([{**BET, "ante": 10.0}]), 400, "VALIDATION_ERROR"),
    "bet boolean ante": ("/v1/tables/{test}/rounds", _round([{**BET, "ante": True}]), 400, "VALIDATION_ERROR"),
    "bet zero ante": ("/v1/tables/{test}/rounds", _round([{**BET, "ante": 0}]), 400, "VALIDATION_ERROR"),
    "bet negative ante": ("/v1/tables/{test}/rounds", _round([{**BET, "ante": -10}]), 400, "VALIDATION_ERROR"),
    "bet absurd ante": ("/v1/tables/{test}/rounds", _round([{**BET, "ante": 10**13}]), 400, "VALIDATION_ERROR"),
    "bet missing ante": ("/v1/tables/{test}/rounds", _round([{"player_id": "p1"}]), 400, "VALIDATION_ERROR"),
    "bet empty player": ("/v1/tables/{test}/rounds", _round([{**BET, "player_id": ""}]), 400, "VALIDATION_ERROR"),
    "bet spaced player": ("/v1/tables/{test}/rounds", _round([{**BET, "player_id": "a b"}]), 400, "VALIDATION_ERROR"),
    "no bets": ("/v1/tables/{test}/rounds", _round([]), 400, "VALIDATION_ERROR"),
    "bets not a list": ("/v1/tables/{test}/rounds", {"bets": BET}, 400, "VALIDATION_ERROR"),
    "card 1X": ("/v1/tables/{test}/rounds", _round(forced_cards=["1X", "5S"]), 400, "VALIDATION_ERROR"),
    "card 10H": ("/v1/tables/{test}/rounds", _round(forced_cards=["10H", "5S"]), 400, "VALIDATION_ERROR"),
    "card lowercase": ("/v1/tables/{test}/rounds", _round(forced_cards=["5s", "6h"]), 400, "VALIDATION_ERROR"),
    "one forced card": ("/v1/tables/{test}/rounds", _round(forced_cards=["5S"]), 400, "VALIDATION_ERROR"),
    "four forced cards": (
        "/v1/tables/{test}/rounds",
        _round(forced_cards=["5S", "9S", "7S", "8S"]),
        400,
        "VALIDATION_ERROR",
    ),
    "more aces than the shoe holds": (
        "/v1/tables/{one_deck}/rounds",
        _round(forced_cards=["AS", "AS"]),
        422,
        "VALIDATION_ERROR",
    ),
    "same player twice": ("/v1/tables/{test}/rounds", _round([BET, BET]), 422, "VALIDATION_ERROR"),
    "ante below min": ("/v1/tables/{limits}/rounds", _round([{**BET, "ante": 4}]), 422, "BET_LIMIT"),
    "ante above max": ("/v1/tables/{limits}/rounds", _round([{**BET, "ante": 101}]), 422, "BET_LIMIT"),
    "more bets than max": (
        "/v1/tables/{limits}/rounds",
        _round([{"player_id": f"p{i}", "ante": 10} for i in range(3)]),
        422,
        "BET_LIMIT",
    ),
    "forced cards on a live table": (
        "/v1/tables/{live}/rounds",
        _round(forced_cards=["5S", "9S"]),
        403,
        "FORCED_CARDS_NOT_ALLOWED",
    ),
    "round on an unknown table": ("/v1/tables/{random}/rounds", _round(), 404, "NOT_FOUND"),
    # decisions
    "decision malformed json": ("/v1/rounds/{round}/decisions", b"{", 400, "VALIDATION_ERROR"),
    "decision unknown field": (
        "/v1/rounds/{round}/decisions",
        {"bet_id": "{bet}", "action": "call", "why": "x"},
        400,
        "VALIDATION_ERROR",
    ),
    "decision fold": ("/v1/rounds/{round}/decisions", {"bet_id": "{bet}", "action": "fold"}, 400, "VALIDATION_ERROR"),
    "decision no action": ("/v1/rounds/{round}/decisions", {"bet_id": "{bet}"}, 400, "VALIDATION_ERROR"),
    "decision string amount": (
        "/v1/rounds/{round}/decisions",
        {"bet_id": "{bet}", "action": "raise", "amount": "5"},
        400,
        "VALIDATION_ERROR",
    ),
    "decision float amount": (
        "/v1/rounds/{round}/decisions",
        {"bet_id": "{bet}", "action": "raise", "amount": 5.5},
        400,
        "VALIDATION_ERROR",
    ),
    "decision negative amount": (
        "/v1/rounds/{round}/decisions",
        {"bet_id": "{bet}", "action": "raise", "amount": -5},
        400,
        "VALIDATION_ERROR",
    ),
    "decision absurd amount": (
        "/v1/rounds/{round}/decisions",
        {"bet_id": "{bet}", "action": "raise", "amount": 10**13},
        400,
        "VALIDATION_ERROR",
    ),
    "decision raise over ante": (
        "/v1/rounds/{round}/decisions",
        {"bet_id": "{bet}", "action": "raise", "amount": 11},
        422,
        "RAISE_EXCEEDS_ANTE",
    ),
    "decision unknown bet": (
        "/v1/rounds/{round}/decisions",
        {"bet_id": "{round}.7", "action": "call"},
        404,
        "NOT_FOUND",
    ),
    "decision unknown round": (
        "/v1/rounds/{random}/decisions",
        {"bet_id": "{bet}", "action": "call"},
        404,
        "NOT_FOUND",
    ),
    # void and close
    "void empty reason": ("/v1/rounds/{round}/void", {"reason": ""}, 400, "VALIDATION_ERROR"),
    "void no reason": ("/v1/rounds/{round}/void", {}, 400, "VALIDATION_ERROR"),
    "void long reason": ("/v1/rounds/{round}/void", {"reason": "x" * 501}, 400, "VALIDATION_ERROR"),
    "void unknown round": ("/v1/rounds/{random}/void", {"reason": "x"}, 404, "NOT_FOUND"),
    "close unknown round": ("/v1/rounds/{random}/close", None, 404, "NOT_FOUND"),
    "close unknown table": ("/v1/tables/{random}/close", None, 404, "NOT_FOUND"),
}


@pytest.mark.parametrize("case", list(BAD))
async def test_a_bad_request_is_refused_with_its_code_and_writes_nothing(
    api: Signed, db: asyncpg.Connection, targets: dict[str, str], case: str
) -> None:
    template, body, status, code = BAD[case]
    path = fill(template, targets)
    before = await fingerprint(db, api.operator_id)
    if isinstance(body, bytes):
        response = await api.post(path, raw=body)
    else:
        response = await api.post(path, None if body is None else json.loads(fill(json.dumps(body), targets)))
    problem(response, status, code)
    assert await fingerprint(db, api.operator_id) == before


@pytest.mark.parametrize(
    "path",
    [
        "/v1/tables/not-a-uuid",
        "/v1/tables/123/close",
        "/v1/tables/zzz/rounds",
        "/v1/rounds/not-a-uuid",
        "/v1/rounds/00000000-0000-0000-0000-00000000000g/decisions",
        "/v1/rounds/1/void",
    ],
)
async def test_a_path_id_that_is_not_a_uuid_is_a_client_error_with_a_code(
    api: Signed, db: asyncpg.Connection, path: str
) -> None:
    before = await fingerprint(db, api.operator_id)
    for response in (await api.get(path), await api.post(path, {"reason": "x"})):
        assert response.status_code in (400, 404, 405), response.text
        problem(response, response.status_code, response.json()["code"])
    assert await fingerprint(db, api.operator_id) == before


@pytest.mark.parametrize(
    "path", ["/v1/tables/{random}", "/v1/rounds/{random}", "/v1/tables/{random}/close", "/v1/rounds/{random}/close"]
)
async def test_an_unknown_id_is_not_found(api: Signed, targets: dict[str, str], path: str) -> None:
    path = fill(path, targets)
    response = await (api.post(path) if path.endswith("/close") else api.get(path))
    problem(response, 404, "NOT_FOUND")


async def test_a_wrong_method_is_a_client_error_with_a_code(api: Signed, targets: dict[str, str]) -> None:
    response = await api.client.delete(f"/v1/tables/{targets['test']}")
    assert 400 <= response.status_code < 500
    problem(response, response.status_code, response.json()["code"])


async def test_a_cut_card_table_refuses_a_second_round_while_one_is_in_its_raise_window(
    api: Signed, db: asyncpg.Connection
) -> None:
    table = await api.table(mode="test", shoe_policy="cut_card")
    rounds = f"/v1/tables/{table['table_id']}/rounds"
    first = await open_round(api, table["table_id"], [("p1", 10)], ["4S", "TH"])
    assert first["status"] == "raise_window"
    before = await fingerprint(db, api.operator_id)
    problem(await api.post(rounds, {"bets": [BET]}), 409, "ROUND_IN_PROGRESS")
    problem(await api.post(rounds, {"bets": [BET], "forced_cards": ["5S", "6S"]}), 409, "ROUND_IN_PROGRESS")
    assert await fingerprint(db, api.operator_id) == before
    await api.ok("POST", f"/v1/rounds/{first['round_id']}/close")
    assert (await api.post(rounds, {"bets": [BET]})).status_code == 201


async def test_a_per_round_table_plays_several_rounds_at_once(api: Signed) -> None:
    table = await api.table(mode="test")
    opened = [await open_round(api, table["table_id"], [("p1", 10)], ["4S", "TH"]) for _ in range(3)]
    assert [r["status"] for r in opened] == ["raise_window"] * 3


async def test_a_server_that_disallows_test_tables_refuses_to_open_one(
    database_url: str, db: asyncpg.Connection
) -> None:
    settings = make_settings(database_url, allow_test_tables=False)
    operator = next(op for op in settings.operators if op != "other")
    async with AsyncTestClient(app=create_app(settings, sweep=False)) as http:
        strict = Signed(http, operator, settings.operators[operator])
        before = await fingerprint(db, operator)
        problem(await strict.post("/v1/tables", {**TABLE, "mode": "test"}), 403, "FORCED_CARDS_NOT_ALLOWED")
        assert await fingerprint(db, operator) == before
        assert (await strict.post("/v1/tables", TABLE)).status_code == 201  # a live table is fine


async def test_forced_cards_on_an_existing_test_table_are_refused_once_the_server_disallows_them(
    api: Signed, settings: Settings, database_url: str, db: asyncpg.Connection
) -> None:
    table = await api.table(mode="test")
    strict_settings = make_settings(database_url, allow_test_tables=False, operators=settings.operators)
    async with AsyncTestClient(app=create_app(strict_settings, sweep=False)) as http:
        strict = Signed(http, api.operator_id, api.secret)
        before = await fingerprint(db, api.operator_id)
        body = {"bets": [BET], "forced_cards": ["5S", "9S"]}
        problem(await strict.post(f"/v1/tables/{table['table_id']}/rounds", body), 403, "FORCED_CARDS_NOT_ALLOWED")
        assert await fingerprint(db, api.operator_id) == before


async def test_an_unreachable_database_is_a_retryable_503(api: Signed, app: Litestar, database_url: str) -> None:
    table = await api.table()
    pool: asyncpg.Pool = app.state.pool
    # New connections go to a port nobody listens on and the open ones are retired: the database has gone away.
    pool.set_connect_args("postgresql://postgres@127.0.0.1:1/gone")
    await pool.expire_connections()
    try:
        read = await api.get(f"/v1/tables/{table['table_id']}")
        write = await api.post("/v1/tables", TABLE)
    finally:
        pool.set_connect_args(database_url, command_timeout=30)
    for response in (read, write):
        body = problem(response, 503, "SERVICE_UNAVAILABLE")
        assert body["retryable"] is True
        assert response.headers["retry-after"]
    # the database is back: the same table reads fine
    assert (await api.get(f"/v1/tables/{table['table_id']}")).status_code == 200
