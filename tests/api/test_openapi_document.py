"""The served OpenAPI document: valid, lint-clean, described field by field, and saying what the service does."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient
from openapi_schema_validator import OAS31Validator
from openapi_spec_validator import validate

from service.api.openapi import openapi_descriptions
from service.api.openapi.openapi_polish import CONSTRAINTS, operations
from service.problem_codes import CODES, PROBLEM_CODES
from tests.support.tools import ROOT, run_node_tool


@pytest.fixture
async def doc(http: AsyncTestClient[Litestar]) -> dict[str, Any]:
    response = await http.get("/schema/openapi.json")
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def _walk(node: Any) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        found.append(node)
        for value in node.values():
            found.extend(_walk(value))
    elif isinstance(node, list):
        for value in node:
            found.extend(_walk(value))
    return found


def test_the_document_is_valid_openapi(doc: dict[str, Any]) -> None:
    validate(doc)


def test_every_property_and_parameter_and_operation_is_described(doc: dict[str, Any]) -> None:
    bare = [
        f"{name}.{field}"
        for name, schema in doc["components"]["schemas"].items()
        for field, prop in schema.get("properties", {}).items()
        if not prop.get("description") and "$ref" not in prop
    ]
    assert bare == []
    for path, method, op in operations(doc):
        assert op["description"] != op["summary"], (method, path)
        for param in op.get("parameters", []):
            assert param.get("description"), (method, path, param["name"])


def test_no_description_names_a_field_or_operation_the_document_lacks(doc: dict[str, Any]) -> None:
    schemas = doc["components"]["schemas"]
    for name, fields in openapi_descriptions.PROPERTIES.items():
        assert set(fields) <= set(schemas[name]["properties"]), name
    documented = {(method, path) for path, method, _ in operations(doc)}
    assert set(openapi_descriptions.OPERATIONS) == documented
    parameters = {p["name"] for _, _, op in operations(doc) for p in op.get("parameters", [])}
    assert set(openapi_descriptions.PARAMETERS) == parameters
    taking = {(m, path, p["name"]) for path, m, op in operations(doc) for p in op.get("parameters", [])}
    for name, described in openapi_descriptions.PARAMETERS.items():
        if isinstance(described, dict):  # described per operation: each one takes it
            assert {(m, path, name) for m, path in described} <= taking, name


def test_nullable_enums_are_one_enum_or_null_and_no_constraint_sits_beside_a_one_of(doc: dict[str, Any]) -> None:
    for schema in _walk(doc["components"]) + _walk(doc["paths"]):
        assert not (isinstance(schema.get("type"), list) and "enum" in schema), schema
        if "oneOf" in schema:
            assert not set(CONSTRAINTS) & set(schema), schema
    bet = doc["components"]["schemas"]["BetOut"]["properties"]["result"]
    assert bet["oneOf"] == [
        {"type": "string", "enum": ["win", "lose", "push", "trips", "void", "rolled_back"]},
        {"type": "null"},
    ]


def test_constraints_reach_the_branch_a_generator_reads(doc: dict[str, Any]) -> None:
    schemas = doc["components"]["schemas"]
    cards = schemas["CreateRound"]["properties"]["forced_cards"]["oneOf"][0]
    # 2..21: a shared round deals 2 or 3 cards, a per-seat round up to 3 a bet for its 7 bets.
    assert (cards["minItems"], cards["maxItems"], cards["items"]["pattern"]) == (2, 21, "^[2-9TJQKA][SHDC]$")
    penetration = schemas["CreateTable"]["properties"]["penetration"]["oneOf"][0]
    assert (penetration["minimum"], penetration["maximum"]) == (10, 90)
    rounds = schemas["CreateGame"]["properties"]["rounds"]["oneOf"][0]
    assert (rounds["type"], rounds["minimum"], rounds["maximum"]) == ("integer", 1, 100)
    assert schemas["ShoeOut"]["required"] == ["commitment", "reveal"]
    assert schemas["PaytableOut"]["properties"]["post_rule"]["enum"] == ["lose", "lose_double"]
    for name in ("shoe_policy", "mode"):
        assert schemas["TableOut"]["properties"][name]["enum"] == schemas["CreateTable"]["properties"][name]["enum"]


def test_problem_always_has_a_type_and_its_code_is_a_listed_code_or_any_later_one(doc: dict[str, Any]) -> None:
    schemas = doc["components"]["schemas"]
    problem = schemas["Problem"]
    assert "type" in problem["required"]
    assert "default" not in problem["properties"]["type"]
    # Open (issue 28): a closed enum made a generated client refuse a reply with a code added after it was made.
    assert problem["properties"]["code"]["anyOf"] == [{"$ref": "#/components/schemas/ProblemCode"}, {"type": "string"}]
    assert schemas["ProblemCode"]["enum"] == list(CODES)


def test_no_request_body_field_has_a_default_and_says_what_absent_means_instead(doc: dict[str, Any]) -> None:
    # openapi-typescript's default setting makes a property with a default required: right for a reply (the server
    # always sends it), wrong for a request field a client may leave out.
    schemas = doc["components"]["schemas"]
    for name in ("CreateTable", "CreateGame", "CreateFriendsTable", "JoinFriendsTable"):
        for field, prop in schemas[name]["properties"].items():
            assert "default" not in prop, (name, field)
    decks = schemas["CreateTable"]["properties"]["decks"]
    assert decks["description"] == "decks in the shoe, 1..8; absent: `6`"  # docs/api.md: `decks=6`
    assert "decks" not in schemas["CreateTable"].get("required", [])
    assert schemas["RoundOut"]["properties"]["checkpoint_size"]["default"] == 0  # a reply's default stays


def _docs_error_table() -> list[tuple[str, int, str]]:
    text = (ROOT / "docs" / "api.md").read_text()
    section = text[text.index("## Errors") : text.index("## Resources")]
    rows = re.findall(r"^\| `([A-Z_]+)` \| (\d{3}) \| (.+) \|$", section, flags=re.MULTILINE)
    return [(code, int(status), when) for code, status, when in rows]


def test_the_error_table_of_the_docs_is_the_list_of_codes_in_code() -> None:
    assert _docs_error_table() == [(p.code, p.status, p.when) for p in PROBLEM_CODES]


def _codes_in_source() -> set[str]:
    """Every code the code can answer: ApiError(status, "CODE", ...), problem(status, "CODE", ...) (raw_problem and
    closing_problem too, the bytes under the app), a refusal's
    `code = "CODE"`, and the status-to-code map of the HTTP errors, read from the source (not from the list)."""
    found: set[Any] = set()
    files = [*(ROOT / "service").rglob("*.py"), *(ROOT / "paytables").rglob("*.py")]  # the rules' refusals too
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            called = node.func.id if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) else ""
            if isinstance(node, ast.Call) and (called == "ApiError" or called.endswith("problem")):
                if len(node.args) > 1 and isinstance(node.args[1], ast.Constant):
                    found.add(node.args[1].value)
            elif isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["code"]:
                if isinstance(node.value, ast.Constant):
                    found.add(node.value.value)
            elif isinstance(node, ast.FunctionDef) and node.name == "on_http_exception":
                for inner in ast.walk(node):
                    if isinstance(inner, ast.Dict):
                        found.update(v.value for v in inner.values if isinstance(v, ast.Constant))
                    if _is_get_with_default(inner):
                        assert isinstance(inner, ast.Call)
                        found.add(getattr(inner.args[1], "value", None))
    found -= {"GAME_ERROR", "INBETWEEN_ERROR"}  # base classes' placeholders: every refusal raised has its own code
    return {c for c in found if isinstance(c, str)}


def _is_get_with_default(node: ast.AST) -> bool:
    """`codes.get(status, "CLIENT_ERROR")`: the code for a status the map does not name."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and len(node.args) > 1
        and isinstance(node.args[1], ast.Constant)
    )


