"""Signed requests: every failure is the same bare 401, and another operator's ids look exactly like unknown ones."""

from __future__ import annotations

import json
import time
import uuid

import asyncpg
import pytest
from httpx import Response
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.api.auth import sign
from service.settings import Settings
from tests.api.helpers import fingerprint, open_round, problem
from tests.support.client import Signed
from tests.support.clock import ManualClock
from tests.support.live import live

TABLE = {"name": "t", "paytable": "standard/v1", "currency": "EUR", "min_ante": 1, "max_ante": 1000}


async def _send(
    http: AsyncTestClient[Litestar],
    method: str,
    path: str,
    body: bytes,
    headers: dict[str, str],
) -> Response:
    all_headers = {"content-type": "application/json", "idempotency-key": uuid.uuid4().hex, **headers}
    if method == "GET":
        return await http.get(path, headers=all_headers)
    return await http.post(path, content=body, headers=all_headers)


def _headers(operator: str, secret: str, method: str, path: str, body: bytes, *, skew: int = 0) -> dict[str, str]:
    ts = str(int(time.time()) + skew)
    return {"x-operator-id": operator, "x-timestamp": ts, "x-signature": sign(secret, ts, method, path, body)}


@pytest.fixture
async def unauthenticated(api: Signed, http: AsyncTestClient[Litestar]) -> dict[str, Response]:
    """One response for every way a signature can be wrong."""
    op, secret = api.operator_id, api.secret
    a = (await api.table())["table_id"]
    b = (await api.table())["table_id"]
    body = json.dumps(TABLE).encode()
    good_get = _headers(op, secret, "GET", "/v1/tables", b"")
    cases: dict[str, tuple[str, str, bytes, dict[str, str]]] = {
        "no headers": ("GET", "/v1/tables", b"", {}),
        "no operator": ("GET", "/v1/tables", b"", {k: v for k, v in good_get.items() if k != "x-operator-id"}),
        "no timestamp": ("GET", "/v1/tables", b"", {k: v for k, v in good_get.items() if k != "x-timestamp"}),
        "no signature": ("GET", "/v1/tables", b"", {k: v for k, v in good_get.items() if k != "x-signature"}),
        "unknown operator": ("GET", "/v1/tables", b"", _headers("nobody", secret, "GET", "/v1/tables", b"")),
        "wrong secret": ("GET", "/v1/tables", b"", _headers(op, secret + "x", "GET", "/v1/tables", b"")),
        "the other operator's secret": (
            "GET",
            "/v1/tables",
            b"",
            _headers(op, "other-secret", "GET", "/v1/tables", b""),
        ),
        "stale by 310 s": ("GET", "/v1/tables", b"", _headers(op, secret, "GET", "/v1/tables", b"", skew=-310)),
        "310 s in the future": ("GET", "/v1/tables", b"", _headers(op, secret, "GET", "/v1/tables", b"", skew=310)),
        "a day old": ("GET", "/v1/tables", b"", _headers(op, secret, "GET", "/v1/tables", b"", skew=-86400)),
        "timestamp not a number": ("GET", "/v1/tables", b"", {**good_get, "x-timestamp": "soon"}),
        "signature not hex": ("GET", "/v1/tables", b"", {**good_get, "x-signature": "z" * 64}),
        "signature truncated": ("GET", "/v1/tables", b"", {**good_get, "x-signature": good_get["x-signature"][:63]}),
        "tampered body": (
            "POST",
            "/v1/tables",
            body.replace(b'"max_ante": 1000', b'"max_ante": 9999'),
            _headers(op, secret, "POST", "/v1/tables", body),
        ),
        "body signed empty": ("POST", "/v1/tables", body, _headers(op, secret, "POST", "/v1/tables", b"")),
        "tampered path": (
            "GET",
            f"/v1/tables/{b}",
            b"",
            _headers(op, secret, "GET", f"/v1/tables/{a}", b""),
        ),
        "tampered query": (
            "GET",
            "/v1/rounds?limit=6",
            b"",
            _headers(op, secret, "GET", "/v1/rounds?limit=5", b""),
        ),
        "query dropped from the signature": (
            "GET",
            "/v1/rounds?limit=6",
            b"",
            _headers(op, secret, "GET", "/v1/rounds", b""),
        ),
        "tampered method": (
            "POST",
            f"/v1/tables/{a}/close",
            b"",
            _headers(op, secret, "GET", f"/v1/tables/{a}/close", b""),
        ),
    }
    return {name: await _send(http, *case) for name, case in cases.items()}


