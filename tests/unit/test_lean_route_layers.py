"""A hot route has nothing the lean path would skip: its layers (app, routers, handler) set only what
service/runtime/lean_routes.py honours, so answering it lean cannot drop a hook, a header or a middleware.

The lean route runs the layered guards, the `before_request` hook (which must answer only by raising) and the
middleware outside its own; it sends the reply's bytes with its own headers. Everything else Litestar would apply
between a route's middleware and the Response it sends is listed here, and must be unset on every hot route.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from litestar import Litestar, Request, Router
from litestar.background_tasks import BackgroundTask
from litestar.config.allowed_hosts import AllowedHostsConfig
from litestar.config.compression import CompressionConfig
from litestar.config.csrf import CSRFConfig
from litestar.connection import ASGIConnection
from litestar.datastructures import CacheControlHeader, Cookie, ResponseHeader
from litestar.di import Provide
from litestar.handlers import BaseRouteHandler, HTTPRouteHandler
from litestar.types import ASGIApp, Receive, Scope, Send

from service.api import round_routes
from service.api.auth import authenticate
from service.app import build_app
from service.errors import exception_handlers
from service.observability import logs
from service.runtime.lean_routes import is_lean
from tests.support.lean_paths import HOT_ROUTES, served_lean

DOCUMENTATION_ONLY = {"documented_body"}  # api/bodies.body(): declared for the schema, never resolved


def skipped(app: Litestar, handler: HTTPRouteHandler) -> list[str]:
    """What the app or the handler's layers set that the lean path would not do for this route."""
    found = [name for name, is_set in _hooks(handler).items() if is_set]
    found += [name for name, is_set in _stack(app, handler).items() if is_set]
    return found


def _hooks(handler: HTTPRouteHandler) -> dict[str, bool]:
    """The per-route work of Litestar's handler path: hooks, headers, cookies, dependencies, the Request's class."""
    return {
        "after_request": any(layer.after_request for layer in handler.ownership_layers),
        "after_response": handler.resolve_after_response() is not None,
        "a before_request hook that may answer": handler.resolve_before_request() not in (authenticate, None),
        "response headers": bool(handler.resolve_response_headers()),  # cache_control and etag included
        "response cookies": bool(handler.resolve_response_cookies()),
        "a background task": handler.background is not None,
        "dependencies": set(handler.resolve_dependencies()) != DOCUMENTATION_ONLY,
        "a return DTO": handler.resolve_return_dto() is not None,
        "a request class of its own": handler.resolve_request_class() is not Request,
    }


def _stack(app: Litestar, handler: HTTPRouteHandler) -> dict[str, bool]:
    """What Litestar puts between a route's own middleware and its handler, which the lean middleware never calls."""
    middleware = handler.resolve_middleware()  # innermost first
    # Tested for truth, as Litestar's build_route_middleware_stack tests them (allowed_hosts is [] when unset).
    return {
        "middleware inside answered_by": not is_lean(middleware[0]),
        "answered_by twice": sum(map(is_lean, middleware)) != 1,
        "the response cache": bool(handler.cache),
        "CSRF": bool(app.csrf_config),
        "compression": bool(app.compression_config),
        "allowed hosts": bool(app.allowed_hosts),
    }


def test_the_lean_path_serves_exactly_the_two_requests_of_a_round() -> None:
    assert set(served_lean(build_app(65_536))) == HOT_ROUTES


@pytest.mark.parametrize("route", sorted(HOT_ROUTES))
def test_a_hot_route_of_the_real_app_sets_nothing_the_lean_path_would_skip(route: str) -> None:
    app = build_app(65_536)
    assert skipped(app, served_lean(app)[route]) == []


async def _after_request(response: Any) -> Any:
    """An after_request hook: the handler path passes the Response through it, the lean path has none to pass."""
    return response


async def _hook(request: Request[Any, Any, Any]) -> None:
    """A request hook (after_response, or a before_request other than `authenticate`)."""
    del request