def test_every_code_the_source_can_answer_is_listed_and_every_listed_code_is_answered() -> None:
    assert _codes_in_source() == set(CODES)


REST_409 = {
    ("post", "/v1/tables"): ["IDEMPOTENCY_CONFLICT"],
    ("post", "/v1/tables/{table_id}/close"): ["IDEMPOTENCY_CONFLICT", "TABLE_CLOSED"],
    ("post", "/v1/tables/{table_id}/rounds"): ["IDEMPOTENCY_CONFLICT", "TABLE_CLOSED", "ROUND_IN_PROGRESS"],
    ("post", "/v1/rounds/{round_id}/decisions"): [
        "IDEMPOTENCY_CONFLICT", "NOT_IN_RAISE_WINDOW", "RAISE_WINDOW_CLOSED", "ALREADY_DECIDED"],
    ("post", "/v1/rounds/{round_id}/close"): ["IDEMPOTENCY_CONFLICT", "NOT_IN_RAISE_WINDOW"],
    ("post", "/v1/rounds/{round_id}/void"): ["IDEMPOTENCY_CONFLICT", "NOT_IN_RAISE_WINDOW"],
    ("post", "/v1/rounds/{round_id}/rollback"): ["IDEMPOTENCY_CONFLICT", "ROLLBACK_GRACE_EXPIRED"],
    ("post", "/v1/rounds/{round_id}/recall-link"): ["IDEMPOTENCY_CONFLICT"],
    ("get", "/v1/audit/consistency"): ["CHAIN_TRUNCATED"],
    ("get", "/v1/rounds/{round_id}/proof"): ["CHAIN_TRUNCATED"],
    ("post", "/v1/inbetween/games"): ["IDEMPOTENCY_CONFLICT"],
    ("post", "/v1/inbetween/games/{game_id}/actions"): [
        "IDEMPOTENCY_CONFLICT", "STALE_VERSION", "NOT_YOUR_TURN", "WRONG_ACTION", "GAME_OVER"],
    ("post", "/v1/friends/tables/{code}/join"): ["TABLE_STARTED", "TABLE_FULL"],
    ("post", "/v1/friends/tables/{code}/start"): ["TABLE_STARTED"],
    ("post", "/v1/friends/tables/{code}/moves"): [
        "STALE_VERSION", "NOT_YOUR_TURN", "WRONG_ACTION", "GAME_OVER", "GAME_NOT_STARTED"],
    ("post", "/v1/friends/tables/{code}/back"): ["SEAT_NOT_HELD"],
    ("post", "/v1/friends/tables/{code}/seats/{seat}/computer"): ["SEAT_LEFT"],
    ("post", "/v1/friends/tables/{code}/seats/{seat}/person"): ["SEAT_NOT_HELD"],
}  # fmt: skip