async def test_every_signature_failure_is_the_same_bare_401(unauthenticated: dict[str, Response]) -> None:
    bodies = set()
    for name, response in unauthenticated.items():
        assert response.status_code == 401, f"{name}: {response.status_code} {response.text}"
        problem(response, 401, "UNAUTHENTICATED")
        bodies.add(response.content)
    assert len(bodies) == 1, "the 401s differ, so they tell a prober which part was wrong"
    body = json.loads(bodies.pop())
    assert set(body) <= {"type", "title", "status", "detail", "code", "retryable"}
    assert body["retryable"] is False


async def test_refused_signatures_write_nothing_and_close_nothing(
    api: Signed, db: asyncpg.Connection, http: AsyncTestClient[Litestar]
) -> None:
    table = await api.table()
    before = await fingerprint(db, api.operator_id)
    body = json.dumps(TABLE).encode()
    close = f"/v1/tables/{table['table_id']}/close"
    assert (
        await _send(http, "POST", "/v1/tables", body, _headers(api.operator_id, "x", "POST", "/v1/tables", body))
    ).status_code == 401
    stale = _headers(api.operator_id, api.secret, "POST", close, b"", skew=-400)
    assert (await _send(http, "POST", close, b"", stale)).status_code == 401
    assert await fingerprint(db, api.operator_id) == before
    assert (await api.ok("GET", f"/v1/tables/{table['table_id']}"))["status"] == "open"


async def test_a_bad_signature_is_401_even_without_an_idempotency_key(http: AsyncTestClient[Litestar]) -> None:
    response = await http.post("/v1/tables", content=json.dumps(TABLE).encode())
    problem(response, 401, "UNAUTHENTICATED")


@pytest.mark.parametrize("skew", [-290, 0, 290])
async def test_a_timestamp_within_five_minutes_is_accepted(
    api: Signed, http: AsyncTestClient[Litestar], skew: int
) -> None:
    headers = _headers(api.operator_id, api.secret, "GET", "/v1/tables?x=1", b"", skew=skew)
    response = await _send(http, "GET", "/v1/tables?x=1", b"", headers)
    assert response.status_code == 200, response.text


async def test_a_signed_query_is_accepted_exactly_as_signed(api: Signed) -> None:
    table = await api.table(mode="test")
    await open_round(api, table["table_id"], [("p1", 10)], ["4S", "TH"])
    page = await api.ok("GET", f"/v1/rounds?table_id={table['table_id']}&limit=1&status=raise_window")
    assert len(page["items"]) == 1


async def test_the_paytables_need_no_signature_but_the_tables_do(http: AsyncTestClient[Litestar]) -> None:
    assert (await http.get("/v1/paytables")).status_code == 200
    assert (await http.get("/v1/paytables/standard/v1?decks=1")).status_code == 200
    problem(await http.get("/v1/tables"), 401, "UNAUTHENTICATED")
    problem(await http.get("/v1/rounds"), 401, "UNAUTHENTICATED")


