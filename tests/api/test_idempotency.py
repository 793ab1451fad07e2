"""Idempotency keys: a retry gets the first reply byte for byte and changes nothing; a different request is refused."""

from __future__ import annotations

import json
from typing import Any

import asyncpg
import pytest
from httpx import Response
from litestar import Litestar
from litestar.testing import AsyncTestClient

from tests.api.helpers import counts, fill, fingerprint, open_round, problem
from tests.support.client import Signed

TABLE = {"name": "t", "paytable": "standard/v1", "currency": "EUR", "min_ante": 1, "max_ante": 1000, "mode": "test"}
SPREAD = {"bets": [{"player_id": "p1", "ante": 10}, {"player_id": "p2", "ante": 5}], "forced_cards": ["4S", "TH", "7D"]}


def _replayed(first: Response, again: Response) -> None:
    assert again.status_code == first.status_code
    assert again.content == first.content
    assert again.headers["idempotent-replayed"] == "true"
    assert "idempotent-replayed" not in first.headers


async def test_a_retried_table_opening_returns_the_same_bytes_and_opens_one_table(
    api: Signed, db: asyncpg.Connection
) -> None:
    first = await api.post("/v1/tables", TABLE, key="open-table-1")
    assert first.status_code == 201, first.text
    after_first = await fingerprint(db, api.operator_id)
    again = await api.post("/v1/tables", TABLE, key="open-table-1")
    _replayed(first, again)
    assert await fingerprint(db, api.operator_id) == after_first
    assert len((await api.ok("GET", "/v1/tables"))["items"]) == 1


async def test_a_retried_round_opening_returns_the_same_bytes_and_opens_one_round(
    api: Signed, db: asyncpg.Connection
) -> None:
    table = await api.table(mode="test")
    path = f"/v1/tables/{table['table_id']}/rounds"
    first = await api.post(path, SPREAD, key="deal-1")
    assert first.status_code == 201, first.text
    after_first = await fingerprint(db, api.operator_id)
    for _ in range(3):
        _replayed(first, await api.post(path, SPREAD, key="deal-1"))
    assert await fingerprint(db, api.operator_id) == after_first
    assert (await counts(db, api.operator_id))["rounds"] == 1


async def test_a_retry_after_the_round_moved_on_still_returns_the_first_reply(api: Signed) -> None:
    table = await api.table(mode="test")
    path = f"/v1/tables/{table['table_id']}/rounds"
    first = await api.post(path, SPREAD, key="deal-2")
    rnd = first.json()
    await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/close")
    again = await api.post(path, SPREAD, key="deal-2")
    _replayed(first, again)
    assert again.json()["status"] == "raise_window"  # the reply as first sent, not the round as it is now


@pytest.mark.parametrize("action", ["decision", "close", "void"])
async def test_a_retried_round_action_returns_the_same_bytes_and_acts_once(
    api: Signed, db: asyncpg.Connection, action: str
) -> None:
    table = await api.table(mode="test")
    rnd = await open_round(api, table["table_id"], [("p1", 10), ("p2", 5)], ["4S", "TH", "7D"])
    requests: dict[str, tuple[str, Any]] = {
        "decision": ("decisions", {"bet_id": rnd["bets"][0]["bet_id"], "action": "raise"}),
        "close": ("close", None),
        "void": ("void", {"reason": "jam"}),
    }
    suffix, body = requests[action]
    path = f"/v1/rounds/{rnd['round_id']}/{suffix}"
    first = await api.post(path, body, key=f"{action}-1")
    assert first.status_code == 200, first.text
    after_first = await fingerprint(db, api.operator_id)
    _replayed(first, await api.post(path, body, key=f"{action}-1"))
    assert await fingerprint(db, api.operator_id) == after_first


async def test_a_retried_last_decision_settles_and_pays_once(api: Signed, db: asyncpg.Connection) -> None:
    table = await api.table(mode="test")
    rnd = await open_round(api, table["table_id"], [("p1", 10)], ["4S", "TH", "7D"])
    path = f"/v1/rounds/{rnd['round_id']}/decisions"
    body = {"bet_id": rnd["bets"][0]["bet_id"], "action": "call"}
    first = await api.post(path, body, key="last")
    assert first.json()["status"] == "settled"
    audit_rows = (await counts(db, api.operator_id))["audit_log"]
    _replayed(first, await api.post(path, body, key="last"))
    assert (await counts(db, api.operator_id))["audit_log"] == audit_rows
    settled = await db.fetchval(
        "SELECT count(*) FROM audit_log WHERE round_id = $1 AND kind = 'bet_settled'", rnd["round_id"]
    )
    assert settled == 1


async def test_a_table_close_retried_is_replayed_not_refused_as_already_closed(api: Signed) -> None:
    table = await api.table()
    path = f"/v1/tables/{table['table_id']}/close"
    first = await api.post(path, key="close-table")
    assert first.status_code == 200, first.text
    _replayed(first, await api.post(path, key="close-table"))
    problem(await api.post(path), 409, "TABLE_CLOSED")  # a new key is a new request


