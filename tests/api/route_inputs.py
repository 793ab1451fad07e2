"""What each route the app serves takes, read from the built app, and a valid request to each of them.

`served_routes` lists the routes as Litestar holds them: every method of every handler, with the names of its path
parameters, its query parameters (as sent: `from`, not `opened_from`) and whether it reads a body. `CASES` is
written by hand: for each route a valid value of every input, so that a test can spoil one input at a time and let
the spoiled value get as far as it can. A route served without a case, or a case that misses an input, is a gap.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from litestar import Litestar
from litestar.constants import RESERVED_KWARGS
from litestar.handlers import BaseRouteHandler, HTTPRouteHandler
from litestar.params import BodyKwarg, DependencyKwarg, ParameterKwarg, QueryParameter
from litestar.routes import BaseRoute, HTTPRoute

from service.api.bodies import declared_body


@dataclass(frozen=True)
class Served:
    """One method of one route, and the names of what it takes."""

    method: str  # an HTTP method, or the kind of a route that is not HTTP (websocket, asgi)
    path: str  # as Litestar holds it: /v1/rounds/{round_id:uuid}
    path_params: frozenset[str]
    query: frozenset[str]
    body: bool

    @property
    def key(self) -> str:
        return f"{self.method} {self.path}"


def reads_query(kwarg: Any) -> bool:
    """Whether a parameter so marked comes from the query string: unmarked, QueryParameter, or Parameter() with
    neither a header nor a cookie named."""
    if isinstance(kwarg, BodyKwarg | DependencyKwarg):
        return False
    if isinstance(kwarg, ParameterKwarg) and not isinstance(kwarg, QueryParameter):
        return type(kwarg) is ParameterKwarg and not kwarg.header and not kwarg.cookie
    return True


def query_names(handler: BaseRouteHandler, path_params: Iterable[str]) -> frozenset[str]:
    """The query parameters a handler takes, by the name a client sends. Litestar reads every parameter of the
    handler (and of its layers) that is not reserved, a path parameter, a header, a cookie, a body or a dependency
    from the query string, so a new one is listed whether or not it is marked QueryParameter."""
    skipped = RESERVED_KWARGS | set(path_params) | set(handler.resolve_dependencies())
    fields = {**handler.resolve_layered_parameters(), **handler.parsed_fn_signature.parameters}
    names = set()
    for name, definition in fields.items():
        kwarg = definition.kwarg_definition
        if name not in skipped and reads_query(kwarg):
            names.add(kwarg.name if isinstance(kwarg, ParameterKwarg) and kwarg.name else name)
    return frozenset(names)


def served(route: BaseRoute, handler: BaseRouteHandler) -> list[Served]:
    """The methods one handler of a route answers, each with its inputs."""
    path_params = frozenset(route.path_parameters)
    query = query_names(handler, path_params)
    takes_body = declared_body(handler) is not None or "data" in handler.parsed_fn_signature.parameters
    if not isinstance(handler, HTTPRouteHandler):
        return [Served(type(route).__name__.removesuffix("Route").lower(), route.path, path_params, query, takes_body)]
    # Litestar adds an OPTIONS handler to every path by itself: it takes nothing and touches nothing of ours.
    methods = sorted(handler.http_methods - {"OPTIONS"}) if handler.http_methods != {"OPTIONS"} else []
    return [Served(method, route.path, path_params, query, takes_body) for method in methods]


def served_routes(app: Litestar) -> list[Served]:
    """Every method of every route the app serves, with what each takes."""
    found = []
    for route in app.routes:
        handlers = route.route_handlers if isinstance(route, HTTPRoute) else [route.route_handler]
        for handler in handlers:
            found.extend(served(route, handler))
    return sorted(found, key=lambda s: s.key)


NO_BODY = None
# A valid value is a string; what is thrown at it follows from its kind: numbers for "10", times for a time, ids for
# an id. A placeholder is filled from a scene made for the test: a test table, an open round and its bet, a settled
# round, a game in play, a table with a signed checkpoint, the expiry and signature of a recall link to the settled
# round, and a history cursor.
SCENE = {
    "{table}": "uuid",
    "{round}": "uuid",
    "{bet}": "text",
    "{settled}": "uuid",
    "{game}": "uuid",
    "{version}": "number",
    "{signed_table}": "uuid",
    "{expires}": "number",
    "{sig}": "text",
    "{cursor}": "cursor",
    "{code}": "text",  # a friends' table waiting for its host, with a guest in seat 1
    "{played}": "text",  # a friends' table whose game waits for a person to pass
    "{held}": "text",  # a friends' table whose guest's seat the host handed to the computer
}


@dataclass(frozen=True)
class Case:
    """A valid request to a route: every path and query parameter and the body, each with a valid value."""

    path: dict[str, str] = field(default_factory=dict)
    query: dict[str, str] = field(default_factory=dict)
    required: tuple[str, ...] = ()  # query parameters every request sends; the others go only when spoiled
    body: Any = NO_BODY  # a JSON body (leaves may hold placeholders); NO_BODY: the route reads none
    bearer: str | None = None  # a friends' seat token the request acts by, as a placeholder of the scene

    def gaps(self, route: Served) -> list[str]:
        """What the route takes that this case gives no valid value for, and what it names that the route lacks."""
        found = [f"path parameter {n}" for n in sorted(route.path_params - set(self.path))]
        found += [f"query parameter {n}" for n in sorted(route.query - set(self.query))]
        found += [f"no such path parameter {n}" for n in sorted(set(self.path) - route.path_params)]
        found += [f"no such query parameter {n}" for n in sorted(set(self.query) - route.query)]
        if route.body and self.body is NO_BODY:
            found.append("its body")
        if not route.body and self.body is not NO_BODY:
            found.append("a body it does not read")
        return found


TABLE_BODY = {
    "name": "main",
    "paytable": "standard/v1",
    "currency": "EUR",
    "min_ante": 1,
    "max_ante": 1000,
    "decks": 6,
    "shoe_policy": "cut_card",
    "penetration": 75,
    "max_bets": 7,
    "raise_window_seconds": 15,
    "mode": "test",
    "deal": "shared",
}
GAME_BODY = {
    "ruleset": "inbetween/nepal/v1",
    "ante": 5,
    "rounds": 5,
    "seats": [{"player_id": "a"}, {"player_id": "b", "computer": False}],
    "mode": "test",
    "forced_cards": ["4S", "JH"],
}
TIME = "2026-05-01T12:00:00Z"
ROUND = {"round_id": "{round}"}
SETTLED = {"round_id": "{settled}"}


HISTORY = {
    "table_id": "{table}",
    "player_id": "alice",
    "status": "settled",
    **dict.fromkeys(("from", "to", "settled_from", "settled_to"), TIME),
    "limit": "10",
    "cursor": "{cursor}",
}


FRIENDS = "/v1/friends/tables/{code:str}"


def friends_cases() -> dict[str, Case]:
    """The friends' tables' routes, each with the seat token it acts by (the host's, a guest's, the one to act)."""
    code, played, held = {"code": "{code}"}, {"code": "{played}"}, {"code": "{held}"}
    return {
        "POST /v1/friends/tables": Case(
            body={"name": "Sita", "ruleset": "inbetween/nepal/v1", "rounds": 5, "ante": 5, "seats": 4,
                  "turn_seconds": 30, "bearer": True}
        ),
        f"GET {FRIENDS}": Case(path=code, query={"after": "0"}, bearer="{guest}"),
        f"POST {FRIENDS}/join": Case(path=code, body={"name": "राम", "bearer": True}),
        f"POST {FRIENDS}/start": Case(
            path=code, body={"computers": [{"seat": 3, "personality": "bold", "endgame_tip": True}]}, bearer="{host}"
        ),
        f"POST {FRIENDS}/moves": Case(path=played, body={"action": "pass", "version": "{version}"}, bearer="{mover}"),
        f"POST {FRIENDS}/leave": Case(path=code, body={}, bearer="{guest}"),
        f"POST {FRIENDS}/back": Case(path=held, body={}, bearer="{held_guest}"),
        f"POST {FRIENDS}/seats/{{seat:int}}/computer": Case(
            path={**code, "seat": "1"}, body={"personality": "cautious", "endgame_tip": False}, bearer="{host}"
        ),
        f"POST {FRIENDS}/seats/{{seat:int}}/person": Case(path={**held, "seat": "1"}, body={}, bearer="{held_host}"),
        f"POST {FRIENDS}/reactions": Case(path=code, body={"reaction": "namaste"}, bearer="{guest}"),
        f"GET {FRIENDS}/events": Case(path=code, bearer="{guest}"),
        f"GET {FRIENDS}/records": Case(path=played, query={"after": "0", "limit": "10"}),
    }  # fmt: skip


def cases() -> dict[str, Case]:
    """A valid request to every route, by its key."""
    return friends_cases() | {
        "GET /health/live": Case(),
        "GET /health/ready": Case(),
        "GET /recall/{round_id:uuid}": Case(
            path=SETTLED,
            query={"expires": "{expires}", "sig": "{sig}", "player": "alice"},
            required=("expires", "sig", "player"),
        ),
        "GET /play/inbetween": Case(),
        "GET /play/inbetween/replay": Case(),
        "GET /play/static/{path:path}": Case(path={"path": "play/play.css"}),
        "GET /schema": Case(),
        "GET /schema/oauth2-redirect.html": Case(),
        "GET /schema/openapi.json": Case(),
        "GET /schema/redoc": Case(),
        "GET /schema/redoc-assets/redoc.standalone.js": Case(),
        "GET /schema/swagger": Case(),
        "GET /schema/swagger-ui/{name:str}": Case(path={"name": "swagger-ui.css"}),
        "GET /schema/{path:str}": Case(path={"path": "openapi.json"}),
        "GET /v1/audit/checkpoints/latest": Case(query={"table_id": "{signed_table}"}, required=("table_id",)),
        "GET /v1/audit/consistency": Case(
            query={"table_id": "{signed_table}", "from": "1", "to": "2"}, required=("table_id", "from")
        ),
        "GET /v1/audit/public-key": Case(),
        "GET /v1/audit/records": Case(
            query={"table_id": "{table}", "after_seq": "0", "after_table": "{table}", "limit": "10"}
        ),
        "GET /v1/inbetween/games/{game_id:uuid}": Case(path={"game_id": "{game}"}, query={"seat": "0"}),
        "GET /v1/inbetween/games/{game_id:uuid}/records": Case(
            path={"game_id": "{game}"}, query={"after": "0", "limit": "10"}
        ),
        "GET /v1/inbetween/rulesets": Case(),
        "GET /v1/inbetween/rulesets/{name:str}/{version:str}": Case(path={"name": "nepal", "version": "v1"}),
        "GET /v1/notifications": Case(query={"after": "0", "limit": "10"}),
        "GET /v1/outbox/dead-letters": Case(query={"limit": "10"}),
        "GET /v1/paytables": Case(),
        "GET /v1/paytables/{name:str}/{version:str}": Case(
            path={"name": "standard", "version": "v1"}, query={"decks": "6"}
        ),
        "GET /v1/players/{player_id:str}/rounds": Case(path={"player_id": "alice"}, query={"limit": "10"}),
        "GET /v1/reports/rtp": Case(
            query={"from": TIME, "to": TIME, "paytable": "standard/v1", "table_id": "{table}", "mode": "test"}
        ),
        "GET /v1/rounds": Case(query=HISTORY),
        "GET /v1/rounds/{round_id:uuid}": Case(path=ROUND),
        "GET /v1/rounds/{round_id:uuid}/proof": Case(path=SETTLED),
        "GET /v1/tables": Case(),
        "GET /v1/tables/{table_id:uuid}": Case(path={"table_id": "{table}"}),
        "POST /v1/inbetween/games": Case(body=GAME_BODY),
        "POST /v1/inbetween/games/{game_id:uuid}/actions": Case(
            path={"game_id": "{game}"}, body={"action": "bet", "player_id": "b", "version": "{version}", "amount": 5}
        ),
        "POST /v1/rounds/{round_id:uuid}/close": Case(path=ROUND, body={"requested_by": "pit boss 7"}),
        "POST /v1/rounds/{round_id:uuid}/decisions": Case(
            path=ROUND, body={"bet_id": "{bet}", "action": "raise", "amount": 5}
        ),
        "POST /v1/rounds/{round_id:uuid}/recall-link": Case(
            path=SETTLED, body={"player_id": "alice", "ttl_seconds": 3600}
        ),
        "POST /v1/rounds/{round_id:uuid}/rollback": Case(path=SETTLED, body={"reason": "wallet debit failed"}),
        "POST /v1/rounds/{round_id:uuid}/void": Case(
            path=ROUND, body={"reason": "misdeal", "requested_by": "ticket 42"}
        ),
        "POST /v1/tables": Case(body=TABLE_BODY),
        "POST /v1/tables/{table_id:uuid}/close": Case(path={"table_id": "{table}"}),
        "POST /v1/tables/{table_id:uuid}/rounds": Case(
            path={"table_id": "{table}"},
            body={"bets": [{"player_id": "alice", "ante": 10}], "forced_cards": ["4S", "TH"]},
        ),
    }
