"""What an on-call engineer counts: 401s by reason, problem documents by code, idempotent replays, rollbacks, and the
release serving, each exported by the real app as its requests are answered."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path
from typing import Any

from prometheus_client import REGISTRY

from service.api.auth import sign
from service.settings import Settings
from tests.api.helpers import open_round, problem
from tests.conftest import make_settings
from tests.support.client import Signed
from tests.support.live import live

ROOT = Path(__file__).resolve().parents[2]
NAME = "reddog_auth_failures_total"
REASONS = ("unknown_operator", "bad_timestamp", "stale_timestamp", "malformed_signature", "bad_signature")


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def failures() -> dict[str, float]:
    return {reason: value("reddog_auth_failures_total", reason=reason) for reason in REASONS}


async def refused(api: Signed, operator: str, timestamp: str, signature: str) -> None:
    headers = {"x-operator-id": operator, "x-timestamp": timestamp, "x-signature": signature}
    problem(await api.client.get("/v1/tables", headers=headers), 401, "UNAUTHENTICATED")


async def test_each_refused_signature_is_counted_under_its_own_reason(api: Signed) -> None:
    now = str(api.now())
    good = sign(api.secret, now, "GET", "/v1/tables", b"")
    wrong = sign(api.secret + "x", now, "GET", "/v1/tables", b"")
    an_hour_ago = str(api.now() - 3600)
    cases: list[tuple[str, tuple[str, str, str]]] = [
        ("unknown_operator", ("nobody", now, good)),
        ("bad_timestamp", (api.operator_id, "soon", good)),
        ("stale_timestamp", (api.operator_id, an_hour_ago, sign(api.secret, an_hour_ago, "GET", "/v1/tables", b""))),
        ("malformed_signature", (api.operator_id, now, "not hex")),
        ("bad_signature", (api.operator_id, now, wrong)),
    ]
    for reason, (operator, timestamp, signature) in cases:
        before = failures()
        await refused(api, operator, timestamp, signature)
        after = failures()
        assert {r: after[r] - before[r] for r in REASONS} == {r: float(r == reason) for r in REASONS}, reason


async def test_a_problem_document_is_counted_by_its_status_and_code(api: Signed) -> None:
    labels = {"status": "404", "code": "NOT_FOUND"}
    before = value("reddog_problems_total", **labels)
    problem(await api.get("/v1/rounds/00000000-0000-4000-8000-000000000000"), 404, "NOT_FOUND")
    assert value("reddog_problems_total", **labels) == before + 1


async def test_a_retried_write_counts_one_replay_and_the_first_answer_none(api: Signed) -> None:
    body = {"name": "t", "paytable": "standard/v1", "currency": "EUR", "min_ante": 1, "max_ante": 1000}
    before = value("reddog_idempotent_replays_total", route="/v1/tables")
    first = await api.post("/v1/tables", body, key="replayed-once")
    assert value("reddog_idempotent_replays_total", route="/v1/tables") == before
    again = await api.post("/v1/tables", body, key="replayed-once")
    assert again.headers["idempotent-replayed"] == "true"
    assert again.content == first.content
    assert value("reddog_idempotent_replays_total", route="/v1/tables") == before + 1


async def rollback(api: Signed, rnd: dict[str, Any]) -> None:
    await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/rollback", {"reason": "wallet debit failed"})


async def test_a_rollback_is_counted_once_under_the_status_the_round_had(api: Signed) -> None:
    table = (await api.table(mode="test", decks=2))["table_id"]
    settled = await open_round(api, table, [("p1", 10)], ["5S", "6H"])  # consecutive: settles at once
    in_window = await open_round(api, table, [("p1", 10)], ["4S", "TH"])  # a spread: waits for a decision
    common = {"paytable": "standard/v1", "decks": "2", "mode": "test"}
    before = {p: value("reddog_rollbacks_total", previous=p, **common) for p in ("settled", "raise_window")}
    await rollback(api, settled)
    await rollback(api, in_window)
    await rollback(api, settled)  # a second rollback changes nothing, and counts nothing
    after = {p: value("reddog_rollbacks_total", previous=p, **common) - before[p] for p in before}
    assert after == {"settled": 1, "raise_window": 1}


async def test_the_release_serving_is_exported_with_its_version_and_revision(database_url: str) -> None:
    revision = "0123456789abcdef0123456789abcdef01234567"
    async with live(make_settings(database_url, git_revision=revision)):
        labels = {"version": metadata.version("reddog"), "revision": revision}
        assert value("reddog_build_info", **labels) == 1


async def test_every_refusal_reason_is_exported_once_the_service_starts_and_documented(settings: Settings) -> None:
    async with live(settings):
        exported = {s.labels["reason"] for m in REGISTRY.collect() for s in m.samples if s.name == NAME}
    assert exported == set(REASONS)
    documented = (ROOT / "deploy" / "METRICS.md").read_text(encoding="utf-8")
    assert all(f"`{reason}`" in documented for reason in REASONS)
