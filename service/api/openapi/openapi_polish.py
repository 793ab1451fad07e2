"""The OpenAPI document as Litestar writes it, made into one that generators turn into good clients.

Each step is a plain function over the JSON document, so a test can read what it does; `polish` runs them all. What
Litestar cannot say (an HMAC security scheme, response headers, per-code examples, descriptions of fields we do not
annotate one by one) is added here; what it says in a form generators mishandle is rewritten:

- a nullable enum, `{"type": ["null", "string"], "enum": [..., null]}`, becomes `oneOf: [{enum}, {"type": "null"}]`:
  openapi-python-client then makes one enum class (not three) and openapi-typescript one literal union;
- constraints written beside a `oneOf` (where both generators drop them) move into its non-null branch.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

from service.api.openapi import openapi_descriptions, openapi_examples, openapi_generators
from service.api.openapi.openapi_docs import name_body_union, optional_body
from service.api.wire import CARD_PATTERN
from service.problem_codes import PROBLEM_CODES

Doc = dict[str, Any]
CONSTRAINTS = ("maxLength", "minLength", "pattern", "maximum", "minimum", "maxItems", "minItems", "format")
METHODS = ("get", "put", "post", "delete", "patch")
# All three headers, on every signed operation.
SIGNED: list[dict[str, list[str]]] = [{"operatorId": [], "timestamp": [], "signature": []}]

SIGNED_MESSAGE = {
    "algorithm": "HMAC-SHA256",
    "key": "the operator's secret (RD_OPERATORS id:secret), as UTF-8 bytes",
    "output": "lowercase hex, 64 characters, sent as X-Signature",
    "message": "timestamp LF METHOD LF path_with_query LF idempotency_key LF raw_body",
    "fields": {
        "timestamp": "the X-Timestamp header: unix seconds, within 300 s of the server clock",
        "METHOD": "the HTTP method in capitals: GET or POST",
        "path_with_query": "the path exactly as sent, with its query string if any (/v1/rounds?limit=10)",
        "idempotency_key": "the Idempotency-Key header of a POST; empty for a GET (the line is still there)",
        "raw_body": "the exact bytes of the body; nothing for a GET",
    },
    "example": {
        "request": 'POST /v1/rounds/1f0.../void at 1767225600, Idempotency-Key k-1, body {"reason":"x"}',
        "signed_bytes": '1767225600\\nPOST\\n/v1/rounds/1f0.../void\\nk-1\\n{"reason":"x"}',
    },
    "clients": "docs/clients/ has a signing hook for httpx (Python) and a fetch wrapper (TypeScript)",
}

SECURITY_SCHEMES = {
    "operatorId": {
        "type": "apiKey",
        "in": "header",
        "name": "X-Operator-Id",
        "description": "Your operator id. Sent with X-Timestamp and X-Signature on every signed request.",
    },
    "timestamp": {
        "type": "apiKey",
        "in": "header",
        "name": "X-Timestamp",
        "description": "Unix seconds when the request was signed; refused when more than 300 s from the server clock.",
    },
    "signature": {
        "type": "apiKey",
        "in": "header",
        "name": "X-Signature",
        "description": "HMAC-SHA256 of the request, computed per request by a signing hook, never a fixed key: "
        "`x-signed-message` spells out the bytes. Every POST also carries an Idempotency-Key, which is signed.",
        "x-signed-message": SIGNED_MESSAGE,
    },
}

HEADERS = {
    "X-Request-Id": {
        "description": "The request's id in the server's logs: the X-Request-Id the client sent (1-64 ASCII "
        "characters), or a new one. Quote it to support.",
        "schema": {"type": "string", "maxLength": 64},
    },
    "Idempotent-Replayed": {
        "description": "`true` when this is the stored reply to an earlier request with the same Idempotency-Key "
        "(byte for byte); absent otherwise.",
        "schema": {"type": "string", "enum": ["true"]},
    },
    "Retry-After": {
        "description": "Seconds to wait before retrying; sent with every retryable problem.",
        "schema": {"type": "integer", "minimum": 0},
    },
}

INFO = {
    "description": "Red Dog tables over REST for game aggregators, with the audit anchors (signed checkpoints and "
    "proofs), game recall, and In Between pot games played for chips. Money is always an integer number "
    "of minor units of the table's currency (`currency_exponent` says how many decimals). Every `/v1` request "
    "but the public paytables, rule sets and audit key is signed (see the `signature` security scheme); every "
    "POST takes an `Idempotency-Key` and may be retried with it. Errors are RFC 9457 problem details with a "
    "stable `code`. The prose contract is docs/api.md (docs/inbetween-api.md for In Between).",
    "contact": {"name": "Red Dog table service maintainers"},
    "license": {"name": "Proprietary", "identifier": "LicenseRef-Proprietary"},
}

TAGS = [
    {"name": "paytables", "description": "The released paytables and their exact theoretical figures: public."},
    {"name": "tables", "description": "Open, read and close tables; a table fixes the paytable, currency and limits."},
    {"name": "rounds", "description": "Open a round, decide, close, void or roll back, read one, list them."},
    {
        "name": "audit",
        "description": "The audit records byte for byte, the checkpoint key, signed checkpoints, RFC 9162 proofs.",
    },
    {"name": "recall", "description": "A player's last rounds, signed recall links and the replay page they open."},
    {"name": "reports", "description": "The authoritative RTP report from the database, for operators and auditors."},
    {
        "name": "notifications",
        "description": "Signed settlement notifications for reconciliation, and those given up on (docs/api.md).",
    },
    {"name": "in between rule sets", "description": "The released In Between house rules: public."},
    {"name": "in between games", "description": "In Between pot games for play chips: start, act, read, audit."},
    {
        "name": "friends",
        "description": "In Between with friends, public: a table with a code and a link, a seat token per phone, live "
        "hints over Server-Sent Events, turn timers and computer seats (docs/friends-api.md).",
    },
]
FRIENDS = "/v1/friends/"
# A friends' route acts for a seat by its token (cookie or bearer) and answers a spectator without one.
SEAT_OR_NONE: list[dict[str, list[str]]] = [{}, {"seatToken": []}, {"seatCookie": []}]
SEAT_SCHEMES = {
    "seatToken": {
        "type": "http",
        "scheme": "bearer",
        "description": "A friends' table's seat token, as a join with `bearer: true` returned it; acts for that seat "
        "of that table only.",
    },
    "seatCookie": {
        "type": "apiKey",
        "in": "cookie",
        "name": "rd_seat",
        "description": "The same token as the HttpOnly cookie a join sets (path: the table's), for browsers.",
    },
}
SET_COOKIE = {
    "description": "`rd_seat=<token>; HttpOnly; SameSite=Strict; Path=/v1/friends/tables/<code>` (and `Secure` "
    "behind https), unless the request asked for `bearer: true`.",
    "schema": {"type": "string"},
}


def polish(raw: Doc) -> Doc:
    """The served document: `raw` (Litestar's, untouched) with every step below applied to a copy."""
    doc = copy.deepcopy(raw)
    # Made here, when the document is first asked for, not when an app is built (tests build a thousand apps).
    name_body_union(doc, "DecisionIn", "/v1/rounds/{round_id}/decisions", "action")
    name_body_union(doc, "ActionIn", "/v1/inbetween/games/{game_id}/actions", "action")
    name_body_union(doc, "FriendsMoveIn", "/v1/friends/tables/{code}/moves", "action")
    optional_body(doc, "/v1/rounds/{round_id}/close")
    optional_body(doc, "/v1/rounds/{round_id}/recall-link")
    for schema in _schemas(doc):
        _nullable_enum(schema)
        _constraints_into_branch(schema)
    _parameters(doc)
    _security(doc)
    _problem(doc["components"]["schemas"])
    _card_codes(doc["components"]["schemas"])
    _game_rounds(doc["components"]["schemas"])
    _operations(doc)
    _friends(doc)
    openapi_descriptions.describe(doc)
    openapi_examples.add(doc)
    openapi_generators.for_generators(doc)  # last: it rewrites descriptions the steps above wrote
    doc["info"].update(INFO)
    doc["tags"] = TAGS
    return doc


def _schemas(node: Any) -> Iterator[Doc]:
    """Every schema object in the document, nested ones included (any dict is visited; steps check the shape)."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _schemas(value)
    elif isinstance(node, list):
        for value in node:
            yield from _schemas(value)


def _nullable_enum(schema: Doc) -> None:
    types, values = schema.get("type"), schema.get("enum")
    if not (isinstance(types, list) and "null" in types and isinstance(values, list) and None in values):
        return
    (kind,) = [t for t in types if t != "null"]
    del schema["type"], schema["enum"]
    schema["oneOf"] = [{"type": kind, "enum": [v for v in values if v is not None]}, {"type": "null"}]


def _constraints_into_branch(schema: Doc) -> None:
    branches = schema.get("oneOf")
    if not isinstance(branches, list):
        return
    real = [b for b in branches if b != {"type": "null"}]
    moved = {k: schema.pop(k) for k in CONSTRAINTS if k in schema}
    if moved and len(real) == 1 and "$ref" not in real[0]:
        real[0].update(moved)
    else:
        schema.update(moved)  # nowhere better to put them


def _parameters(doc: Doc) -> None:
    """A parameter is absent or has a value: never null. `oneOf [X, null]` on a parameter becomes X, so a generated
    client takes `X | Unset` rather than a union with None."""
    for _, _, op in operations(doc):
        for param in op.get("parameters", []):
            schema = param["schema"]
            branches = schema.get("oneOf")
            if isinstance(branches, list) and len(branches) == 2 and {"type": "null"} in branches:
                (real,) = [b for b in branches if b != {"type": "null"}]
                del schema["oneOf"]
                schema.update(real)


def _card_codes(schemas: Doc) -> None:
    """Litestar drops the card pattern of `forced_cards` items (a constrained type in an optional list): restore it."""
    (cards,) = [b for b in schemas["CreateRound"]["properties"]["forced_cards"]["oneOf"] if b.get("type") == "array"]
    cards["items"] = {"type": "string", "pattern": CARD_PATTERN, "description": "a card code (`TD`, `5S`)"}


def _security(doc: Doc) -> None:
    """Signing as security schemes rather than three required parameters on every operation; a signed operation
    inherits the document's requirement, a public one says `security: []`."""
    doc["components"]["securitySchemes"] = SECURITY_SCHEMES
    doc["security"] = SIGNED
    for _, _, op in operations(doc):
        signed = bool(op.pop("security", None))
        if not signed:
            op["security"] = []
        headers = {"x-operator-id", "x-timestamp", "x-signature"}
        op["parameters"] = [p for p in op.get("parameters", []) if p["name"].lower() not in headers]
        if not op["parameters"]:
            del op["parameters"]


def _game_rounds(schemas: Doc) -> None:
    """Litestar drops the bounds of a game's `rounds` (a constrained int beside a literal): restore them, or a client
    reading the document sends 0 and meets a 400 (schemathesis found it)."""
    (count,) = [b for b in schemas["CreateGame"]["properties"]["rounds"]["oneOf"] if b.get("type") == "integer"]
    count.update(minimum=1, maximum=100)


def _problem(schemas: Doc) -> None:
    problem = schemas["Problem"]
    problem["properties"]["errors"] = {
        "type": "array",
        "items": {"$ref": "#/components/schemas/ProblemFieldError"},
        "description": "Validation errors only: one item per refused field.",
    }
    schemas["ProblemFieldError"] = {
        "type": "object",
        "title": "ProblemFieldError",
        "properties": {
            "key": {"type": "string", "description": "the field as sent: `bets[0].ante`, `from`, or `body`"},
            "message": {"type": "string", "description": "what is wrong with it"},
            "source": {
                "type": "string",
                "enum": ["body", "query", "path", "header"],
                "description": "where the field was (absent for the body)",
            },
        },
        "required": ["key", "message"],
    }


def _operations(doc: Doc) -> None:
    """Response headers on every response and a description on every operation."""
    for _, method, op in operations(doc):
        op.setdefault("description", op.get("summary", ""))
        for status, response in op.get("responses", {}).items():
            for media in response.get("content", {}).values():
                for example in media.get("examples", {}).values():
                    example.pop("id", None)  # Litestar writes its Example's key into it; OpenAPI has no such field
            headers = response.setdefault("headers", {})
            headers["X-Request-Id"] = HEADERS["X-Request-Id"]
            if method == "post" and status.startswith("2"):
                headers["Idempotent-Replayed"] = HEADERS["Idempotent-Replayed"]
            if any(p.status == int(status) and "retryable" in p.when for p in PROBLEM_CODES):
                headers["Retry-After"] = HEADERS["Retry-After"]


def _friends(doc: Doc) -> None:
    """The friends' routes are signed by no operator: a seat's token, or nothing for a spectator; they take no
    Idempotency-Key (a move names its version instead), and a join sets the seat's cookie."""
    doc["components"]["securitySchemes"].update(SEAT_SCHEMES)
    for path, method, op in operations(doc):
        if not path.startswith(FRIENDS):
            continue
        op["security"] = [] if (method, path) == ("post", "/v1/friends/tables") else SEAT_OR_NONE
        for status, response in op["responses"].items():
            response["headers"].pop("Idempotent-Replayed", None)
            if status == "201":
                response["headers"]["Set-Cookie"] = SET_COOKIE


def operations(doc: Doc) -> Iterator[tuple[str, str, Doc]]:
    for path, item in doc.get("paths", {}).items():
        for method in METHODS:
            if method in item:
                yield path, method, item[method]
