"""The two requests of every round (open, decide) answered without Litestar's per-request machinery.

A round costs two signed POSTs, so what the framework does around them is paid twice a round: a handler's
signature model, keyword parsing and dependency resolution, a Response turned into an ASGI response with its
headers built anew. These routes keep their Litestar handlers (routing, the OpenAPI document, the exception map)
but a route middleware answers them itself: the route's guards and `before_request` hook (signature check, body
decoded once), the use case, and the reply's bytes sent as they are. An exception takes Litestar's own way (an
ExceptionHandlerMiddleware, as Litestar puts between every route and its middleware), so a refusal is the same
problem document either way.
"""

from __future__ import annotations

import copy
from collections.abc import Awaitable, Callable
from typing import Any

from litestar import Request
from litestar._asgi.utils import wrap_in_exception_handler  # Litestar's own wrapping of a route (pinned version)
from litestar.handlers import HTTPRouteHandler
from litestar.middleware import DefineMiddleware
from litestar.types import ASGIApp, Middleware, Receive, Scope, Send

from service.db.unit_of_work import Reply

Answer = Callable[[Request[Any, Any, Any], dict[str, Any]], Awaitable[Reply]]
_JSON = (b"content-type", b"application/json")
_REPLAYED = (b"idempotent-replayed", b"true")


def answered_by(answer: Answer) -> DefineMiddleware:
    """Route decorator keyword: `@post(..., middleware=[answered_by(f)])`; `f(request, path_params)` makes the reply
    (the handler, for the schema and for any other caller, makes the same one through `as_response`)."""
    return DefineMiddleware(_lean_route, answer=answer)


def _lean_route(app: ASGIApp, answer: Answer) -> ASGIApp:
    del app  # the route's handler: never called for this route, the middleware answers

    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        handler: HTTPRouteHandler = scope["route_handler"]  # type: ignore[assignment]  # an HTTP route's
        request: Request[Any, Any, Any] = Request(scope, receive, send)
        if handler.resolve_guards():
            await handler.authorize_connection(connection=request)
        if (before := handler.resolve_before_request()) is not None:
            await before(request)  # authenticate: it answers only by raising
        reply = await answer(request, scope["path_params"])
        # Litestar's headers for Response(bytes, media_type="application/json", headers=...), in its order.
        headers = [_JSON, (b"content-length", str(len(reply.body)).encode())]
        if reply.replayed:
            headers.insert(0, _REPLAYED)
        await send({"type": "http.response.start", "status": reply.status, "headers": headers})
        await send({"type": "http.response.body", "body": reply.body, "more_body": False})

    return wrap_in_exception_handler(route)


def is_lean(middleware: Middleware) -> bool:
    """Whether a route's middleware is `answered_by`'s: the one that answers the route instead of its handler."""
    return isinstance(middleware, DefineMiddleware) and middleware.middleware is _lean_route


def by_handler(handler: HTTPRouteHandler) -> HTTPRouteHandler:
    """The same route answered by its Litestar handler (a copy without `answered_by`): the path the lean one must
    match byte for byte, which an app built with `lean=False` serves for the tests that compare the two."""
    own = handler.middleware or []
    if not any(is_lean(middleware) for middleware in own):
        return handler
    plain = copy.copy(handler)  # as Litestar copies a handler it registers; the original keeps its middleware
    plain.middleware = [middleware for middleware in own if not is_lean(middleware)]
    return plain
