"""In Between routes: the released rule sets (public, like the paytables) and the games (signed, idempotent)."""

from __future__ import annotations

import functools
from typing import Annotated, Any
from uuid import UUID

from litestar import Request, Response, Router, get, post
from litestar.params import FromPath, QueryParameter

from paytables.inbetween import inbetween_rules
from service.api import inbetween_presenters as presenters
from service.api import inbetween_wire as wire
from service.api.auth import authenticate
from service.api.bodies import body, body_of
from service.api.openapi import openapi_docs
from service.api.openapi.openapi_docs import KEY, IdempotencyKey
from service.api.presenters import encode
from service.api.query_values import MAX_SEQ
from service.api.replies import read, write
from service.db.unit_of_work import KEY_IN_READ
from service.errors import not_found
from service.use_cases import inbetween_use_cases
from service.use_cases.inbetween_use_cases import GameView

# What each problem status means on these routes (the Red Dog routes document their own codes).
ERRORS = {
    400: "VALIDATION_ERROR (malformed JSON, unknown field, wrong type, bad query, no seats or more than 8), "
    "DUPLICATE_JSON_KEY, "
    "IDEMPOTENCY_KEY_REQUIRED or DUPLICATE_HEADER",
    401: "UNAUTHENTICATED: missing or invalid X-Operator-Id / X-Timestamp / X-Signature",
    403: "FORCED_CARDS_NOT_ALLOWED: test games and forced cards need RD_ALLOW_TEST_TABLES=true and mode test",
    404: "NOT_FOUND: no such rule set or game (for this operator)",
    413: "BODY_TOO_LARGE: the body is over RD_MAX_BODY_BYTES (64 KiB by default)",
    415: "UNSUPPORTED_MEDIA_TYPE: the body is not sent as Content-Type: application/json",
    422: "VALIDATION_ERROR (unknown rule set, a seat with neither player_id nor computer, forced cards the pack "
    "cannot hold), INVALID_GAME (players, ante or rounds the rule set does not offer), BET_OVER_POT, BET_OVER_CHIPS, "
    "BET_BELOW_MINIMUM, IMPOSSIBLE_CALL (higher than aces, lower than twos), PASS_NOT_ALLOWED (a pass where the rule "
    "set's `pass` is `never`), STOP_NOT_ALLOWED (an agreement to stop where the rule set has no `stop_by_agreement`), "
    "BUY_NOT_ALLOWED (a buy where the rule set has no `buy_chips`), BUY_OVER_LIMIT (a buy over what its `limit` "
    "leaves the player)",
    503: "SERVICE_UNAVAILABLE: the database is unreachable or contended; retryable",
}
SIGNED = (400, 401, 503)
responses = functools.partial(openapi_docs.responses, meanings=ERRORS)
JSON_BODY = (413, 415)  # routes that read a JSON body


def _present(view: GameView) -> bytes:
    return encode(presenters.game_out(view))


@get("/", responses=responses(200, wire.RuleSetList, 400), summary="List the released In Between rule sets")
async def list_rulesets() -> wire.RuleSetList:
    return wire.RuleSetList(items=[presenters.ruleset_out(r) for r in inbetween_rules.released().values()])


@get(
    "/{name:str}/{version:str}",
    responses=responses(200, wire.RuleSetOut, 400, 404),
    summary="One released rule set: /v1/inbetween/rulesets/nepal/v1 is the rule set inbetween/nepal/v1",
)
async def get_ruleset(name: FromPath[str], version: FromPath[str]) -> wire.RuleSetOut:
    ruleset = inbetween_rules.released().get(f"inbetween/{name}/{version}")
    if ruleset is None:
        raise not_found("rule set")
    return presenters.ruleset_out(ruleset)


rulesets_router = Router(
    path="/v1/inbetween/rulesets", route_handlers=[list_rulesets, get_ruleset], tags=["in between rule sets"]
)


@post(
    "/",
    status_code=201,
    responses=responses(201, wire.GameOut, *SIGNED, *JSON_BODY, 403, 422, conflicts=KEY),
    summary="Start an In Between game: seat the players, take the antes, deal, play the computer seats",
    **body(wire.CreateGame),
)
async def create_game(request: Request[Any, Any, Any], idempotency_key: IdempotencyKey) -> Response[bytes]:
    new = presenters.new_game(body_of(request))
    return await write(request, 201, lambda unit: inbetween_use_cases.create_game(unit, new), _present)


@post(
    "/{game_id:uuid}/actions",
    operation_id="actInGame",
    status_code=200,
    responses=responses(
        200,
        wire.GameOut,
        *SIGNED,
        *JSON_BODY,
        404,
        422,
        conflicts=(*KEY, "STALE_VERSION", "NOT_YOUR_TURN", "WRONG_ACTION", "GAME_OVER"),
    ),
    summary="The player to act calls an ace or a pair, bets or passes; then the computer seats play",
    **body(wire.ActionIn),
)
async def act(
    request: Request[Any, Any, Any], game_id: FromPath[UUID], idempotency_key: IdempotencyKey
) -> Response[bytes]:
    body = body_of(request)
    action = presenters.action(body)
    work = lambda unit: inbetween_use_cases.act(unit, game_id, action, body.version)  # noqa: E731
    return await write(request, 200, work, _present, KEY_IN_READ)


@get(
    "/{game_id:uuid}",
    responses=responses(200, wire.GameOut, *SIGNED, 404),
    summary="One game's public state (or one seat's view, with its face-down posts), with the exact odds to act on",
)
async def get_game(
    request: Request[Any, Any, Any],
    game_id: FromPath[UUID],
    seat: Annotated[
        int | None,
        QueryParameter(ge=0, le=7, description="the game as this seat sees it: its own face-down posts and odds"),
    ] = None,
) -> wire.GameOut:
    return presenters.game_out(await read(request, lambda unit: inbetween_use_cases.get_game(unit, game_id, seat)))


@get(
    "/{game_id:uuid}/records",
    responses=responses(200, wire.GameRecordPage, *SIGNED, 404),
    summary="The game's audit records in order: every card, call, bet and chip movement, hash-chained",
)
async def game_records(
    request: Request[Any, Any, Any],
    game_id: FromPath[UUID],
    after: Annotated[int, QueryParameter(ge=0, le=MAX_SEQ, description="the last seq already read")] = 0,
    limit: Annotated[int, QueryParameter(ge=1, le=1000)] = 500,
) -> wire.GameRecordPage:
    # One more than asked tells whether there is a next page.
    links = await read(request, lambda unit: inbetween_use_cases.game_records(unit, game_id, after, limit + 1))
    return presenters.record_page(links, limit)


games_router = Router(
    path="/v1/inbetween/games",
    route_handlers=[create_game, act, get_game, game_records],
    before_request=authenticate,
    security=[{"signature": []}],  # documented as security schemes (service/api/openapi/openapi_polish.py)
    tags=["in between games"],
)
routers = [rulesets_router, games_router]
