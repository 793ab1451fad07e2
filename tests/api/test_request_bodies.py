"""Request bodies: refused before they are read when the headers already condemn them, read only up to a limit,
and taken as JSON only when declared JSON and unambiguous."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest

from service.settings import Settings
from tests.api.helpers import counts, fill, fingerprint, problem
from tests.conftest import make_settings
from tests.support.client import Signed
from tests.support.live import live

TABLE = {"name": "t", "paytable": "standard/v1", "currency": "EUR", "min_ante": 1, "max_ante": 1000}
CHUNK = 64 * 1024
NINE_MB = 9 * 1024 * 1024


class CountingBody:
    """A request body that counts how much of it the server pulled."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.pulled = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        sent = 0
        while sent < self.size:
            chunk = b" " * min(CHUNK, self.size - sent)
            sent += len(chunk)
            self.pulled = sent
            yield chunk


def signed_headers(api: Signed, body: bytes, *, timestamp: int | None = None, key: str = "k-1") -> dict[str, str]:
    return api.headers("POST", "/v1/tables", body, timestamp=timestamp, key=key)


async def send(api: Signed, body: CountingBody, headers: dict[str, str], *, declare_length: bool = True) -> Any:
    """POST a streamed body; with `declare_length` a Content-Length header, else chunked transfer encoding."""
    if declare_length:
        headers = {**headers, "content-length": str(body.size)}
    return await api.client.post("/v1/tables", content=body, headers=headers)


def nine_mb_headers(api: Signed, case: str) -> dict[str, str]:
    now = int(time.time())
    base = {"content-type": "application/json", "idempotency-key": "k-1"}
    by_case = {
        "no headers": {},
        "unknown operator": {"x-operator-id": "nobody", "x-timestamp": str(now), "x-signature": "0" * 64},
        "stale timestamp": {"x-operator-id": api.operator_id, "x-timestamp": str(now - 301), "x-signature": "0" * 64},
        "no signature": {"x-operator-id": api.operator_id, "x-timestamp": str(now)},
        "a signature that is not one": {"x-operator-id": api.operator_id, "x-timestamp": str(now), "x-signature": "x"},
    }
    return {**base, **by_case[case]}


@pytest.mark.parametrize(
    "case", ["no headers", "unknown operator", "stale timestamp", "no signature", "a signature that is not one"]
)
async def test_a_request_its_headers_condemn_is_refused_before_a_byte_of_its_body_is_read(
    settings: Settings, case: str
) -> None:
    # Served in the test's loop: httpx's ASGI transport pulls a streamed body only as the app reads it.
    async with live(settings) as server:
        for declare_length in (True, False):
            body = CountingBody(NINE_MB)
            response = await send(server.api, body, nine_mb_headers(server.api, case), declare_length=declare_length)
            problem(response, 401, "UNAUTHENTICATED")
            assert body.pulled == 0


async def test_a_declared_length_over_the_limit_is_a_413_before_the_body_is_read(
    settings: Settings, db: asyncpg.Connection
) -> None:
    async with live(settings) as server:
        before = await counts(db, server.api.operator_id)
        body = CountingBody(NINE_MB)
        # Signed as if for an empty body: refused on the declared length, before the HMAC could be checked.
        response = await send(server.api, body, signed_headers(server.api, b""))
        assert "65536" in problem(response, 413, "BODY_TOO_LARGE")["detail"]
        assert body.pulled == 0
        assert await counts(db, server.api.operator_id) == before


async def test_a_chunked_body_is_read_only_until_it_grows_past_the_limit(
    settings: Settings, db: asyncpg.Connection
) -> None:
    async with live(settings) as server:
        before = await counts(db, server.api.operator_id)
        body = CountingBody(NINE_MB)
        response = await send(server.api, body, signed_headers(server.api, b""), declare_length=False)
        problem(response, 413, "BODY_TOO_LARGE")
        assert 64 * 1024 < body.pulled <= 64 * 1024 + CHUNK  # the chunk that crossed the limit, and no more
        assert await counts(db, server.api.operator_id) == before


def padded(size: int) -> bytes:
    """A valid table body of exactly `size` bytes (JSON whitespace pads it)."""
    raw = json.dumps(TABLE).encode()
    return raw[:-1] + b" " * (size - len(raw)) + b"}"


