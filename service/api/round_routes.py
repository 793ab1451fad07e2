"""Round routes (signed): open a round, decide, close the window, void, roll back, read, list."""

from __future__ import annotations

import base64
import binascii
from datetime import UTC, datetime
from typing import Annotated, Any
from uuid import UUID

from litestar import Request, Response, get, post
from litestar.params import FromPath, FromQuery, QueryParameter

from service.api import presenters, wire
from service.api.bodies import body, body_of
from service.api.openapi.openapi_docs import JSON_BODY, KEY, SIGNED, IdempotencyKey, responses
from service.api.query_values import WITH_OFFSET, query_time
from service.api.replies import as_response, read, write, write_reply
from service.db.unit_of_work import KEY_IN_READ, Reply
from service.errors import ApiError
from service.runtime.lean_routes import answered_by
from service.use_cases import round_use_cases
from service.use_cases.round_use_cases import RoundQuery, RoundView


def _present(view: RoundView) -> bytes:
    return presenters.encode(presenters.round_out(view))


@post(
    "/tables/{table_id:uuid}/rounds",
    operation_id="openRound",
    status_code=201,
    responses=responses(
        201,
        wire.RoundOut,
        *SIGNED,
        *JSON_BODY,
        403,
        404,
        409,
        422,
        conflicts=(*KEY, "TABLE_CLOSED", "ROUND_IN_PROGRESS"),
    ),
    summary="Open a round: take the antes, deal the two posts",
    middleware=[answered_by(lambda request, path: _open_round(request, path["table_id"]))],
    **body(wire.CreateRound),
)
async def create_round(
    request: Request[Any, Any, Any], table_id: FromPath[UUID], idempotency_key: IdempotencyKey
) -> Response[bytes]:
    return as_response(await _open_round(request, table_id))


async def _open_round(request: Request[Any, Any, Any], table_id: UUID) -> Reply:
    new = presenters.new_round(body_of(request))
    return await write_reply(
        request, 201, lambda unit: round_use_cases.open_round(unit, table_id, new), _present, keying=KEY_IN_READ
    )


@post(
    "/rounds/{round_id:uuid}/decisions",
    operation_id="decideRound",
    status_code=200,
    responses=responses(
        200,
        wire.RoundOut,
        *SIGNED,
        *JSON_BODY,
        404,
        409,
        422,
        conflicts=(*KEY, "NOT_IN_RAISE_WINDOW", "RAISE_WINDOW_CLOSED", "ALREADY_DECIDED"),
    ),
    summary="A player's raise or call; the last one deals the third card and settles",
    middleware=[answered_by(lambda request, path: _decide(request, path["round_id"]))],
    **body(wire.DecisionIn),
)
async def decide(
    request: Request[Any, Any, Any], round_id: FromPath[UUID], idempotency_key: IdempotencyKey
) -> Response[bytes]:
    return as_response(await _decide(request, round_id))


async def _decide(request: Request[Any, Any, Any], round_id: UUID) -> Reply:
    decision = presenters.decision(body_of(request))
    return await write_reply(
        request, 200, lambda unit: round_use_cases.decide(unit, round_id, decision), _present, keying=KEY_IN_READ
    )


@post(
    "/rounds/{round_id:uuid}/close",
    status_code=200,
    responses=responses(200, wire.RoundOut, *SIGNED, *JSON_BODY, 404, 409, conflicts=(*KEY, "NOT_IN_RAISE_WINDOW")),
    summary="The dealer closes the raise window now; undecided bets call. The body is optional",
    **body(wire.CloseIn, optional=True),
)
async def close_round(
    request: Request[Any, Any, Any], round_id: FromPath[UUID], idempotency_key: IdempotencyKey
) -> Response[bytes]:
    data: wire.CloseIn | None = body_of(request)
    requested_by = None if data is None else data.requested_by
    return await write(
        request,
        200,
        lambda unit: round_use_cases.close_round(unit, round_id, requested_by),
        _present,
        keying=KEY_IN_READ,
    )


