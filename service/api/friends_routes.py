"""`/v1/friends/tables`: In Between with friends, public (no operator signs it). A table has a code to read aloud and a
link to send; each phone holds its seat's token (an HttpOnly cookie, or `Authorization: Bearer`); every change is
pushed to every phone as a hint over Server-Sent Events. docs/friends-api.md is the contract."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, TypeVar

from litestar import Request, Response, Router, get, post
from litestar.datastructures import Cookie
from litestar.handlers import HTTPRouteHandler
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, QueryParameter
from litestar.response import ServerSentEvent

from service.api import friends_presenters as presenters
from service.api import friends_wire as wire
from service.api import inbetween_presenters
from service.api.bodies import body, body_of, decode_body
from service.api.inbetween_wire import GameRecordPage
from service.api.openapi import openapi_docs
from service.api.presenters import encode
from service.api.query_values import MAX_SEQ
from service.db.unit_of_work import UnitOfWork, run
from service.errors import ApiError
from service.observability.logs import client_address
from service.runtime import friends_push, http_protocol
from service.settings import FRIENDS_OPERATOR, Settings
from service.use_cases import friends_join_use_cases as joining
from service.use_cases import friends_play_use_cases as play
from service.use_cases import friends_reaction_use_cases as reactions
from service.use_cases import friends_seat_use_cases as seating
from service.use_cases import friends_use_cases as tables
from service.use_cases.friends_use_cases import NewTable, TableView, hint_of

T = TypeVar("T")
SEAT_COOKIE = "rd_seat"
MAX_BODY_BYTES = 4096  # the largest body these routes take is a start with eight computers: under 1 KiB
COOKIE_SECONDS = 7 * 86_400
NO_CODE = "-"  # what a path that is no code looks up: it matches no table, and counts as a miss
ERRORS = {
    400: "VALIDATION_ERROR (malformed JSON, unknown field, wrong type, a control character in a name), "
    "DUPLICATE_JSON_KEY",
    401: "SEAT_TOKEN_REQUIRED (no seat token: its cookie, or Authorization: Bearer), SEAT_TOKEN_INVALID (a token "
    "for no seat of this table, or one whose player left)",
    403: "NOT_HOST: only the table's host may do this",
    404: "NOT_FOUND: no open table has this code (or no such seat); FRIENDS_DISABLED: this server does not serve "
    "the friends' tables (RD_FRIENDS)",
    413: "BODY_TOO_LARGE: the body is over 4 KiB",
    415: "UNSUPPORTED_MEDIA_TYPE: the body is not sent as Content-Type: application/json",
    422: "VALIDATION_ERROR (a name with a format character, an unknown rule set), INVALID_GAME (ante, rounds or "
    "seats the rule set does not offer), BET_OVER_POT, BET_OVER_CHIPS, BET_BELOW_MINIMUM, IMPOSSIBLE_CALL",
    429: "RATE_LIMITED: too many tables from this address this hour, joins this minute (from this address or of "
    "this code), codes not found, or reactions from this seat in ten seconds; Retry-After says when to try again",
    503: "SERVICE_UNAVAILABLE: the database is unreachable or contended; retryable",
}
responses = functools.partial(openapi_docs.responses, meanings=ERRORS)
PUBLIC = (400, 404, 429, 503)  # every route: a code is looked up (and rate-limited), the database may be down
SEATED = (*PUBLIC, 401)
JSON_BODY = (413, 415)
CodePath = FromPath[str]  # the table's code, as printed or typed (`ABCD-EFGH` or `abcdefgh`)


async def friends_served(request: Request[Any, Any, Any]) -> None:
    """before_request: the whole surface answers only where RD_FRIENDS turns it on; a body is decoded strictly."""
    settings: Settings = request.app.state.settings
    if not settings.friends.enabled:
        raise ApiError(404, "FRIENDS_DISABLED", "this server does not serve the friends' tables (RD_FRIENDS)")
    await decode_body(request)


def code_of(text: str) -> str:
    return presenters.canonical_code(text) or NO_CODE


def sent_token(request: Request[Any, Any, Any]) -> tuple[str | None, bool]:
    """The seat token the request carries, from `Authorization: Bearer`, else the seat cookie (None when neither),
    and whether it came in the cookie."""
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer":
        return value.strip()[:256] or None, False
    return request.cookies.get(SEAT_COOKIE, "")[:256] or None, True


def token_of(request: Request[Any, Any, Any]) -> bytes | None:
    """The seat token's hash, as every seat's route looks it up; None when none is sent."""
    token, _ = sent_token(request)
    return None if token is None else tables.token_hash(token)


async def _run(request: Request[Any, Any, Any], work: Callable[[UnitOfWork], Awaitable[T]]) -> T:
    return await run(request.app.state.runner, FRIENDS_OPERATOR, work)


def _reply(request: Request[Any, Any, Any], view: TableView, status: int = 200) -> Response[bytes]:
    """The viewer's table, after pushing the change it made to every phone at the table."""
    friends_push.publish(request.app.state.push, hint_of(view))
    content = encode(presenters.table_out(view, request.app.state.settings))
    return Response(content=content, status_code=status, media_type="application/json")


