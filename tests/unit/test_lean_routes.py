"""A route answered by its middleware sends what its Litestar handler would: the same status, headers and bytes."""

from __future__ import annotations

from typing import Any

import pytest
from litestar import Litestar, Request, Response, post
from litestar.params import FromPath

from service.api.replies import as_response
from service.db.unit_of_work import Reply
from service.errors import ApiError, exception_handlers
from service.runtime.lean_routes import answered_by

REPLIES = {"first": Reply(status=201, body=b'{"a":1}'), "replay": Reply(status=201, body=b'{"a":1}', replayed=True)}


async def _reply(_: Request[Any, Any, Any], path: dict[str, Any]) -> Reply:
    if path["name"] == "refused":
        raise ApiError(409, "ROUND_IN_PROGRESS", "a round is already open")
    return REPLIES[path["name"]]


@post("/handler/{name:str}", status_code=201)
async def by_handler(request: Request[Any, Any, Any], name: FromPath[str]) -> Response[bytes]:
    return as_response(await _reply(request, {"name": name}))


@post("/lean/{name:str}", status_code=201, middleware=[answered_by(_reply)])
async def by_middleware(name: FromPath[str]) -> Response[bytes]:
    raise AssertionError("the middleware answers this route")


async def _messages(path: str) -> list[dict[str, Any]]:
    app = Litestar([by_handler, by_middleware], exception_handlers=exception_handlers())
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": path, "raw_path": path.encode(), "query_string": b"",
             "headers": [], "http_version": "1.1", "scheme": "http", "server": ("test", 80), "client": ("c", 1),
             "root_path": "", "asgi": {"version": "3.0"}, "state": {}}  # fmt: skip
    await app(scope, receive, send)  # type: ignore[arg-type]
    return sent


@pytest.mark.parametrize("name", ["first", "replay", "refused"])
async def test_the_middleware_sends_the_status_headers_and_bytes_the_handler_would(name: str) -> None:
    lean = await _messages(f"/lean/{name}")
    assert lean == await _messages(f"/handler/{name}")
    assert lean[0]["status"] == {"first": 201, "replay": 201, "refused": 409}[name]
