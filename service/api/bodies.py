"""Request bodies, decoded once and strictly by our own code (Litestar's lenient pass would take "10" for 10).

A route names its body type with `body(T)`: that records the type for `decode_body` and documents it in the
OpenAPI schema through a dependency that is declared but never resolved (the handler does not ask for it), so
Litestar neither decodes nor converts the body a second time.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec
from litestar import Request
from litestar.di import Provide
from litestar.handlers import BaseRouteHandler

from service.api.json_keys import repeated_key
from service.errors import ApiError

_KEY = "body"
_OPTIONAL = "body_optional"
# The deepest body a route takes nests 3 levels ({"bets": [{...}]}). msgspec descends one C call per level and, past
# the interpreter's recursion limit (about 1,000), raises RecursionError, which is no DecodeError: it was a 500.
MAX_DEPTH = 32
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')  # a JSON string, escapes and all: its brackets are text
_BRACKET = re.compile(rb"[][{}]")


def body(model: Any, *, optional: bool = False) -> dict[str, Any]:
    """Route decorator keywords: `@post(..., **body(wire.CreateTable))`; an `optional` body may be left empty
    (Litestar documents every body as required: `openapi_docs.optional_body` says otherwise)."""

    def documented_body(data: Any) -> None:  # pragma: no cover - never resolved: it only shapes the schema
        raise AssertionError("documentation only")

    documented_body.__annotations__ = {"data": model, "return": None}
    dependencies = {"documented_body": Provide(documented_body, sync_to_thread=False)}
    return {"opt": {_KEY: model, _OPTIONAL: optional}, "dependencies": dependencies}


def declared_body(handler: BaseRouteHandler) -> Any:
    """The type a route declared with `body(T)`, or None when it takes no body: what decode_body reads, and what a
    test that throws bodies at every route asks."""
    return handler.opt.get(_KEY)


async def decode_body(request: Request[Any, Any, Any]) -> None:
    """Decode the route's body strictly into its type and keep it on the request: a body that is not declared JSON is
    a 415, a bad body or one that repeats a key is a 400. An optional body left empty needs no Content-Type."""
    model = declared_body(request.route_handler)
    if model is None:
        return
    raw = await request.body()  # already read, within the size limit, to check the signature
    if not raw and request.route_handler.opt.get(_OPTIONAL):
        request.state.body = None
        return
    refuse_unless_json(request.headers.get("content-type"))
    refuse_deep_nesting(raw)
    try:
        request.state.body = msgspec.json.decode(raw, type=model, strict=True)
    except msgspec.ValidationError as exc:
        refuse_repeated_key(raw)  # a repeated key explains a refused value better (`"action":"call","action":"raise"`)
        message, _, where = str(exc).partition(" - at `")
        key = where.rstrip("`").removeprefix("$.") or "body"
        raise ApiError(
            400, "VALIDATION_ERROR", f"{key}: {message}", errors=[{"message": message, "key": key}]
        ) from None
    except msgspec.DecodeError as exc:
        raise ApiError(400, "VALIDATION_ERROR", f"the body is not valid JSON: {exc}") from None
    refuse_repeated_key(raw)


def refuse_deep_nesting(raw: bytes) -> None:
    """Refuse a body whose arrays and objects nest deeper than MAX_DEPTH, at a stated depth rather than wherever the
    decoder's recursion gives out; a body with too few brackets to nest that deep (every real one) is not scanned."""
    if raw.count(b"[") + raw.count(b"{") <= MAX_DEPTH:
        return
    depth = 0
    for bracket in _BRACKET.findall(_STRING.sub(b"", raw)):
        depth += 1 if bracket in b"[{" else -1
        if depth > MAX_DEPTH:
            raise ApiError(400, "VALIDATION_ERROR", f"the body nests arrays and objects deeper than {MAX_DEPTH}")


def refuse_repeated_key(raw: bytes) -> None:
    """msgspec keeps the last of a repeated key silently: refuse the body rather than guess what was meant."""
    if (key := repeated_key(raw)) is not None:
        raise ApiError(400, "DUPLICATE_JSON_KEY", f"the body gives the key {key!r} twice in one object")


def refuse_unless_json(content_type: str | None) -> None:
    """The body must be declared JSON (UTF-8, as RFC 8259 requires): a form or text a client did not mean as JSON is
    never read as such."""
    media_type, *parameters = (content_type or "").lower().split(";")
    charset = dict(p.strip().partition("=")[::2] for p in parameters).get("charset", "utf-8").strip('"')
    if media_type.strip() != "application/json" or charset not in ("utf-8", "utf8"):
        raise ApiError(415, "UNSUPPORTED_MEDIA_TYPE", "the body must be sent as Content-Type: application/json")


def body_of(request: Request[Any, Any, Any]) -> Any:
    """The body `decode_body` decoded, of the type the route declared with `body(T)` (None: an empty optional one)."""
    return request.state.body