def _seated_reply(request: Request[Any, Any, Any], joined: tables.Joined, bearer: bool) -> Response[bytes]:
    if not joined.again:  # a join answered again changed nothing
        friends_push.publish(request.app.state.push, hint_of(joined.view))
    settings: Settings = request.app.state.settings
    content = encode(presenters.joined_out(joined.view, joined.token, bearer, settings))
    cookies = (
        []
        if bearer
        else [
            Cookie(
                key=SEAT_COOKIE,
                value=joined.token,
                path=f"/v1/friends/tables/{joined.view.table.code}",
                max_age=COOKIE_SECONDS,
                httponly=True,
                samesite="strict",
                secure=settings.link_base.startswith("https://"),
            )
        ]
    )
    return Response(content=content, status_code=201, media_type="application/json", cookies=cookies)


@post(
    "/",
    status_code=201,
    responses=responses(201, wire.FriendsJoinedOut, *PUBLIC, *JSON_BODY, 422),
    summary="Open a table with a code and a link; its host takes seat 0",
    **body(wire.CreateFriendsTable),
)
async def create_friends_table(request: Request[Any, Any, Any]) -> Response[bytes]:
    data: wire.CreateFriendsTable = body_of(request)
    new = NewTable(
        host_name=presenters.display_name(data.name),
        ruleset=data.ruleset or tables.DEFAULT_RULESET,
        rounds=data.rounds,
        ante=data.ante,
        seats=data.seats,
        turn_seconds=data.turn_seconds,
    )
    address = client_address(request.scope)
    joined = await _run(request, lambda unit: tables.create_table(unit, new, address))
    assert joined is not None  # a refused one was raised after its commit
    return _seated_reply(request, joined, data.bearer)


@get(
    "/{code:str}",
    responses=responses(200, wire.FriendsTableOut, *SEATED),
    summary="The table as your seat sees it (a spectator's view without a token), with the records since `after`",
)
async def get_friends_table(
    request: Request[Any, Any, Any],
    code: CodePath,
    after: Annotated[
        int | None, QueryParameter(ge=0, le=MAX_SEQ, description="the game version last seen: its records since")
    ] = None,
) -> Response[bytes]:
    token, address = token_of(request), client_address(request.scope)
    view = await _run(request, lambda unit: tables.look(unit, code_of(code), token, address, after))
    assert view is not None
    content = encode(presenters.table_out(view, request.app.state.settings))
    return Response(content=content, media_type="application/json")


