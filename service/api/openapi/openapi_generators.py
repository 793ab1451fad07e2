"""Steps of `openapi_polish` for the clients generated from the document (openapi-python-client, openapi-typescript):
what the server does says the same on the wire, but in the forms those generators read without special flags.

- `Problem.code` is open: the known codes are the `ProblemCode` enum, the field takes them or any other string, so
  a client generated today parses a code a later server adds instead of refusing the reply;
- `Idempotency-Key` is required on every POST that takes one, as the server requires it (a generated function then
  asks for it: a retry reuses the caller's key, never one a hook made up);
- a request body's defaults move into the fields' descriptions: openapi-typescript's default setting makes every
  property with a `default` required, which is right for replies and wrong for what a client may leave out;
- the audit export's JSON Lines are bytes (`format: binary`) of their own media type.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from service.problem_codes import CODES

Doc = dict[str, Any]
REF = "#/components/schemas/"
METHODS = ("get", "put", "post", "delete", "patch")
NDJSON = "application/x-ndjson"

PROBLEM_CODE = {
    "type": "string",
    "title": "ProblemCode",
    "enum": list(CODES),
    "description": "Every code this version of the service answers with (docs/api.md#errors says when). The list "
    "grows: `Problem.code` takes these or any other string, so treat a code you do not know by its `status`.",
}
OPEN_CODE = {
    "anyOf": [{"$ref": REF + "ProblemCode"}, {"type": "string"}],
    "description": "Stable and machine-readable: branch on it, not on `detail`. One of `ProblemCode` today; new codes "
    "may be added, so a client must accept any string here.",
}


def for_generators(doc: Doc) -> None:
    """Every step of this module, in order."""
    schemas = doc["components"]["schemas"]
    schemas["ProblemCode"] = PROBLEM_CODE
    schemas["Problem"]["properties"]["code"] = OPEN_CODE
    _idempotency_key_required(doc)
    _request_defaults_described(doc)
    _ndjson_bytes(doc)


def _operations(doc: Doc) -> Iterator[tuple[str, str, Doc]]:
    for path, item in doc["paths"].items():
        for method in METHODS:
            if method in item:
                yield path, method, item[method]


def _idempotency_key_required(doc: Doc) -> None:
    for _, _, op in _operations(doc):
        for param in op.get("parameters", []):
            if param["in"] == "header" and param["name"].lower() == "idempotency-key":
                param["required"] = True


def _refs(node: Any) -> Iterator[str]:
    text = json.dumps(node)
    for piece in text.split('"$ref": "' + REF)[1:]:
        yield piece.split('"', 1)[0]


def _reachable(schemas: Doc, roots: set[str]) -> set[str]:
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(_refs(schemas[name]))
    return seen


def _request_defaults_described(doc: Doc) -> None:
    """Only the schemas a request body reaches and no reply does: a reply's defaults stay (a field with one is always
    sent, so required there is true)."""
    schemas = doc["components"]["schemas"]
    bodies: set[str] = set()
    replies: set[str] = set()
    for _, _, op in _operations(doc):
        bodies.update(_refs(op.get("requestBody", {})))
        replies.update(_refs(op.get("responses", {})))
    for name in _reachable(schemas, bodies) - _reachable(schemas, replies):
        for prop in schemas[name].get("properties", {}).values():
            if "default" in prop:
                default = json.dumps(prop.pop("default"))
                described = prop.get("description", "").rstrip(".")
                prop["description"] = f"{described}; absent: `{default}`" if described else f"absent: `{default}`"


def _ndjson_bytes(doc: Doc) -> None:
    for _, _, op in _operations(doc):
        for response in op.get("responses", {}).values():
            media = response.get("content", {}).get(NDJSON)
            if media is not None:
                media["schema"] = {"type": "string", "format": "binary", "contentMediaType": NDJSON}
