"""The OpenAPI document covers every endpoint: its body, its success schema and its problem-details errors."""

from __future__ import annotations

from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from service.app import create_app
from tests.api.helpers import PROBLEM_JSON, open_round
from tests.api.inbetween_helpers import humans, play, start
from tests.conftest import make_settings
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
    ("/v1/rounds/{round_id}/close", "post"): (
        "CloseIn",
        "200",
        "RoundOut",
        {"400", "401", "404", "409", "413", "415", "503"},
    ),
    ("/v1/rounds/{round_id}/void", "post"): (
        "VoidIn",
        "200",
        "RoundOut",
        {"400", "401", "404", "409", "413", "415", "503"},
    ),
    ("/v1/rounds/{round_id}/rollback", "post"): (
        "RollbackIn",
        "200",
        "RoundOut",
        {"400", "401", "404", "409", "413", "415", "503"},
    ),
    ("/v1/rounds/{round_id}", "get"): (None, "200", "RoundOut", {"401", "404", "503"}),
    ("/v1/rounds", "get"): (None, "200", "RoundPage", {"400", "401", "503"}),
    ("/v1/audit/public-key", "get"): (None, "200", "PublicKeyOut", {"503"}),
    ("/v1/audit/checkpoints/latest", "get"): (None, "200", "CheckpointOut", {"400", "401", "404", "503"}),
    ("/v1/audit/consistency", "get"): (None, "200", "ConsistencyProofOut", {"400", "401", "404", "409", "422", "503"}),
    ("/v1/rounds/{round_id}/proof", "get"): (None, "200", "RoundProofOut", {"401", "404", "503"}),
    ("/v1/players/{player_id}/rounds", "get"): (None, "200", "PlayerRoundsOut", {"401", "503"}),
    ("/v1/rounds/{round_id}/recall-link", "post"): (
        "RecallLinkIn",
        "200",
        "RecallLinkOut",
        {"400", "401", "404", "413", "415", "503"},
    ),
    ("/v1/inbetween/rulesets", "get"): (None, "200", "RuleSetList", set()),
    ("/v1/inbetween/rulesets/{name}/{version}", "get"): (None, "200", "RuleSetOut", {"400", "404"}),
    ("/v1/inbetween/games", "post"): (
        "CreateGame",
        "201",
        "GameOut",
        {"400", "401", "403", "409", "413", "415", "422", "503"},
    ),
    ("/v1/inbetween/games/{game_id}", "get"): (None, "200", "GameOut", {"401", "404", "503"}),
    ("/v1/inbetween/games/{game_id}/actions", "post"): (
        "ActionIn",
        "200",
        "GameOut",
        {"400", "401", "404", "409", "413", "415", "422", "503"},
    ),
    ("/v1/inbetween/games/{game_id}/records", "get"): (None, "200", "GameRecordPage", {"400", "401", "404", "503"}),
    ("/v1/reports/rtp", "get"): (None, "200", "RtpReportOut", {"400", "401", "422", "503"}),
    ("/v1/notifications", "get"): (None, "200", "NotificationPage", {"400", "401", "503"}),
    ("/v1/outbox/dead-letters", "get"): (None, "200", "DeadLetterList", {"400", "401", "503"}),
    ("/v1/friends/tables", "post"): (
        "CreateFriendsTable",
        "201",
        "FriendsJoinedOut",
        {"400", "404", "413", "415", "422", "429", "503"},
    ),
    ("/v1/friends/tables/{code}", "get"): (None, "200", "FriendsTableOut", {"400", "401", "404", "429", "503"}),
    ("/v1/friends/tables/{code}/join", "post"): (
        "JoinFriendsTable",
        "201",
        "FriendsJoinedOut",
        {"400", "404", "409", "413", "415", "429", "503"},
    ),
    ("/v1/friends/tables/{code}/start", "post"): (
        "StartFriendsGame",
        "200",
        "FriendsTableOut",
        {"400", "401", "403", "404", "409", "413", "415", "429", "503"},
    ),
    ("/v1/friends/tables/{code}/moves", "post"): (
        "FriendsMoveIn",
        "200",
        "FriendsTableOut",
        {"400", "401", "404", "409", "413", "415", "422", "429", "503"},
    ),
    ("/v1/friends/tables/{code}/leave", "post"): (
        "NoFields",
        "200",
        "FriendsTableOut",
        {"400", "401", "404", "413", "415", "429", "503"},
    ),
    ("/v1/friends/tables/{code}/back", "post"): (
        "NoFields",
        "200",
        "FriendsTableOut",
        {"400", "401", "404", "409", "413", "415", "429", "503"},
    ),
    ("/v1/friends/tables/{code}/seats/{seat}/computer", "post"): (
        "ComputerIn",
        "200",
        "FriendsTableOut",
        {"400", "401", "403", "404", "409", "413", "415", "429", "503"},
    ),
    ("/v1/friends/tables/{code}/seats/{seat}/person", "post"): (
        "NoFields",
        "200",
        "FriendsTableOut",
        {"400", "401", "403", "404", "409", "413", "415", "429", "503"},
    ),
    ("/v1/friends/tables/{code}/reactions", "post"): (
        "ReactionIn",
        "202",
        "ReactionOut",
        {"400", "401", "404", "413", "415", "429", "503"},
    ),
    ("/v1/friends/tables/{code}/records", "get"): (None, "200", "GameRecordPage", {"400", "404", "429", "503"}),
}
# An empty body is the same as {}.
OPTIONAL_BODIES = {("/v1/rounds/{round_id}/close", "post"), ("/v1/rounds/{round_id}/recall-link", "post")}
PUBLIC = ("/v1/paytables", "/v1/audit/public-key", "/v1/inbetween/rulesets", "/v1/friends/")
# Routes whose success body is not one JSON document: (path, method) -> (media type, error statuses)
STREAMS: dict[tuple[str, str], tuple[str, set[str]]] = {
    ("/v1/audit/records", "get"): ("application/x-ndjson", {"400", "401", "404", "422", "503"}),
    ("/v1/friends/tables/{code}/events", "get"): ("text/event-stream", {"400", "401", "404", "429", "503"}),
}
REF = "#/components/schemas/"


