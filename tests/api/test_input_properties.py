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
