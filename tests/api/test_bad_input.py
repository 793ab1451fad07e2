"""Input PostgreSQL cannot take, or that a pattern took only by accident, is a 400 before any SQL, and writes nothing.

Each case here was a 500 or was accepted: a NUL in text, a time outside what converts to UTC, a value with a trailing
newline that `^…$` let through.
"""

from __future__ import annotations

import base64
import uuid
from typing import Any
from urllib.parse import quote

import asyncpg
import pytest

from tests.api.helpers import fill, fingerprint, open_round, problem
from tests.support.client import Signed

TABLE = {"name": "t", "paytable": "standard/v1", "currency": "EUR", "min_ante": 1, "max_ante": 1000}
BET = {"player_id": "p1", "ante": 10}

# (path template, body, the field the refusal names)
BODIES: dict[str, tuple[str, dict[str, Any], str]] = {
    "a NUL in a table name": ("/v1/tables", {**TABLE, "name": "main\x00table"}, "name"),
    "a control character in a table name": ("/v1/tables", {**TABLE, "name": "main\x1b[31m"}, "name"),
    "a newline in a table name": ("/v1/tables", {**TABLE, "name": "main\ntable"}, "name"),
    "a NUL in a paytable id": ("/v1/tables", {**TABLE, "paytable": "standard/v1\x00"}, "paytable"),
    "a currency with a trailing newline": ("/v1/tables", {**TABLE, "currency": "EUR\n"}, "currency"),
    "a player id with a trailing newline": (
        "/v1/tables/{test}/rounds",
        {"bets": [{**BET, "player_id": "a\n"}]},
        "player_id",
    ),
    "a NUL in a player id": ("/v1/tables/{test}/rounds", {"bets": [{**BET, "player_id": "a\x00"}]}, "player_id"),
    "a forced card with a trailing newline": (
        "/v1/tables/{test}/rounds",
        {"bets": [BET], "forced_cards": ["5S\n", "9H"]},
        "forced_cards",
    ),
    "a NUL in a void reason": ("/v1/rounds/{round}/void", {"reason": "dealer\x00error"}, "reason"),
    "an escape sequence in a void reason": ("/v1/rounds/{round}/void", {"reason": "ok\x1b[2J"}, "reason"),
    "a NUL in a bet id": ("/v1/rounds/{round}/decisions", {"bet_id": "{bet}\x00", "action": "call"}, "bet_id"),
    "a NUL in a rollback reason": ("/v1/rounds/{settled}/rollback", {"reason": "wallet\x00failed"}, "reason"),
    "an escape sequence in a rollback reason": ("/v1/rounds/{settled}/rollback", {"reason": "ok\x1b[2J"}, "reason"),
    "a requested_by with a trailing newline": (
        "/v1/rounds/{round}/close",
        {"requested_by": "pit boss\n"},
        "requested_by",
    ),
    "a NUL in an In Between ruleset": (
        "/v1/inbetween/games",
        {"ruleset": "inbetween/nepal/v1\x00", "ante": 5, "rounds": 5, "seats": [{"player_id": "a"}]},
        "ruleset",
    ),
}


@pytest.mark.parametrize("case", list(BODIES))
async def test_text_postgresql_cannot_store_or_a_pattern_took_by_accident_is_a_400_naming_the_field(
    api: Signed, db: asyncpg.Connection, targets: dict[str, str], case: str
) -> None:
    template, body, field = BODIES[case]
    before = await fingerprint(db, api.operator_id)
    filled = {k: fill(v, targets) if isinstance(v, str) else v for k, v in body.items()}
    response = await api.post(fill(template, targets), filled)
    assert field in problem(response, 400, "VALIDATION_ERROR")["detail"], response.text
    assert await fingerprint(db, api.operator_id) == before


async def test_a_void_reason_may_run_over_lines(api: Signed, targets: dict[str, str]) -> None:
    rnd = await open_round(api, targets["test"], [("p1", 10)], ["4S", "TH"])
    voided = await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/void", {"reason": "misdeal:\n\tcard faced\r\n"})
    assert voided["void_reason"] == "misdeal:\n\tcard faced\r\n"


def _cursor(opened_at: str) -> str:
    return base64.urlsafe_b64encode(f"{opened_at}|{uuid.uuid4()}".encode()).decode().rstrip("=")


async def test_a_player_id_in_the_recall_path_is_held_to_the_player_id_pattern(
    api: Signed, db: asyncpg.Connection
) -> None:
    before = await fingerprint(db, api.operator_id)
    for player in ("a" + chr(0), "a\n", "a b"):
        problem(await api.get(f"/v1/players/{quote(player, safe='')}/rounds"), 400, "VALIDATION_ERROR")
    assert (await api.get("/v1/players/alice/rounds")).status_code == 200
    assert await fingerprint(db, api.operator_id) == before