@post(
    "/rounds/{round_id:uuid}/void",
    status_code=200,
    responses=responses(200, wire.RoundOut, *SIGNED, *JSON_BODY, 404, 409, conflicts=(*KEY, "NOT_IN_RAISE_WINDOW")),
    summary="Void an unsettled round: every stake is refunded",
    **body(wire.VoidIn),
)
async def void_round(
    request: Request[Any, Any, Any], round_id: FromPath[UUID], idempotency_key: IdempotencyKey
) -> Response[bytes]:
    data: wire.VoidIn = body_of(request)
    return await write(
        request,
        200,
        lambda unit: round_use_cases.void_round(unit, round_id, data.reason, data.requested_by),
        _present,
        keying=KEY_IN_READ,
    )


@post(
    "/rounds/{round_id:uuid}/rollback",
    status_code=200,
    responses=responses(200, wire.RoundOut, *SIGNED, *JSON_BODY, 404, 409, conflicts=(*KEY, "ROLLBACK_GRACE_EXPIRED")),
    summary="Roll a round back: every transaction reversed (within the grace period)",
    **body(wire.RollbackIn),
)
async def rollback_round(
    request: Request[Any, Any, Any], round_id: FromPath[UUID], idempotency_key: IdempotencyKey
) -> Response[bytes]:
    reason = body_of(request).reason
    return await write(
        request, 200, lambda unit: round_use_cases.rollback_round(unit, round_id, reason), _present, keying=KEY_IN_READ
    )


@get("/rounds/{round_id:uuid}", responses=responses(200, wire.RoundOut, *SIGNED, 404), summary="One round")
async def get_round(request: Request[Any, Any, Any], round_id: FromPath[UUID]) -> wire.RoundOut:
    return presenters.round_out(await read(request, lambda unit: round_use_cases.get_round(unit, round_id)))


@get("/rounds", responses=responses(200, wire.RoundPage, *SIGNED), summary="Round history, newest first")
async def list_rounds(
    request: Request[Any, Any, Any],
    table_id: FromQuery[UUID | None] = None,
    player_id: Annotated[str | None, QueryParameter(max_length=64, pattern=wire.whole(wire.PLAYER_ID))] = None,
    status: FromQuery[wire.RoundStatusName | None] = None,
    opened_from: Annotated[
        datetime | None, QueryParameter(name="from", description=f"opened at or after; {WITH_OFFSET}")
    ] = None,
    opened_to: Annotated[
        datetime | None, QueryParameter(name="to", description=f"opened before; {WITH_OFFSET}")
    ] = None,
    settled_from: Annotated[datetime | None, QueryParameter(description=f"settled at or after; {WITH_OFFSET}")] = None,
    settled_to: Annotated[datetime | None, QueryParameter(description=f"settled before; {WITH_OFFSET}")] = None,
    limit: Annotated[int, QueryParameter(ge=1, le=200)] = 50,
    cursor: Annotated[str | None, QueryParameter(max_length=200)] = None,
) -> wire.RoundPage:
    query = RoundQuery(
        table_id=table_id,
        player_id=player_id,
        status=status,
        opened_from=query_time("from", opened_from),
        opened_to=query_time("to", opened_to),
        settled_from=query_time("settled_from", settled_from),
        settled_to=query_time("settled_to", settled_to),
        before=None if cursor is None else decode_cursor(cursor),
        limit=limit + 1,  # one more than asked tells whether there is a next page
    )
    found = await read(request, lambda unit: round_use_cases.list_rounds(unit, query))
    page = found[:limit]
    next_cursor = encode_cursor(page[-1]) if len(found) > limit else None
    return presenters.round_page(page, next_cursor)


def encode_cursor(view: RoundView) -> str:
    text = f"{view.round.opened_at.isoformat()}|{view.round.round_id}"
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, UUID]:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        at, _, round_id = text.partition("|")
        opened = datetime.fromisoformat(at)
        if opened.utcoffset() is None:
            raise ValueError("naive timestamp")
        return opened.astimezone(UTC), UUID(round_id)
    except (ValueError, OverflowError, binascii.Error, UnicodeDecodeError):
        raise ApiError(400, "VALIDATION_ERROR", "cursor is not one this API issued") from None


handlers = [create_round, decide, close_round, void_round, rollback_round, get_round, list_rounds]