@post(
    "/{code:str}/join",
    status_code=201,
    responses=responses(
        201, wire.FriendsJoinedOut, *PUBLIC, *JSON_BODY, 422, conflicts=("TABLE_STARTED", "TABLE_FULL")
    ),
    summary="Take a seat at a waiting table by its code (again: the seat this phone's token or join_key took)",
    **body(wire.JoinFriendsTable),
)
async def join_friends_table(request: Request[Any, Any, Any], code: CodePath) -> Response[bytes]:
    data: wire.JoinFriendsTable = body_of(request)
    name, address = presenters.display_name(data.name), client_address(request.scope)
    token, by_cookie = sent_token(request)
    ask = joining.JoinAsk(name=name, bearer=data.bearer, join_key=data.join_key, token=token, by_cookie=by_cookie)
    joined = await _run(request, lambda unit: joining.join(unit, code_of(code), ask, address))
    assert joined is not None
    return _seated_reply(request, joined, data.bearer and not joined.as_cookie)


def _seat_route(path: str, summary: str, model: Any, conflicts: tuple[str, ...], *extra: int) -> HTTPRouteHandler:
    """A POST by a seat's token that answers the table as that seat sees it."""
    return post(
        path,
        status_code=200,
        responses=responses(200, wire.FriendsTableOut, *SEATED, *JSON_BODY, *extra, conflicts=conflicts),
        summary=summary,
        **body(model),
    )


@_seat_route(
    "/{code:str}/start",
    "The host starts the game (or a rematch once it is over); every empty seat is the computer's",
    wire.StartFriendsGame,
    ("TABLE_STARTED",),
    403,
)
async def start_friends_game(request: Request[Any, Any, Any], code: CodePath) -> Response[bytes]:
    data: wire.StartFriendsGame = body_of(request)
    chosen, token, forced = presenters.computers(data), token_of(request), tuple(data.forced_cards or ())
    return _reply(request, await _run(request, lambda unit: play.start(unit, code_of(code), token, chosen, forced)))


@_seat_route(
    "/{code:str}/moves",
    "Your seat calls an ace or a pair, bets or passes, on the game version it saw",
    wire.MoveIn,
    ("STALE_VERSION", "NOT_YOUR_TURN", "WRONG_ACTION", "GAME_OVER", "GAME_NOT_STARTED"),
    422,
)
async def move_friends_game(request: Request[Any, Any, Any], code: CodePath) -> Response[bytes]:
    data: wire.MoveIn = body_of(request)
    action, token = presenters.move(data), token_of(request)
    return _reply(
        request, await _run(request, lambda unit: play.move(unit, code_of(code), token, action, data.version))
    )


@_seat_route("/{code:str}/leave", "Leave the table: your token stops working", wire.NoFields, ())
async def leave_friends_table(request: Request[Any, Any, Any], code: CodePath) -> Response[bytes]:
    token = token_of(request)
    return _reply(request, await _run(request, lambda unit: seating.leave(unit, code_of(code), token)))


@_seat_route("/{code:str}/back", "Take your seat back from the computer", wire.NoFields, ("SEAT_NOT_HELD",))
async def take_seat_back(request: Request[Any, Any, Any], code: CodePath) -> Response[bytes]:
    token = token_of(request)
    return _reply(request, await _run(request, lambda unit: seating.take_back(unit, code_of(code), token)))


@_seat_route(
    "/{code:str}/seats/{seat:int}/computer",
    "The host hands a seat to the computer (or sets how a computer's seat plays)",
    wire.ComputerIn,
    ("SEAT_LEFT",),
    403,
)
async def hand_seat_to_computer(
    request: Request[Any, Any, Any], code: CodePath, seat: FromPath[int]
) -> Response[bytes]:
    how, token = presenters.computer(body_of(request)), token_of(request)
    work = lambda unit: seating.hand_to_computer(unit, code_of(code), token, seat, how)  # noqa: E731
    return _reply(request, await _run(request, work))