async def test_a_body_of_exactly_the_limit_is_taken_and_one_byte_more_is_not(api: Signed) -> None:
    limit = 64 * 1024
    assert (await api.post("/v1/tables", raw=padded(limit))).status_code == 201
    problem(await api.post("/v1/tables", raw=padded(limit + 1)), 413, "BODY_TOO_LARGE")


async def test_the_limit_follows_rd_max_body_bytes(database_url: str) -> None:
    settings = make_settings(database_url, max_body_bytes=2048)
    async with live(settings) as instance:
        assert (await instance.api.post("/v1/tables", raw=padded(2048))).status_code == 201
        problem(await instance.api.post("/v1/tables", raw=padded(2049)), 413, "BODY_TOO_LARGE")


def raw_post(api: Signed, path: str, body: bytes, content_type: str | None) -> Any:
    headers = api.headers("POST", path, body, key=uuid.uuid4().hex)
    del headers["content-type"]
    if content_type is not None:
        headers["content-type"] = content_type
    return api.client.post(path, content=body, headers=headers)


@pytest.mark.parametrize(
    "content_type",
    [
        None,
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/jsonp",
        "application/json-patch+json",
        "application/json; charset=latin-1",
    ],
)
async def test_a_json_body_not_declared_as_json_is_a_415_and_writes_nothing(
    api: Signed, db: asyncpg.Connection, content_type: str | None
) -> None:
    before = await fingerprint(db, api.operator_id)
    response = await raw_post(api, "/v1/tables", json.dumps(TABLE).encode(), content_type)
    problem(response, 415, "UNSUPPORTED_MEDIA_TYPE")
    assert await fingerprint(db, api.operator_id) == before


@pytest.mark.parametrize(
    "content_type",
    ["application/json", "Application/JSON", "application/json; charset=utf-8", "application/json;charset=UTF8"],
)
async def test_json_is_recognised_in_any_case_with_a_utf8_charset(api: Signed, content_type: str) -> None:
    response = await raw_post(api, "/v1/tables", json.dumps(TABLE).encode(), content_type)
    assert response.status_code == 201, response.text


def table_with(*pairs: str) -> bytes:
    return ("{" + ",".join([*pairs, '"name":"t","paytable":"standard/v1","min_ante":1,"max_ante":10']) + "}").encode()


DUPLICATES = {
    "a table's mode twice": ("/v1/tables", table_with('"currency":"EUR"', '"mode":"live"', '"mode":"test"')),
    "the same value twice": ("/v1/tables", table_with('"currency":"EUR"', '"currency":"EUR"')),
    "a key spelled with an escape": (
        "/v1/tables",
        table_with('"currency":"EUR"', '"mode":"live"', '"mo\\u0064e":"test"'),
    ),
    "a bet's ante twice": ("/v1/tables/{test}/rounds", b'{"bets":[{"player_id":"a","ante":1,"ante":900}]}'),
    "a decision's action twice": (
        "/v1/rounds/{round}/decisions",
        b'{"bet_id":"{bet}","action":"call","action":"raise"}',
    ),
    "a void reason twice": ("/v1/rounds/{round}/void", b'{"reason":"a","reason":"b"}'),
}


@pytest.mark.parametrize("case", list(DUPLICATES))
async def test_a_body_that_gives_a_key_twice_is_a_400_and_writes_nothing(
    api: Signed, db: asyncpg.Connection, targets: dict[str, str], case: str
) -> None:
    template, body = DUPLICATES[case]
    before = await fingerprint(db, api.operator_id)
    response = await api.post(fill(template, targets), raw=fill(body.decode(), targets).encode())
    problem(response, 400, "DUPLICATE_JSON_KEY")
    assert await fingerprint(db, api.operator_id) == before


async def test_the_same_key_in_different_objects_is_fine(api: Signed, targets: dict[str, str]) -> None:
    body = b'{"bets":[{"player_id":"a","ante":5},{"player_id":"b","ante":5}],"forced_cards":["4S","TH"]}'
    response = await api.post(f"/v1/tables/{targets['test']}/rounds", raw=body)
    assert response.status_code == 201, response.text


async def test_a_signature_over_the_body_is_still_checked_once_the_headers_pass(api: Signed) -> None:
    body = json.dumps(TABLE).encode()
    headers = signed_headers(api, body + b" ")  # signed for other bytes than are sent
    response = await api.client.post("/v1/tables", content=body, headers=headers)
    problem(response, 401, "UNAUTHENTICATED")
