"""`reddog serve` in production, two workers, through a database outage: every line of its stdout and of its stderr
is one JSON object (the banner, asyncpg's pool warnings with their tracebacks, the sweeper's), a request's line is
logged at the level its status calls for, marks an idempotent replay and names the client, taken from
X-Forwarded-For only when the peer is a trusted proxy."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx

from tests.conftest import AUDIT_KEY
from tests.support.client import Signed
from tests.support.private_cluster import private_cluster
from tests.support.scratch import TEST_LOGIN_PASSWORD
from tests.support.served import AUDITOR, OPERATOR, Served, served

PROXY = "127.0.0.2"  # another loopback address: the test's proxy connects from it, and only it is trusted
CLIENT = "203.0.113.7"  # the address a proxy says it forwards for (TEST-NET-3)
LINE_BYTES = 4096  # PIPE_BUF: the most a pipe takes in one piece (tests/unit/test_log_lines.py)


def production(tmp_path: Path) -> dict[str, str]:
    key = tmp_path / "checkpoint.key"
    key.write_text(AUDIT_KEY.signer_key, encoding="utf-8")
    key.chmod(0o600)
    return {
        "RD_ENV": "production",
        "RD_ALLOW_TEST_TABLES": "false",
        "RD_AUDIT_SIGNING_KEY": str(key),
        "RD_PUBLIC_URL": "https://rd.example.com",
        "RD_TRUSTED_PROXIES": PROXY,
        "RD_LOG_LEVEL": "INFO",  # the request lines of 2xx replies too
    }


def records(path: Path) -> list[dict[str, Any]]:
    """Every line of a stream as the JSON object it must be, each within one atomic write."""
    lines = path.read_bytes().splitlines(keepends=True)
    assert all(len(line) <= LINE_BYTES for line in lines), max(lines, key=len)[:300]
    parsed = [json.loads(line) for line in lines]  # raises on the first line that is not JSON
    assert all(isinstance(record, dict) for record in parsed)
    return parsed


async def until_stderr_shows_a_traceback(server: Served, seconds: float = 20) -> None:
    """Wait for a record with a traceback on stderr: asyncpg's pool retries its connection floor about once a
    second while the database is down, logging the failure with its traceback each time."""
    assert server.errors is not None
    deadline, errors = time.monotonic() + seconds, server.errors
    while time.monotonic() < deadline and b'"exception":"Traceback' not in errors.read_bytes():  # noqa: ASYNC110
        await asyncio.sleep(0.2)  # another process's file: there is no event to await


async def test_in_production_every_line_of_both_streams_is_json_through_an_outage_with_levels_replays_and_clients(
    tmp_path: Path,
) -> None:
    sent: dict[str, str] = {}  # what each request was, by the request id its reply carries
    async with private_cluster() as cluster:
        app_url = cluster.app_url
        with served(app_url, tmp_path / "served", workers=2, env=production(tmp_path), stderr_apart=True) as server:
            direct = httpx.AsyncClient(base_url=server.api_url, timeout=10)
            via_proxy = httpx.AsyncClient(
                base_url=server.api_url, timeout=10, transport=httpx.AsyncHTTPTransport(local_address=PROXY)
            )
            async with direct, via_proxy:
                api, lab = Signed(direct, *OPERATOR), Signed(direct, *AUDITOR)
                body = {"name": "t", "paytable": "standard/v1", "currency": "EUR", "min_ante": 1, "max_ante": 100}
                first = await api.post("/v1/tables", body, key="one-key")
                again = await api.post("/v1/tables", body, key="one-key")
                assert (first.status_code, again.status_code, again.headers["idempotent-replayed"]) == (
                    201,
                    201,
                    "true",
                )
                sent[first.headers["x-request-id"]], sent[again.headers["x-request-id"]] = "first", "replay"
                replies = {
                    "unsigned": await direct.get("/v1/tables"),
                    "auditor_writes": await lab.post("/v1/tables", body),
                    "forged": await direct.get("/v1/paytables", headers={"x-forwarded-for": CLIENT}),
                    "proxied": await via_proxy.get("/v1/paytables", headers={"x-forwarded-for": CLIENT}),
                }
                assert [r.status_code for r in replies.values()] == [401, 403, 200, 200]
                cluster.stop("fast")
                down = await api.get("/v1/tables")
                assert (down.status_code, down.json()["code"]) == (503, "SERVICE_UNAVAILABLE"), down.text
                replies["down"] = down
                sent.update({reply.headers["x-request-id"]: name for name, reply in replies.items()})
                await until_stderr_shows_a_traceback(server)
    assert server.errors is not None
    out, err = records(server.log), records(server.errors)  # the server has stopped: both streams are whole
    lines = {sent[r["request_id"]]: r for r in out if r.get("event") == "request" and r.get("request_id") in sent}
    assert {name: line["level"] for name, line in lines.items()} == {
        "first": "info",
        "replay": "info",
        "unsigned": "warning",
        "auditor_writes": "warning",
        "forged": "info",
        "proxied": "info",
        "down": "error",
    }
    assert {name for name, line in lines.items() if line.get("replay") is True} == {"replay"}
    assert lines["forged"]["remote_address"] == "127.0.0.1"  # not trusted: its X-Forwarded-For is ignored
    assert lines["proxied"]["remote_address"] == CLIENT  # from the trusted proxy: the client it names
    assert lines["down"]["status"] == 503
    (banner,) = [r for r in err if r["event"] == "serving"]
    assert (banner["api_url"], banner["operators"], banner["workers"]) == (server.api_url, [OPERATOR[0]], 2)
    tracebacks = [r for r in err if "Traceback (most recent call last)" in r.get("exception", "")]
    assert tracebacks, err[:5]  # asyncpg's tracebacks, each inside one field of one line
    assert {r["level"] for r in tracebacks} <= {"warning", "error", "critical"}
    text = server.log.read_text(encoding="utf-8") + server.errors.read_text(encoding="utf-8")
    assert ".venv/bin/reddog play" not in text  # the developer's hint: a container has no checkout
    for secret in (OPERATOR[1], AUDITOR[1], TEST_LOGIN_PASSWORD):
        assert secret not in text