@pytest.fixture(scope="module")
async def doc(database_url: str) -> dict[str, Any]:
    """The served document, fetched once for the module: every test here only reads it."""
    app = create_app(make_settings(database_url), sweep=False)
    async with AsyncTestClient(app=app) as http:
        response = await http.get("/schema/openapi.json")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_the_document_lists_every_v1_path_and_method_and_no_others(doc: dict[str, Any]) -> None:
    methods = {"get", "post", "put", "patch", "delete"}
    documented = {(p, m) for p, ops in doc["paths"].items() if p.startswith("/v1") for m in ops if m in methods}
    assert documented == set(ROUTES) | set(STREAMS)


@pytest.mark.parametrize(("path", "method"), list(STREAMS))
def test_each_streamed_route_documents_its_media_type_its_problems_and_its_headers(
    doc: dict[str, Any], path: str, method: str
) -> None:
    media, errors = STREAMS[(path, method)]
    op = doc["paths"][path][method]
    assert list(op["responses"]["200"]["content"]) == [media]
    if media == "application/x-ndjson":  # bytes to a generated client, not one string to parse as JSON
        schema = op["responses"]["200"]["content"][media]["schema"]
        assert schema == {"type": "string", "format": "binary", "contentMediaType": media}
    assert errors <= set(op["responses"])
    if path.startswith(PUBLIC):  # a seat's token or nothing, as every friends' route
        assert op["security"] == [{}, {"seatToken": []}, {"seatCookie": []}]
        return
    # Signed like every other route: by the document's security requirement, not by per-operation parameters.
    assert "security" not in op
    assert not {p["name"].lower() for p in op.get("parameters", []) if p["in"] == "header"} & {"x-signature"}


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
        assert op["requestBody"].get("required", False) is ((path, method) not in OPTIONAL_BODIES)
    responses = op["responses"]
    assert responses[status]["content"]["application/json"]["schema"]["$ref"] == REF + success
    assert errors <= set(responses)
    for code, response in responses.items():
        if code.startswith("2"):
            continue
        assert response["content"][PROBLEM_JSON]["schema"]["$ref"] == REF + "Problem", (code, response)
        assert response["description"]


