"""Whatever text or time a client puts in any field of any route, the answer is never a 5xx, and a refusal writes
nothing. Hypothesis throws arbitrary strings (NUL, escaped surrogates, newlines, the valid value with junk around it)
and arbitrary times (any offset, the ends of the calendar, no offset) at the real app on PostgreSQL.

One field is spoiled at a time and the others stay valid, so the spoiled value gets as far as it can (towards SQL)
instead of being refused for a sibling. Kept to a few dozen requests a route so `make test` stays fast.
"""

from __future__ import annotations

import base64
import json
import uuid
from datetime import UTC, datetime, timedelta, timezone
from typing import Any
from urllib.parse import quote

import asyncpg
import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.api.helpers import counts, open_round
from tests.support.client import Signed

PROPERTY = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
TABLE = {"name": "t", "paytable": "standard/v1", "currency": "EUR", "min_ante": 1, "max_ante": 1000}

CRITICAL = ["\x00", "\n"]  # what PostgreSQL's text cannot hold, and what `$` lets through
NASTY = ["", "\r\n", "\x1b", "\x7f", " ", "\u2028", "\ufeff", "%00", "'", '"', "\\", "\ud800", "é" * 70]


def spoiled(valid: str) -> st.SearchStrategy[str]:
    """The valid value with troublemakers before or after it, a troublemaker alone, or any string at all."""
    junk = st.sampled_from(CRITICAL) | st.sampled_from(NASTY) | st.text(max_size=20)
    return st.one_of(st.builds(lambda a, b: a + valid + b, junk, junk), junk, st.text(), st.just(valid))


def one_spoiled(valid: dict[str, str]) -> st.SearchStrategy[dict[str, str]]:
    """The valid values with one of them replaced by a spoiled one."""
    return st.sampled_from(sorted(valid)).flatmap(lambda k: spoiled(valid[k]).map(lambda v: {**valid, k: v}))


WIDEST = timedelta(hours=23, minutes=59)  # the widest offset Python takes (real zones span -12:00..+14:00)
EXTREME_ZONES = st.sampled_from([timedelta(hours=14), -timedelta(hours=14), WIDEST, -WIDEST]).map(timezone)
ZONES = st.none() | st.just(UTC) | st.timedeltas(-WIDEST, WIDEST).map(timezone)
CALENDAR_ENDS = st.builds(datetime.replace, st.sampled_from([datetime.min, datetime.max]), tzinfo=EXTREME_ZONES)
ANY_TIME = st.builds(datetime.replace, st.datetimes(), tzinfo=ZONES)
TIMES = (CALENDAR_ENDS | ANY_TIME).map(datetime.isoformat)


def cursor_for(opened_at: str) -> str:
    return base64.urlsafe_b64encode(f"{opened_at}|{uuid.uuid4()}".encode()).decode().rstrip("=")


def assert_never_5xx(response: httpx.Response) -> None:
    assert response.status_code < 500, response.text
    if response.status_code >= 400:
        assert response.headers["content-type"].startswith("application/problem+json"), response.text
        assert isinstance(response.json()["code"], str)


async def post_refused_writes_nothing(api: Signed, db: asyncpg.Connection, path: str, body: Any) -> httpx.Response:
    """POST a body as JSON (lone surrogates travel escaped); a refusal must leave every row as it was."""
    before = await counts(db, api.operator_id)
    response = await api.post(path, raw=json.dumps(body).encode())
    assert_never_5xx(response)
    if response.status_code >= 400:
        assert await counts(db, api.operator_id) == before, response.text
    return response


def query(values: dict[str, str]) -> str:
    """A query string; a lone surrogate goes out as the invalid UTF-8 it would be."""
    return "&".join(f"{k}={quote(v, safe='', errors='surrogatepass')}" for k, v in values.items())


@pytest.fixture
async def table_id(api: Signed) -> str:
    return str((await api.table(mode="test"))["table_id"])


@given(fields=one_spoiled({"name": "main", "paytable": "standard/v1", "currency": "EUR"}))
@PROPERTY
async def test_any_table_text_is_a_4xx_or_a_table(api: Signed, db: asyncpg.Connection, fields: dict[str, str]) -> None:
    await post_refused_writes_nothing(api, db, "/v1/tables", {**TABLE, **fields})