@_seat_route(
    "/{code:str}/seats/{seat:int}/person",
    "The host gives a seat the computer holds back to its player",
    wire.NoFields,
    ("SEAT_NOT_HELD",),
    403,
)
async def give_seat_back(request: Request[Any, Any, Any], code: CodePath, seat: FromPath[int]) -> Response[bytes]:
    token = token_of(request)
    return _reply(request, await _run(request, lambda unit: seating.give_back(unit, code_of(code), token, seat)))


@post(
    "/{code:str}/reactions",
    status_code=202,
    responses=responses(202, wire.ReactionOut, *SEATED, *JSON_BODY),
    summary="Your seat sends an emoji reaction (one of a fixed few) to every phone at the table; kept nowhere",
    **body(wire.ReactionIn),
)
async def send_reaction(request: Request[Any, Any, Any], code: CodePath) -> Response[bytes]:
    data: wire.ReactionIn = body_of(request)
    token = token_of(request)
    sent = await _run(request, lambda unit: reactions.react(unit, code_of(code), token, data.reaction))
    assert sent is not None  # one past the seat's limit was refused after its count committed
    friends_push.publish_reaction(request.app.state.push, sent)
    content = encode(wire.ReactionOut(code=sent.code, seat=sent.seat, reaction=sent.reaction))
    return Response(content=content, status_code=202, media_type="application/json")


EVENTS = ResponseSpec(
    data_container=str,
    media_type="text/event-stream",
    description='Server-Sent Events: `event: table`, `id: <version>`, `data: {"code", "version", '
    '"game_version", "status"}`, one per change; `event: reaction` (no id), `data: {"code", "seat", "reaction"}`, '
    "one per reaction a seat sends; `: keep-alive` comments between",
    generate_examples=False,
)


@get(
    "/{code:str}/events",
    media_type="text/event-stream",
    responses={**responses(200, str, *SEATED), 200: EVENTS},
    summary="Server-Sent Events: a hint with the table's version each time it changes; fetch the state to catch up",
)
async def friends_table_events(request: Request[Any, Any, Any], code: CodePath) -> ServerSentEvent:
    token, address, canonical = token_of(request), client_address(request.scope), code_of(code)

    async def now() -> tables.Hint:
        view = await _run(request, lambda unit: tables.look(unit, canonical, token, address, None))
        assert view is not None
        return hint_of(view)

    first = await now()  # refuses a code or token that is no good before the stream starts
    seconds = request.app.state.settings.friends.stream_seconds
    stop = http_protocol.stopping(request.scope)
    stream = friends_push.stream(request.app.state.push, first.table_id, now, seconds, stop)
    return ServerSentEvent(stream, headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


@get(
    "/{code:str}/records",
    responses=responses(200, GameRecordPage, *PUBLIC),
    summary="The table's game's audit chain, public and read-only while the table is open: check the deal",
)
async def friends_table_records(
    request: Request[Any, Any, Any],
    code: CodePath,
    after: Annotated[int, QueryParameter(ge=0, le=MAX_SEQ, description="the last seq already read")] = 0,
    limit: Annotated[int, QueryParameter(ge=1, le=1000)] = 500,
) -> GameRecordPage:
    address = client_address(request.scope)
    work = lambda unit: tables.game_records(unit, code_of(code), address, after, limit + 1)  # noqa: E731
    links = await _run(request, work)
    assert links is not None
    return inbetween_presenters.record_page(links, limit)


router = Router(
    path="/v1/friends/tables",
    route_handlers=[
        create_friends_table,
        get_friends_table,
        join_friends_table,
        start_friends_game,
        move_friends_game,
        leave_friends_table,
        take_seat_back,
        hand_seat_to_computer,
        give_seat_back,
        send_reaction,
        friends_table_events,
        friends_table_records,
    ],
    before_request=friends_served,
    request_max_body_size=MAX_BODY_BYTES,
    tags=["friends"],
)
