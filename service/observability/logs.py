"""One summary line per request on stdout (structlog JSON) and the HTTP metrics per route.

The line's level says who should look: a 5xx is the service's fault (error), a refused signature or role someone's
knocking on the door (warning), anything else info. It names the client's address, marks a reply that was an
idempotent replay (`"replay": true`), and carries the request id the reply's X-Request-Id header returns.
"""

from __future__ import annotations

import secrets
import time
from contextvars import ContextVar
from typing import Any

import structlog
from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, ReceiveMessage, Scope, Send

from service.observability import metrics

log = structlog.get_logger("reddog.http")
# Whether the client of the request this task answers has closed its connection: the server said http.disconnect.
_client_gone: ContextVar[bool] = ContextVar("client_gone", default=False)
_REPLAYED = (b"idempotent-replayed", b"true")  # a replayed reply's header, as Litestar and lean_routes send it


def client_gone() -> bool:
    """Whether the request being answered lost its client: what it failed on then was the client's going, no bug."""
    return _client_gone.get()


def client_address(scope: Any) -> str:
    """The client's address: the TCP peer's, or, from a peer in RD_TRUSTED_PROXIES, the one X-Forwarded-For names
    (uvicorn's proxy headers middleware, as `reddog serve` configures it, has rewritten scope["client"] by then)."""
    client = scope.get("client")
    return str(client[0]) if client else ""


def level_of(status: int) -> str:
    """The level a request's line is logged at: error for the service's faults, warning for a refused caller."""
    if status >= 500:
        return "error"
    return "warning" if status in (401, 403) else "info"


def request_logging(app: ASGIApp) -> ASGIApp:
    """ASGI middleware: a request id, one log line and the HTTP metrics for every request."""
    # Bound once, when create_app builds the app (after log_streams.configure): the module's lazy logger would build
    # a logger from the configuration again for every line. It writes to the stdout of that moment, as before.
    request_log = log.bind()

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return
        method = scope["method"]
        structlog.contextvars.clear_contextvars()
        request_id = _request_id(scope)
        structlog.contextvars.bind_contextvars(request_id=request_id)
        started = time.perf_counter()
        status = 500
        replayed = False
        gone = _client_gone.set(False)

        async def receive_wrapper() -> ReceiveMessage:
            message = await receive()
            if message["type"] == "http.disconnect":
                _client_gone.set(True)
            return message

        async def send_wrapper(message: Message) -> None:
            nonlocal status, replayed
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [*message.get("headers", ()), (b"x-request-id", request_id.encode())]
                replayed = _REPLAYED in headers
                message["headers"] = headers
            await send(message)

        try:
            await app(scope, receive_wrapper, send_wrapper)
        finally:
            elapsed = time.perf_counter() - started
            route = scope.get("path_template") or "unmatched"
            metrics.observe_request(method, route, status, elapsed)
            fields: dict[str, Any] = {"method": method, "path": scope["path"], "status": status}
            fields.update(duration_ms=round(elapsed * 1000, 2), remote_address=client_address(scope))
            if replayed:
                fields["replay"] = True
            getattr(request_log, level_of(status))("request", **fields)
            structlog.contextvars.clear_contextvars()
            _client_gone.reset(gone)

    return middleware


def _request_id(scope: Scope) -> str:
    for name, value in scope["headers"]:
        if name == b"x-request-id" and 0 < len(value) <= 64 and value.isascii():
            return value.decode()
    return secrets.token_hex(16)  # 32 hex digits like uuid4().hex, a quarter of its cost