def test_each_409_lists_and_exemplifies_only_the_conflicts_its_route_can_answer(doc: dict[str, Any]) -> None:
    found = {
        (method, path): list(op["responses"]["409"]["content"]["application/problem+json"]["examples"])
        for path, method, op in operations(doc)
        if "409" in op["responses"]
    }
    assert found == REST_409
    for (method, path), codes in REST_409.items():
        description = doc["paths"][path][method]["responses"]["409"]["description"]
        assert [c for c in CODES if c in description] == [c for c in CODES if c in codes]


def test_the_headers_a_client_reads_are_declared(doc: dict[str, Any]) -> None:
    for path, method, op in operations(doc):
        for status, response in op["responses"].items():
            headers = response["headers"]
            assert "X-Request-Id" in headers
            keyed = method == "post" and status.startswith("2") and not path.startswith("/v1/friends/")
            assert ("Idempotent-Replayed" in headers) == keyed, (path, status)
            assert ("Retry-After" in headers) == (status in ("429", "500", "503")), (path, status)


# Unsigned: the paytables, the In Between rule sets, the checkpoint key and the replay page a signed link opens.
PUBLIC = ("/v1/paytables", "/v1/inbetween/rulesets", "/v1/audit/public-key", "/recall/")
FRIENDS = "/v1/friends/"  # signed by no operator: a seat's token, or nothing for a spectator


def test_public_operations_say_so_and_signed_ones_inherit_the_signature(doc: dict[str, Any]) -> None:
    for path, method, op in operations(doc):
        assert ("security" in op) == path.startswith((*PUBLIC, FRIENDS)), path
        if path.startswith(FRIENDS) and (method, path) != ("post", "/v1/friends/tables"):
            assert op["security"] == [{}, {"seatToken": []}, {"seatCookie": []}], path
        elif "security" in op:
            assert op["security"] == [], path
    signature = doc["components"]["securitySchemes"]["signature"]
    assert "timestamp LF METHOD LF path_with_query LF idempotency_key LF raw_body" in json.dumps(signature)


def test_every_example_is_valid_against_its_schema(doc: dict[str, Any]) -> None:
    checked = 0
    for _, _, op in operations(doc):
        for response in op["responses"].values():
            for media in response.get("content", {}).values():
                # "#/components/..." resolves against the root: give the schema the document's components.
                schema = {**media["schema"], "components": doc["components"]}
                for example in media.get("examples", {}).values():
                    OAS31Validator(schema).validate(example["value"])
                    checked += 1
    assert checked > 50


def test_the_example_rounds_cover_every_outcome_and_status(doc: dict[str, Any]) -> None:
    examples = doc["paths"]["/v1/rounds/{round_id}"]["get"]["responses"]["200"]["content"]["application/json"]
    rounds = [e["value"] for e in examples["examples"].values()]
    assert {r["outcome"] for r in rounds} == {"consecutive", "pair", "trips", "spread"}
    assert {r["status"] for r in rounds} == {"raise_window", "settled", "void", "rolled_back"}
    for r in rounds:
        for bet in r["bets"]:
            if bet["net"] is not None:
                moved = sum(t["amount"] if t["type"] == "credit" else -t["amount"] for t in bet["transactions"])
                assert moved == bet["net"]


def _write(doc: dict[str, Any], tmp_path: Path) -> Path:
    path = tmp_path / "openapi.json"
    path.write_text(json.dumps(doc))
    return path


def test_redocly_recommended_finds_no_error_and_no_warning(doc: dict[str, Any], tmp_path: Path) -> None:
    result = run_node_tool("redocly", "lint", "--extends=recommended", "--format=json", str(_write(doc, tmp_path)))
    report = json.loads(result.stdout)
    problems = [(p["ruleId"], p["severity"], p["message"]) for p in report["problems"]]
    assert problems == []
    assert result.returncode == 0, result.stderr


def test_spectral_oas_finds_no_problem_at_all(doc: dict[str, Any], tmp_path: Path) -> None:
    ruleset = ROOT / "tools" / "node" / ".spectral.yaml"
    result = run_node_tool(
        "spectral", "lint", "-r", str(ruleset), "-f", "json", "-F", "hint", str(_write(doc, tmp_path))
    )
    # The JSON array comes first; with nothing found Spectral appends a sentence after it.
    found, _ = json.JSONDecoder().raw_decode(result.stdout)
    problems = [(p["code"], ".".join(map(str, p["path"]))) for p in found]
    assert problems == []
    assert result.returncode == 0, result.stderr
