"""Which routes of a built app the lean path answers (service/runtime/lean_routes.py), found as Litestar routes them."""

from __future__ import annotations

from litestar import Litestar
from litestar.handlers import HTTPRouteHandler
from litestar.routes import HTTPRoute

from service.runtime.lean_routes import is_lean

# The two requests of every round: what lean_routes exists to serve, and all it serves.
HOT_ROUTES = {"POST /v1/tables/{table_id:uuid}/rounds", "POST /v1/rounds/{round_id:uuid}/decisions"}


def served_lean(app: Litestar) -> dict[str, HTTPRouteHandler]:
    """Each registered handler whose middleware, from the app's layer down to its own, includes `answered_by`'s."""
    return {
        f"{method} {route.path}": handler
        for route in app.routes
        if isinstance(route, HTTPRoute)
        for handler in route.route_handlers
        if any(is_lean(middleware) for middleware in handler.resolve_middleware())
        for method in sorted(handler.http_methods)
    }
