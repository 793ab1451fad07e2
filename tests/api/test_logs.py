"""Logs: one JSON line per request on stdout, with ids and timing; never a salt or a card not yet dealt."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from httpx import Response
from litestar.testing import AsyncTestClient

from service.app import create_app
from tests.api.helpers import decide
from tests.conftest import make_settings
from tests.support.client import Signed


@contextlib.asynccontextmanager
async def verbose(database_url: str, capsys: pytest.CaptureFixture[str]) -> AsyncIterator[Signed]:
    """An app logging at DEBUG. Built inside the test body: the logger writes to the stdout of the moment it is
    configured, and only in the test body is that capsys's."""
    settings = make_settings(database_url, log_level="DEBUG")
    operator = next(op for op in settings.operators if op != "other")
    async with AsyncTestClient(app=create_app(settings, sweep=False)) as http:
        capsys.readouterr()
        yield Signed(http, operator, settings.operators[operator])


def _lines(capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    out = capsys.readouterr().out
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def _requests(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [line for line in lines if line.get("event") == "request"]


async def test_each_request_logs_one_json_line_with_its_ids_and_timing(
    database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async with verbose(database_url, capsys) as api:
        await _play_and_check_request_lines(api, capsys)


async def _play_and_check_request_lines(api: Signed, capsys: pytest.CaptureFixture[str]) -> None:
    table = (await api.post("/v1/tables", {"name": "t", "paytable": "standard/v1", "currency": "EUR",
                                           "min_ante": 1, "max_ante": 100, "mode": "test"})).json()  # fmt: skip
    opened = await api.post(
        f"/v1/tables/{table['table_id']}/rounds",
        {"bets": [{"player_id": "p1", "ante": 10}], "forced_cards": ["4S", "TH", "7D"]},
    )
    rnd = opened.json()
    responses: list[Response] = [
        await api.get(f"/v1/rounds/{rnd['round_id']}"),
        await decide(api, rnd["round_id"], rnd["bets"][0]["bet_id"], "call"),
        await api.get("/v1/tables"),
    ]
    lines = _requests(_lines(capsys))
    assert len(lines) == 5
    expected = [
        ("POST", "/v1/tables", 201, None),
        ("POST", f"/v1/tables/{table['table_id']}/rounds", 201, rnd["round_id"]),
        ("GET", f"/v1/rounds/{rnd['round_id']}", 200, rnd["round_id"]),
        ("POST", f"/v1/rounds/{rnd['round_id']}/decisions", 200, rnd["round_id"]),
        ("GET", "/v1/tables", 200, None),
    ]
    for line, (method, path, status, round_id) in zip(lines, expected, strict=True):
        assert (line["method"], line["path"], line["status"]) == (method, path, status)
        assert line["operator"] == api.operator_id
        assert isinstance(line["duration_ms"], int | float)
        assert line["duration_ms"] >= 0
        assert line["request_id"]
        assert line.get("round_id") == round_id, line
    assert len({line["request_id"] for line in lines}) == len(lines)
    assert [r.headers["x-request-id"] for r in responses] == [line["request_id"] for line in lines[2:]]


async def test_a_refused_request_is_logged_with_its_status(
    database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async with verbose(database_url, capsys) as api:
        await api.client.get("/v1/tables")  # unsigned
        await api.get("/v1/rounds/00000000-0000-0000-0000-000000000000")
    unsigned, missing = _requests(_lines(capsys))
    assert (unsigned["status"], unsigned["path"]) == (401, "/v1/tables")
    assert "operator" not in unsigned
    assert (missing["status"], missing["operator"]) == (404, api.operator_id)


async def test_no_log_line_shows_the_salt_or_a_card_before_it_is_dealt(
    database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async with verbose(database_url, capsys) as api:
        await _play_and_check_secrets(api, capsys)


async def _play_and_check_secrets(api: Signed, capsys: pytest.CaptureFixture[str]) -> None:
    table = await api.table(mode="test")
    # 3 and Q: spread 8; the 7 of diamonds will come third.
    rnd = await api.ok(
        "POST",
        f"/v1/tables/{table['table_id']}/rounds",
        {
            "bets": [{"player_id": "p1", "ante": 10}, {"player_id": "p2", "ante": 10}],
            "forced_cards": ["3S", "QH", "7D"],
        },
    )
    await api.get(f"/v1/rounds/{rnd['round_id']}")
    await api.get(f"/v1/rounds?table_id={table['table_id']}")
    await decide(api, rnd["round_id"], rnd["bets"][0]["bet_id"], "raise")
    before_settling = capsys.readouterr().out
    assert before_settling.count('"event":"request"') == 5
    done = await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/close")
    after = capsys.readouterr().out
    assert [c["card"] for c in done["cards"]] == ["3S", "QH", "7D"]
    salt, order = done["shoe"]["reveal"]["salt"], done["shoe"]["reveal"]["order"]
    assert "7D" not in before_settling
    for text in (before_settling, after):
        assert salt not in text
        assert order[6:40] not in text  # nor any stretch of the undealt shoe
    settled = [json.loads(line) for line in after.splitlines() if '"round_settled"' in line]
    assert len(settled) == 1
    assert settled[0]["round_id"] == rnd["round_id"]


def scope_of(method: str, path: str, headers: dict[str, str]) -> dict[str, Any]:
    """An HTTP scope as uvicorn makes one, for calling the app as a server would."""
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(k.encode(), v.encode()) for k, v in headers.items()],
        "client": ("203.0.113.7", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }


async def test_a_client_gone_mid_body_is_logged_at_info_with_status_499_and_never_as_an_error(
    database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async with verbose(database_url, capsys) as api:
        headers = {**api.headers("POST", "/v1/tables", b"{}", key="k-1"), "content-length": "100"}
        messages: list[dict[str, Any]] = [
            {"type": "http.request", "body": b'{"na', "more_body": True},
            {"type": "http.disconnect"},
        ]
        arrived = iter(messages)
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            return next(arrived)

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await api.client.app(scope_of("POST", "/v1/tables", headers), receive, send)  # type: ignore[attr-defined]
        lines = _lines(capsys)
    assert [line["level"] for line in lines if line["level"] in ("error", "critical")] == []
    gone = [line for line in lines if line["event"] == "client_disconnected"]
    assert [(line["level"], line["method"], line["path"]) for line in gone] == [("info", "POST", "/v1/tables")]
    assert [line["status"] for line in _requests(lines)] == [499]


async def test_a_refused_signature_or_role_is_logged_at_warning_and_the_caller_s_own_mistake_at_info(
    database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async with verbose(database_url, capsys) as api:
        lab = Signed(api.client, "lab", "lab-secret")  # an auditor of make_settings: read-only
        await api.client.get("/v1/tables")  # unsigned: 401
        await lab.post("/v1/tables", {"name": "t"})  # an auditor writing: 403
        await api.get("/v1/rounds/00000000-0000-0000-0000-000000000000")  # 404
    lines = _requests(_lines(capsys))
    assert [(line["status"], line["level"]) for line in lines] == [(401, "warning"), (403, "warning"), (404, "info")]


async def test_a_same_key_retry_is_logged_as_a_replay_on_a_framework_route_and_on_a_lean_one(
    database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    async with verbose(database_url, capsys) as api:
        body = {"name": "t", "paytable": "standard/v1", "currency": "EUR", "min_ante": 1, "max_ante": 100}
        tables = [await api.post("/v1/tables", body, key="table-key") for _ in range(2)]
        opened = f"/v1/tables/{tables[0].json()['table_id']}/rounds"  # answered by lean_routes, not its handler
        bets = {"bets": [{"player_id": "p1", "ante": 10}]}
        rounds = [await api.post(opened, bets, key="round-key") for _ in range(2)]
    replies = [*tables, *rounds]
    assert [r.headers.get("idempotent-replayed") for r in replies] == [None, "true", None, "true"]
    lines = _requests(_lines(capsys))
    assert [(line["status"], line.get("replay")) for line in lines] == [
        (201, None),
        (201, True),
        (201, None),
        (201, True),
    ]
    assert [line["level"] for line in lines] == ["info"] * 4