@given(fields=one_spoiled({"player_id": "alice", "card_1": "TD", "card_2": "4S"}))
@PROPERTY
async def test_any_player_id_or_card_is_a_4xx_or_a_round(
    api: Signed, db: asyncpg.Connection, table_id: str, fields: dict[str, str]
) -> None:
    body = {
        "bets": [{"player_id": fields["player_id"], "ante": 5}],
        "forced_cards": [fields["card_1"], fields["card_2"]],
    }
    await post_refused_writes_nothing(api, db, f"/v1/tables/{table_id}/rounds", body)


@given(fields=one_spoiled({"bet_id": "{bet}", "action": "call", "reason": "misdeal"}))
@PROPERTY
async def test_any_bet_id_action_or_void_reason_is_a_4xx_or_done(
    api: Signed, db: asyncpg.Connection, table_id: str, fields: dict[str, str]
) -> None:
    rnd = await open_round(api, table_id, [("p1", 10)], ["4S", "TH"])  # a fresh open round: each effect can happen
    path = f"/v1/rounds/{rnd['round_id']}"
    if fields["reason"] != "misdeal":
        await post_refused_writes_nothing(api, db, f"{path}/void", {"reason": fields["reason"]})
        return
    decision = {"bet_id": fields["bet_id"].replace("{bet}", rnd["bets"][0]["bet_id"]), "action": fields["action"]}
    await post_refused_writes_nothing(api, db, f"{path}/decisions", decision)


HISTORY = {
    "player_id": spoiled("alice"),
    "from": TIMES | spoiled("2026-05-01T12:00:00Z"),
    "to": TIMES | spoiled("2026-05-01T12:00:00Z"),
    "cursor": TIMES.map(cursor_for) | spoiled(cursor_for("2026-05-01T12:00:00+00:00")),
    "status": spoiled("settled"),
    "table_id": spoiled(str(uuid.UUID(int=1))),
    "limit": spoiled("10"),
}


@given(name=st.sampled_from(sorted(HISTORY)).flatmap(lambda n: st.tuples(st.just(n), HISTORY[n])))
@PROPERTY
async def test_any_history_query_is_a_4xx_or_a_page(api: Signed, db: asyncpg.Connection, name: tuple[str, str]) -> None:
    before = await counts(db, api.operator_id)
    assert_never_5xx(await api.get(f"/v1/rounds?{query(dict([name]))}"))
    assert await counts(db, api.operator_id) == before


@given(fields=one_spoiled({"name": "standard", "version": "v1", "decks": "6"}))
@PROPERTY
async def test_any_paytable_path_or_deck_count_is_a_4xx_or_a_paytable(api: Signed, fields: dict[str, str]) -> None:
    name, version = (quote(fields[k], safe="", errors="surrogatepass") for k in ("name", "version"))
    assert_never_5xx(await api.client.get(f"/v1/paytables/{name}/{version}?{query({'decks': fields['decks']})}"))


HEADER_TEXT = st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF), max_size=140)  # what HTTP can carry


@given(key=HEADER_TEXT | st.just("key-1"), request_id=HEADER_TEXT | st.just("req-1"))
@PROPERTY
async def test_any_idempotency_key_or_request_id_is_a_4xx_or_a_table(
    api: Signed, db: asyncpg.Connection, key: str, request_id: str
) -> None:
    raw = json.dumps(TABLE).encode()
    headers = {**api.headers("POST", "/v1/tables", raw, key=key or "k"), "x-request-id": request_id}
    encoded = {k.encode(): v.encode("latin-1") for k, v in headers.items()}  # header bytes as sent, Latin-1 too
    before = await counts(db, api.operator_id)
    response = await api.client.post("/v1/tables", content=raw, headers=encoded)
    assert_never_5xx(response)
    if response.status_code >= 400:
        assert await counts(db, api.operator_id) == before


async def written(db: asyncpg.Connection, operator_id: str) -> tuple[Any, ...]:
    """Every row a request of this operator could write: its tables, rounds, keys, games and all their records."""
    games = await db.fetchval("SELECT count(*) FROM inbetween_games WHERE operator_id = $1", operator_id)
    game_records = await db.fetchval(
        "SELECT count(*) FROM audit_log a JOIN inbetween_games g ON g.game_id = a.table_id WHERE g.operator_id = $1",
        operator_id,
    )
    return (await counts(db, operator_id), games, game_records)


async def refused_writes_nothing(api: Signed, db: asyncpg.Connection, method: str, path: str, body: Any = None) -> None:
    before = await written(db, api.operator_id)
    if method == "GET":
        response = await api.get(path)
    else:
        response = await api.post(path, raw=b"" if body is None else json.dumps(body).encode())
    assert_never_5xx(response)
    if response.status_code >= 400:
        assert await written(db, api.operator_id) == before, response.text