@pytest.mark.parametrize(("path", "method"), [r for r in ROUTES if not r[0].startswith(PUBLIC)])
def test_each_signed_route_documents_its_headers(doc: dict[str, Any], path: str, method: str) -> None:
    # Issue 12 replaced the three required signature parameters of every operation by security schemes (a generated
    # client's signing hook sends them); the POSTs keep Idempotency-Key as a parameter, required as the server
    # requires it (issue 28): the caller's key, so a retry repeats it.
    op = doc["paths"][path][method]
    params = {p["name"].lower(): p for p in op.get("parameters", []) if p["in"] == "header"}
    assert not {"x-operator-id", "x-timestamp", "x-signature"} & set(params)
    assert "security" not in op  # the document's requirement: all three signature headers
    schemes = doc["components"]["securitySchemes"]
    required = {schemes[name]["name"] for requirement in doc["security"] for name in requirement}
    assert required == {"X-Operator-Id", "X-Timestamp", "X-Signature"}
    if method == "post":
        assert params["idempotency-key"]["required"] is True
        assert "Required by the server" in params["idempotency-key"]["description"]


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
    assert set(kinds) == {"ante", "raise", "payout", "post_penalty", "refund", "rollback"}


async def test_a_real_round_has_exactly_the_documented_fields(api: Signed, doc: dict[str, Any]) -> None:
    schemas = doc["components"]["schemas"]
    table = await api.table(mode="test")
    rnd = await open_round(api, table["table_id"], [("p1", 10)], ["4S", "TH"])
    done = await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/close")
    assert set(done) == set(schemas["RoundOut"]["properties"])
    assert set(done["bets"][0]) == set(schemas["BetOut"]["properties"])
    assert set(done["bets"][0]["transactions"][0]) == set(schemas["TransactionOut"]["properties"])
    assert set(table) == set(schemas["TableOut"]["properties"])


async def test_a_real_game_has_exactly_the_documented_fields(api: Signed, doc: dict[str, Any]) -> None:
    schemas = doc["components"]["schemas"]
    game = await start(api, humans("alice", "bob"), ["9S", "9H"])
    assert game["awaiting"] == "pair_call"
    assert set(game) == set(schemas["GameOut"]["properties"])
    assert set(game["pair_call_odds"][0]) == set(schemas["PairCallOddsOut"]["properties"])
    game = await play(api, game["game_id"], "bob", "call_pair", call="higher")
    assert set(game["turn"]) == set(schemas["GameTurnOut"]["properties"])
    assert set(game["odds"]) == set(schemas["OddsOut"]["properties"])
    assert set(game["seats"][0]) == set(schemas["GameSeatOut"]["properties"])
    assert set(game["shoe"]) == set(schemas["GameShoeOut"]["properties"])
    page = await api.ok("GET", f"/v1/inbetween/games/{game['game_id']}/records?limit=1")
    assert set(page) == set(schemas["GameRecordPage"]["properties"])
    assert set(page["items"][0]) == set(schemas["GameRecordOut"]["properties"])
    ruleset = (await api.client.get("/v1/inbetween/rulesets/nepal/v1")).json()
    assert set(ruleset) == set(schemas["RuleSetOut"]["properties"])


def test_the_game_schema_lists_the_actions_by_their_tag(doc: dict[str, Any]) -> None:
    union = doc["components"]["schemas"]["ActionIn"]
    moves = {"call_ace", "call_pair", "bet", "pass", "split", "keep_pair", "agree_stop", "show", "buy"}
    assert set(union["discriminator"]["mapping"]) == moves
    statuses = doc["components"]["schemas"]["GameOut"]["properties"]["status"]
    waits = {"awaiting_ace_call", "awaiting_pair_call", "awaiting_bet", "awaiting_split", "game_over"}
    assert waits <= set(_enum(statuses))


def _enum(schema: dict[str, Any]) -> list[str]:
    found: list[str] = list(schema.get("enum", []))
    for option in schema.get("oneOf", []):
        found.extend(option.get("enum", []))
    return found