QUERIES = {
    "a NUL in player_id": f"player_id={quote('a' + chr(0))}",
    "a player_id with a trailing newline": "player_id=a%0A",
    "a player_id with a space": "player_id=a%20b",
    "from before year 1 in UTC": f"from={quote('0001-01-01T00:00:00+14:00')}",
    "to after year 9999 in UTC": f"to={quote('9999-12-31T23:59:59-14:00')}",
    "a cursor before year 1 in UTC": f"cursor={_cursor('0001-01-01T00:00:00+14:00')}",
    "a cursor after year 9999 in UTC": f"cursor={_cursor('9999-12-31T23:59:59-14:00')}",
}


@pytest.mark.parametrize("case", list(QUERIES))
async def test_a_query_value_postgresql_cannot_compare_is_a_400(api: Signed, db: asyncpg.Connection, case: str) -> None:
    before = await fingerprint(db, api.operator_id)
    problem(await api.get(f"/v1/rounds?{QUERIES[case]}"), 400, "VALIDATION_ERROR")
    assert await fingerprint(db, api.operator_id) == before


async def test_the_extreme_times_that_do_convert_to_utc_are_answered(api: Signed) -> None:
    for query in (
        f"from={quote('0001-01-01T00:00:00+00:00')}",
        f"to={quote('9999-12-31T23:59:59.999999+00:00')}",
        f"from={quote('0001-01-01T13:59:59-14:00')}&to={quote('9999-12-31T09:59:59+14:00')}",
    ):
        response = await api.get(f"/v1/rounds?{query}")
        assert response.status_code == 200, (query, response.text)


REPORT_TIMES = {
    "from before year 1 in UTC": f"from={quote('0001-01-01T00:00:00+14:00')}",
    "to after year 9999 in UTC": f"to={quote('9999-12-31T23:59:59-14:00')}",
}


@pytest.mark.parametrize("case", list(REPORT_TIMES))
async def test_a_report_time_postgresql_cannot_compare_is_a_400(api: Signed, db: asyncpg.Connection, case: str) -> None:
    before = await fingerprint(db, api.operator_id)
    problem(await api.get(f"/v1/reports/rtp?{REPORT_TIMES[case]}"), 400, "VALIDATION_ERROR")
    assert await fingerprint(db, api.operator_id) == before


async def test_a_seq_or_tree_size_past_a_bigint_is_a_400_and_the_largest_bigint_an_answer(
    api: Signed, db: asyncpg.Connection
) -> None:
    game = {"ruleset": "inbetween/nepal/v1", "ante": 5, "rounds": 5, "mode": "test", "forced_cards": ["4S", "JH"]}
    started = await api.ok("POST", "/v1/inbetween/games", {**game, "seats": [{"player_id": "a"}, {"player_id": "b"}]})
    game_id = started["game_id"]
    paths = [
        f"/v1/inbetween/games/{game_id}/records?after={{n}}",
        f"/v1/audit/records?table_id={game_id}&after_seq={{n}}",
        f"/v1/audit/consistency?table_id={game_id}&from={{n}}",
        f"/v1/audit/consistency?table_id={game_id}&from=1&to={{n}}",
    ]
    before = await fingerprint(db, api.operator_id)
    for path in paths:
        for n in ("99999999999999999999", str(2**63)):
            problem(await api.get(path.format(n=n)), 400, "VALIDATION_ERROR")
    assert await fingerprint(db, api.operator_id) == before
    assert (await api.ok("GET", paths[0].format(n=2**63 - 1)))["items"] == []


def nested(depth: int) -> bytes:
    """`{"x":{"x":...}}`, `depth` objects deep."""
    return b'{"x":' * depth + b"1" + b"}" * depth


async def test_a_body_nested_thousands_deep_is_a_400_on_the_move_routes_and_writes_nothing(
    api: Signed, db: asyncpg.Connection, targets: dict[str, str]
) -> None:
    game = {"ruleset": "inbetween/nepal/v1", "ante": 5, "rounds": 5, "mode": "test", "forced_cards": ["4S", "JH"]}
    started = await api.ok("POST", "/v1/inbetween/games", {**game, "seats": [{"player_id": "a"}, {"player_id": "b"}]})
    paths = [f"/v1/rounds/{targets['round']}/decisions", f"/v1/inbetween/games/{started['game_id']}/actions"]
    before = await fingerprint(db, api.operator_id), await api.ok("GET", f"/v1/inbetween/games/{started['game_id']}")
    for path in paths:
        for depth in (3_000, 10_000):  # 10,000 deep is 60 kB, within the body limit
            assert "nest" in problem(await api.post(path, raw=nested(depth)), 400, "VALIDATION_ERROR")["detail"]
    after = await fingerprint(db, api.operator_id), await api.ok("GET", f"/v1/inbetween/games/{started['game_id']}")
    assert after == before
