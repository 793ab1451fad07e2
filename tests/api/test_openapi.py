"""The OpenAPI document covers every endpoint: its body, its success schema and its problem-details errors."""

from __future__ import annotations

from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from tests.api.helpers import PROBLEM_JSON, open_round
from tests.support.client import Signed

# (path, method): (request body schema or None, success status, success schema, error statuses it must document)
ROUTES: dict[tuple[str, str], tuple[str | None, str, str, set[str]]] = {
    ("/v1/paytables", "get"): (None, "200", "PaytableList", set()),
    ("/v1/paytables/{name}/{version}", "get"): (None, "200", "PaytableOut", {"400", "404"}),
    ("/v1/tables", "post"): (
        "CreateTable",
        "201",
        "TableOut",
        {"400", "401", "403", "409", "413", "415", "422", "503"},
    ),
    ("/v1/tables", "get"): (None, "200", "TableList", {"401", "503"}),
    ("/v1/tables/{table_id}", "get"): (None, "200", "TableOut", {"401", "404", "503"}),
    ("/v1/tables/{table_id}/close", "post"): (None, "200", "TableOut", {"400", "401", "404", "409", "503"}),
    ("/v1/tables/{table_id}/rounds", "post"): (
        "CreateRound",
        "201",
        "RoundOut",
        {"400", "401", "403", "404", "409", "413", "415", "422", "503"},
    ),
    ("/v1/rounds/{round_id}/decisions", "post"): (
        "DecisionIn",
        "200",
        "RoundOut",
        {"400", "401", "404", "409", "413", "415", "422", "503"},
    ),
    ("/v1/rounds/{round_id}/close", "post"): (None, "200", "RoundOut", {"400", "401", "404", "409", "503"}),
    ("/v1/rounds/{round_id}/void", "post"): (
        "VoidIn",
        "200",
        "RoundOut",
        {"400", "401", "404", "409", "413", "415", "503"},
    ),
    ("/v1/rounds/{round_id}", "get"): (None, "200", "RoundOut", {"401", "404", "503"}),
    ("/v1/rounds", "get"): (None, "200", "RoundPage", {"400", "401", "503"}),
}
REF = "#/components/schemas/"


@pytest.fixture
async def doc(http: AsyncTestClient[Litestar]) -> dict[str, Any]:
    response = await http.get("/schema/openapi.json")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_the_document_lists_every_v1_path_and_method_and_no_others(doc: dict[str, Any]) -> None:
    methods = {"get", "post", "put", "patch", "delete"}
    documented = {(p, m) for p, ops in doc["paths"].items() if p.startswith("/v1") for m in ops if m in methods}
    assert documented == set(ROUTES)


@pytest.mark.parametrize(("path", "method"), list(ROUTES))
def test_each_route_documents_its_body_its_success_and_its_problems(
    doc: dict[str, Any], path: str, method: str
) -> None:
    body, status, success, errors = ROUTES[(path, method)]
    op = doc["paths"][path][method]
    if body is None:
        assert "requestBody" not in op
    else:
        assert op["requestBody"]["content"]["application/json"]["schema"]["$ref"] == REF + body
        assert op["requestBody"].get("required") is True
    responses = op["responses"]
    assert responses[status]["content"]["application/json"]["schema"]["$ref"] == REF + success
    assert errors <= set(responses)
    for code, response in responses.items():
        if code.startswith("2"):
            continue
        assert response["content"][PROBLEM_JSON]["schema"]["$ref"] == REF + "Problem", (code, response)
        assert response["description"]


@pytest.mark.parametrize(("path", "method"), [r for r in ROUTES if not r[0].startswith("/v1/paytables")])
def test_each_signed_route_documents_its_headers(doc: dict[str, Any], path: str, method: str) -> None:
    params = {p["name"].lower(): p for p in doc["paths"][path][method].get("parameters", []) if p["in"] == "header"}
    for name in ("x-operator-id", "x-timestamp", "x-signature"):
        assert params[name]["required"] is True
    if method == "post":
        assert params["idempotency-key"]["required"] is True


def test_the_components_hold_every_wire_schema_and_problem_has_our_fields(doc: dict[str, Any]) -> None:
    schemas = doc["components"]["schemas"]
    for name in ("Problem", "RoundOut", "TableOut", "CreateRound", "CreateTable", "DecisionIn", "VoidIn"):
        assert name in schemas
    problem = schemas["Problem"]
    assert {"status", "title", "detail", "code", "retryable"} <= set(problem["required"])
    assert problem["properties"]["retryable"]["type"] == "boolean"


def test_the_round_schema_has_every_field_the_spec_names(doc: dict[str, Any]) -> None:
    schemas = doc["components"]["schemas"]
    spec_round = {
        "round_id", "table_id", "status", "paytable", "paytable_sha256", "decks", "cards", "outcome", "spread",
        "payout_odds", "raise_window_closes_at", "opened_at", "settled_at", "test", "shoe", "bets",
    }  # fmt: skip
    assert spec_round <= set(schemas["RoundOut"]["properties"])
    spec_bet = {"bet_id", "player_id", "ante", "raise", "decision", "result", "payout", "net", "transactions"}
    assert spec_bet <= set(schemas["BetOut"]["properties"])
    kinds = schemas["TransactionOut"]["properties"]["kind"]["enum"]
    assert set(kinds) == {"ante", "raise", "payout", "post_penalty", "refund"}


async def test_a_real_round_has_exactly_the_documented_fields(api: Signed, doc: dict[str, Any]) -> None:
    schemas = doc["components"]["schemas"]
    table = await api.table(mode="test")
    rnd = await open_round(api, table["table_id"], [("p1", 10)], ["4S", "TH"])
    done = await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/close")
    assert set(done) == set(schemas["RoundOut"]["properties"])
    assert set(done["bets"][0]) == set(schemas["BetOut"]["properties"])
    assert set(done["bets"][0]["transactions"][0]) == set(schemas["TransactionOut"]["properties"])
    assert set(table) == set(schemas["TableOut"]["properties"])