async def test_the_same_key_with_a_different_body_is_a_conflict_and_changes_nothing(
    api: Signed, db: asyncpg.Connection
) -> None:
    first = await api.post("/v1/tables", TABLE, key="k")
    assert first.status_code == 201
    before = await fingerprint(db, api.operator_id)
    problem(await api.post("/v1/tables", {**TABLE, "name": "other"}, key="k"), 409, "IDEMPOTENCY_CONFLICT")
    assert await fingerprint(db, api.operator_id) == before
    _replayed(first, await api.post("/v1/tables", TABLE, key="k"))  # the original still replays


async def test_the_same_key_on_a_different_path_is_a_conflict(api: Signed, db: asyncpg.Connection) -> None:
    table = await api.table(mode="test")
    one = await open_round(api, table["table_id"], [("p1", 10)], ["4S", "TH"])
    two = await open_round(api, table["table_id"], [("p1", 10)], ["4S", "TH"])
    assert (await api.post(f"/v1/rounds/{one['round_id']}/close", key="shared")).status_code == 200
    before = await fingerprint(db, api.operator_id)
    problem(await api.post(f"/v1/rounds/{two['round_id']}/close", key="shared"), 409, "IDEMPOTENCY_CONFLICT")
    assert await fingerprint(db, api.operator_id) == before
    assert (await api.ok("GET", f"/v1/rounds/{two['round_id']}"))["status"] == "raise_window"


async def test_keys_are_scoped_to_the_operator(api: Signed, other_api: Signed) -> None:
    mine = await api.post("/v1/tables", TABLE, key="shared-key")
    theirs = await other_api.post("/v1/tables", TABLE, key="shared-key")
    assert (mine.status_code, theirs.status_code) == (201, 201)
    assert "idempotent-replayed" not in theirs.headers
    assert mine.json()["table_id"] != theirs.json()["table_id"]
    assert theirs.json()["table_id"] in {t["table_id"] for t in (await other_api.ok("GET", "/v1/tables"))["items"]}
    # and a different body under the same key is no conflict across operators
    other = await other_api.post("/v1/tables", {**TABLE, "name": "x"}, key="mine-only")
    assert other.status_code == 201
    assert (await api.post("/v1/tables", TABLE, key="mine-only")).status_code == 201


async def test_a_refused_request_repeated_with_its_key_is_refused_the_same_way(
    api: Signed, db: asyncpg.Connection
) -> None:
    table = await api.table(mode="test", max_ante=100)
    path = f"/v1/tables/{table['table_id']}/rounds"
    body = {"bets": [{"player_id": "p1", "ante": 500}]}
    before = await fingerprint(db, api.operator_id)
    first = await api.post(path, body, key="retry-me")
    again = await api.post(path, body, key="retry-me")
    problem(first, 422, "BET_LIMIT")
    assert (again.status_code, again.content) == (first.status_code, first.content)
    assert await fingerprint(db, api.operator_id) == before


POSTS = {
    "open a table": ("/v1/tables", TABLE),
    "open a round": ("/v1/tables/{test}/rounds", {"bets": [{"player_id": "p1", "ante": 10}]}),
    "decide": ("/v1/rounds/{round}/decisions", {"bet_id": "{bet}", "action": "call"}),
    "close a round": ("/v1/rounds/{round}/close", None),
    "void a round": ("/v1/rounds/{round}/void", {"reason": "x"}),
    "close a table": ("/v1/tables/{live}/close", None),
}
BAD_KEYS: dict[str, bytes | None] = {
    "missing": None,
    "empty": b"",
    "129 characters": b"k" * 129,
    "a tab inside": b"key\twith-tab",
    "not ascii": "clé".encode(),
}


@pytest.mark.parametrize("key", list(BAD_KEYS))
@pytest.mark.parametrize("route", list(POSTS))
async def test_a_post_without_a_usable_idempotency_key_is_refused_and_writes_nothing(
    api: Signed, http: AsyncTestClient[Litestar], db: asyncpg.Connection, targets: dict[str, str], route: str, key: str
) -> None:
    template, body = POSTS[route]
    path = fill(template, targets)
    data = b"" if body is None else fill(json.dumps(body), targets).encode()
    bad = BAD_KEYS[key]
    sent = "" if bad is None else bad.decode("latin-1")  # the client signs the key it sends, as the server reads it
    headers = {name.encode(): value.encode() for name, value in api.headers("POST", path, data, key=sent).items()}
    if bad is not None:
        headers[b"idempotency-key"] = bad
    before = await fingerprint(db, api.operator_id)
    problem(await http.post(path, content=data, headers=headers), 400, "IDEMPOTENCY_KEY_REQUIRED")
    assert await fingerprint(db, api.operator_id) == before


async def test_an_idempotency_key_of_128_printable_characters_is_accepted(api: Signed) -> None:
    key = "".join(chr(33 + i % 94) for i in range(128))  # every printable ASCII character but the space
    assert (await api.post("/v1/tables", TABLE, key=key)).status_code == 201