@given(fields=one_spoiled({"close_by": "pit boss 7", "void_by": "ticket 42"}))
@PROPERTY
async def test_any_requested_by_is_a_4xx_or_done(
    api: Signed, db: asyncpg.Connection, table_id: str, fields: dict[str, str]
) -> None:
    rnd = await open_round(api, table_id, [("p1", 10)], ["4S", "TH"])
    path = f"/v1/rounds/{rnd['round_id']}"
    if fields["void_by"] != "ticket 42":
        await refused_writes_nothing(
            api, db, "POST", f"{path}/void", {"reason": "x", "requested_by": fields["void_by"]}
        )
    else:
        await refused_writes_nothing(api, db, "POST", f"{path}/close", {"requested_by": fields["close_by"]})


@pytest.fixture
async def settled_round(api: Signed, table_id: str) -> Any:
    return await open_round(api, table_id, [("alice", 10)], ["5S", "6H"])  # consecutive: settles at once


@given(fields=one_spoiled({"path_player": "alice", "link_player": "alice", "page_player": "alice", "sig": "0" * 64}))
@PROPERTY
async def test_any_recall_player_or_signature_is_a_4xx_or_done(
    api: Signed, db: asyncpg.Connection, settled_round: Any, fields: dict[str, str]
) -> None:
    round_id = settled_round["round_id"]
    player = quote(fields["path_player"], safe="", errors="surrogatepass")
    await refused_writes_nothing(api, db, "GET", f"/v1/players/{player}/rounds")
    await refused_writes_nothing(
        api, db, "POST", f"/v1/rounds/{round_id}/recall-link", {"player_id": fields["link_player"]}
    )
    page = query({"expires": "4102444800", "sig": fields["sig"], "player": fields["page_player"]})
    assert_never_5xx(await api.client.get(f"/recall/{round_id}?{page}"))


@given(fields=one_spoiled({"ruleset": "inbetween/nepal/v1", "player_a": "a", "player_b": "b", "card": "4S"}))
@PROPERTY
async def test_any_in_between_game_text_is_a_4xx_or_a_game(
    api: Signed, db: asyncpg.Connection, fields: dict[str, str]
) -> None:
    body = {
        "ruleset": fields["ruleset"],
        "ante": 5,
        "rounds": 5,
        "seats": [{"player_id": fields["player_a"]}, {"player_id": fields["player_b"]}],
        "mode": "test",
        "forced_cards": [fields["card"], "JH"],
    }
    await refused_writes_nothing(api, db, "POST", "/v1/inbetween/games", body)


@given(fields=one_spoiled({"action": "pass", "player_id": "b", "call": "high", "after": "0", "limit": "10"}))
@PROPERTY
async def test_any_in_between_action_or_records_query_is_a_4xx_or_done(
    api: Signed, db: asyncpg.Connection, fields: dict[str, str]
) -> None:
    game = {"ruleset": "inbetween/nepal/v1", "ante": 5, "rounds": 5, "mode": "test", "forced_cards": ["4S", "JH"]}
    started = await api.ok("POST", "/v1/inbetween/games", {**game, "seats": [{"player_id": "a"}, {"player_id": "b"}]})
    path = f"/v1/inbetween/games/{started['game_id']}"
    action = {"action": fields["action"], "player_id": fields["player_id"], "call": fields["call"]}
    await refused_writes_nothing(api, db, "POST", f"{path}/actions", action)
    await refused_writes_nothing(
        api, db, "GET", f"{path}/records?{query({'after': fields['after'], 'limit': fields['limit']})}"
    )


@given(
    fields=one_spoiled({"table_id": str(uuid.UUID(int=1)), "from": "1", "to": "2", "name": "nepal", "version": "v1"})
)
@PROPERTY
async def test_any_audit_query_or_ruleset_path_is_a_4xx_or_an_answer(
    api: Signed, db: asyncpg.Connection, fields: dict[str, str]
) -> None:
    table = {"table_id": fields["table_id"]}
    await refused_writes_nothing(api, db, "GET", f"/v1/audit/checkpoints/latest?{query(table)}")
    await refused_writes_nothing(
        api, db, "GET", f"/v1/audit/consistency?{query({**table, 'from': fields['from'], 'to': fields['to']})}"
    )
    name, version = (quote(fields[k], safe="", errors="surrogatepass") for k in ("name", "version"))
    assert_never_5xx(await api.client.get(f"/v1/inbetween/rulesets/inbetween/{name}/{version}"))