async def test_another_operators_table_and_round_look_exactly_like_ids_that_do_not_exist(
    api: Signed, other_api: Signed, db: asyncpg.Connection
) -> None:
    table = await api.table(mode="test")
    rnd = await open_round(api, table["table_id"], [("p1", 10)], ["4S", "TH", "7D"])
    mine_t, mine_r, bet = table["table_id"], rnd["round_id"], rnd["bets"][0]["bet_id"]
    fake_t, fake_r = str(uuid.uuid4()), str(uuid.uuid4())
    before = await fingerprint(db, api.operator_id)
    pairs = [
        (await other_api.get(f"/v1/tables/{mine_t}"), await other_api.get(f"/v1/tables/{fake_t}")),
        (await other_api.get(f"/v1/rounds/{mine_r}"), await other_api.get(f"/v1/rounds/{fake_r}")),
        (
            await other_api.post(f"/v1/tables/{mine_t}/rounds", {"bets": [{"player_id": "x", "ante": 10}]}),
            await other_api.post(f"/v1/tables/{fake_t}/rounds", {"bets": [{"player_id": "x", "ante": 10}]}),
        ),
        (
            await other_api.post(f"/v1/rounds/{mine_r}/decisions", {"bet_id": bet, "action": "raise"}),
            await other_api.post(f"/v1/rounds/{fake_r}/decisions", {"bet_id": bet, "action": "raise"}),
        ),
        (await other_api.post(f"/v1/rounds/{mine_r}/close"), await other_api.post(f"/v1/rounds/{fake_r}/close")),
        (
            await other_api.post(f"/v1/rounds/{mine_r}/void", {"reason": "x"}),
            await other_api.post(f"/v1/rounds/{fake_r}/void", {"reason": "x"}),
        ),
        (await other_api.post(f"/v1/tables/{mine_t}/close"), await other_api.post(f"/v1/tables/{fake_t}/close")),
    ]
    for theirs, unknown in pairs:
        problem(theirs, 404, "NOT_FOUND")
        assert theirs.content == unknown.content
        assert theirs.headers["content-type"] == unknown.headers["content-type"]
    assert await fingerprint(db, api.operator_id) == before
    assert (await api.ok("GET", f"/v1/rounds/{mine_r}"))["status"] == "raise_window"
    assert (await api.ok("GET", f"/v1/tables/{mine_t}"))["status"] == "open"


async def test_a_captured_post_replayed_with_a_new_idempotency_key_is_refused_and_opens_nothing(
    api: Signed, http: AsyncTestClient[Litestar], db: asyncpg.Connection
) -> None:
    table = await api.table(mode="test")
    path = f"/v1/tables/{table['table_id']}/rounds"
    body = json.dumps({"bets": [{"player_id": "p1", "ante": 10}]}).encode()
    captured = api.headers("POST", path, body, key="first-key")
    assert (await http.post(path, content=body, headers=captured)).status_code == 201
    before = await fingerprint(db, api.operator_id)
    # The attacker keeps every signed header and changes only the key, hoping for a second ante.
    replayed = await http.post(path, content=body, headers={**captured, "idempotency-key": "attacker-key"})
    problem(replayed, 401, "UNAUTHENTICATED")
    # Resent exactly as captured, it can only return the original reply.
    again = await http.post(path, content=body, headers=captured)
    assert (again.status_code, again.headers["idempotent-replayed"]) == (201, "true")
    assert await fingerprint(db, api.operator_id) == before


@pytest.mark.parametrize("header", ["x-operator-id", "x-timestamp", "x-signature", "idempotency-key"])
async def test_a_security_header_sent_twice_is_refused(
    settings: Settings, clock: ManualClock, db: asyncpg.Connection, header: str
) -> None:
    # httpx's ASGI transport hands the app every header as sent (Litestar's test client would merge the two).
    async with live(settings, clock=clock) as server:
        api = server.api
        body = json.dumps(TABLE).encode()
        signed = api.headers("POST", "/v1/tables", body, key="k-1")
        raw = [(name.encode(), value.encode()) for name, value in signed.items()]
        raw.append((header.encode(), signed[header].encode()))  # the same value again: still ambiguous
        before = await fingerprint(db, api.operator_id)
        problem(await api.client.post("/v1/tables", content=body, headers=raw), 400, "DUPLICATE_HEADER")
        assert await fingerprint(db, api.operator_id) == before
        # Joined into one comma-separated value (as some proxies do), it no longer authenticates.
        joined = {**signed, header: f"{signed[header]}, {signed[header]}"}
        problem(await api.client.post("/v1/tables", content=body, headers=joined), 401, "UNAUTHENTICATED")


async def test_auditor_credentials_change_nothing_and_read_no_operator_route(
    api: Signed, auditor_api: Signed, db: asyncpg.Connection
) -> None:
    table = await api.table(mode="test")
    before = await fingerprint(db, api.operator_id)
    problem(await auditor_api.post("/v1/tables", TABLE), 403, "AUDITOR_READ_ONLY")
    problem(await auditor_api.post(f"/v1/tables/{table['table_id']}/close"), 403, "AUDITOR_READ_ONLY")
    problem(await auditor_api.get("/v1/tables"), 403, "AUDITOR_READ_ONLY")
    problem(await auditor_api.get(f"/v1/tables/{table['table_id']}"), 403, "AUDITOR_READ_ONLY")
    assert await fingerprint(db, api.operator_id) == before