async def _guard(connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler) -> None:
    """A guard: the lean route runs the layered guards, as Litestar's route does."""
    del connection, handler


def _outer(app: ASGIApp) -> ASGIApp:
    """A middleware that only passes the request on: it runs if it wraps answered_by, and is skipped inside it."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        await app(scope, receive, send)

    return middleware


def _provided() -> int:
    return 1


async def _later() -> None:
    """A background task: Litestar's handler path runs it after the response, the lean path never would."""


class _OwnRequest(Request[Any, Any, Any]):
    pass


def _handler(**changes: Any) -> HTTPRouteHandler:
    """The real open-a-round handler, copied with `changes` (as a future edit of its decorator would set them)."""
    handler = copy.copy(round_routes.create_round)
    for name, value in changes.items():
        setattr(handler, name, value)
    return handler


def _variant(router: dict[str, Any], application: dict[str, Any], handler: HTTPRouteHandler) -> Litestar:
    """The hot route in a small app built as service/app.py builds the real one, with a layer changed."""
    signed = Router(path="/v1", route_handlers=[handler], before_request=authenticate, **router)
    layers = {"exception_handlers": exception_handlers(), "middleware": [logs.request_logging], **application}
    return Litestar(route_handlers=[signed], **layers)


LEAN_ONLY = round_routes.create_round.middleware or []
VARIANTS = [
    ("after_request", {"after_request": _after_request}, {}, {}),
    ("after_response", {}, {"after_response": _hook}, {}),
    ("a before_request hook that may answer", {}, {}, {"before_request": _hook}),
    ("response headers", {"response_headers": [ResponseHeader(name="x-extra", value="1")]}, {}, {}),
    ("response headers", {"cache_control": CacheControlHeader(no_store=True)}, {}, {}),
    ("response cookies", {}, {"response_cookies": [Cookie(key="seen", value="1")]}, {}),
    ("a background task", {}, {}, {"background": BackgroundTask(_later)}),
    ("dependencies", {"dependencies": {"extra": Provide(_provided, sync_to_thread=False)}}, {}, {}),
    ("dependencies", {}, {"dependencies": {"extra": Provide(_provided, sync_to_thread=False)}}, {}),
    ("a request class of its own", {"request_class": _OwnRequest}, {}, {}),
    ("middleware inside answered_by", {}, {}, {"middleware": [*LEAN_ONLY, _outer]}),
    ("the response cache", {}, {}, {"cache": True}),
    ("CSRF", {}, {"csrf_config": CSRFConfig(secret="s" * 32)}, {}),
    ("compression", {}, {"compression_config": CompressionConfig(backend="gzip")}, {}),
    ("allowed hosts", {}, {"allowed_hosts": AllowedHostsConfig(allowed_hosts=["example.com"])}, {}),
]


@pytest.mark.parametrize(("name", "router", "application", "changes"), VARIANTS, ids=[v[0] for v in VARIANTS])
def test_a_hot_route_that_gains_what_the_lean_path_skips_is_named(
    name: str, router: dict[str, Any], application: dict[str, Any], changes: dict[str, Any]
) -> None:
    app = _variant(router, application, _handler(**changes))
    assert skipped(app, served_lean(app)["POST /v1/tables/{table_id:uuid}/rounds"]) == [name]


@pytest.mark.parametrize(
    ("router", "application"),
    [({}, {}), ({"guards": [_guard]}, {}), ({"middleware": [_outer]}, {}), ({}, {"middleware": [_outer]})],
    ids=["as built", "a guard", "router middleware", "app middleware"],
)
def test_a_guard_or_a_middleware_outside_answered_by_is_not_named_for_the_lean_path_runs_them(
    router: dict[str, Any], application: dict[str, Any]
) -> None:
    app = _variant(router, application, _handler())
    assert skipped(app, served_lean(app)["POST /v1/tables/{table_id:uuid}/rounds"]) == []
