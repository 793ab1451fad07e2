"""Round routes (signed): open a round, decide, close the window, void, read, list."""

from __future__ import annotations

import base64
import binascii
from datetime import datetime
from typing import Annotated, Any, Literal
from uuid import UUID

from litestar import Request, Response, get, post
from litestar.params import FromPath, FromQuery, JSONBody, QueryParameter

from paytables.round import Round
from service import rounds
from service.api import wire
from service.api.docs import SIGNED, IdempotencyKey, responses
from service.api.reply import read, reply, write
from service.db.rounds import RoundFilter
from service.errors import ApiError
from service.uow import Unit
from service.views import round_out


@post(
    "/tables/{table_id:uuid}/rounds",
    status_code=201,
    responses=responses(201, wire.RoundOut, *SIGNED, 403, 404, 409, 422),
    summary="Open a round: take the antes, deal the two posts",
)
async def create_round(
    request: Request[Any, Any, Any],
    table_id: FromPath[UUID],
    data: JSONBody[wire.CreateRound],
    idempotency_key: IdempotencyKey,
) -> Response[bytes]:
    return reply(await write(request, 201, lambda unit: rounds.open_round(unit, table_id, data)))


@post(
    "/rounds/{round_id:uuid}/decisions",
    status_code=200,
    responses=responses(200, wire.RoundOut, *SIGNED, 404, 409, 422),
    summary="A player's raise or call; the last one deals the third card and settles",
)
async def decide(
    request: Request[Any, Any, Any],
    round_id: FromPath[UUID],
    data: JSONBody[wire.DecisionIn],
    idempotency_key: IdempotencyKey,
) -> Response[bytes]:
    return reply(await write(request, 200, lambda unit: rounds.decide(unit, round_id, data)))


@post(
    "/rounds/{round_id:uuid}/close",
    status_code=200,
    responses=responses(200, wire.RoundOut, *SIGNED, 404, 409),
    summary="The dealer closes the raise window now; undecided bets call",
)
async def close_round(
    request: Request[Any, Any, Any], round_id: FromPath[UUID], idempotency_key: IdempotencyKey
) -> Response[bytes]:
    return reply(await write(request, 200, lambda unit: rounds.close_round(unit, round_id)))


@post(
    "/rounds/{round_id:uuid}/void",
    status_code=200,
    responses=responses(200, wire.RoundOut, *SIGNED, 404, 409),
    summary="Void an unsettled round: every stake is refunded",
)
async def void_round(
    request: Request[Any, Any, Any],
    round_id: FromPath[UUID],
    data: JSONBody[wire.VoidIn],
    idempotency_key: IdempotencyKey,
) -> Response[bytes]:
    return reply(await write(request, 200, lambda unit: rounds.void_round(unit, round_id, data)))


@get("/rounds/{round_id:uuid}", responses=responses(200, wire.RoundOut, *SIGNED, 404), summary="One round")
async def get_round(request: Request[Any, Any, Any], round_id: FromPath[UUID]) -> wire.RoundOut:
    return await read(request, lambda unit: rounds.get_round(unit, round_id))


@get("/rounds", responses=responses(200, wire.RoundPage, *SIGNED), summary="Round history, newest first")
async def list_rounds(
    request: Request[Any, Any, Any],
    table_id: FromQuery[UUID | None] = None,
    player_id: Annotated[str | None, QueryParameter(max_length=64)] = None,
    status: FromQuery[Literal["raise_window", "settled", "void"] | None] = None,
    opened_from: Annotated[datetime | None, QueryParameter(name="from", description="opened at or after")] = None,
    opened_to: Annotated[datetime | None, QueryParameter(name="to", description="opened before")] = None,
    limit: Annotated[int, QueryParameter(ge=1, le=200)] = 50,
    cursor: Annotated[str | None, QueryParameter(max_length=200)] = None,
) -> wire.RoundPage:
    before = None if cursor is None else decode_cursor(cursor)

    async def page(unit: Unit) -> wire.RoundPage:
        f = RoundFilter(
            operator_id=unit.operator_id,
            table_id=table_id,
            player_id=player_id,
            status=status,
            opened_from=opened_from,
            opened_to=opened_to,
            before=before,
            limit=limit + 1,  # one more than asked tells whether there is a next page
        )
        found = await rounds.list_rounds(unit, f)
        items = [round_out(s.round, s.shoe, s.table_shoe_commitment) for s in found[:limit]]
        more = len(found) > limit
        return wire.RoundPage(items=items, next_cursor=encode_cursor(found[limit - 1].round) if more else None)

    return await read(request, page)


def encode_cursor(rnd: Round) -> str:
    text = f"{rnd.opened_at.isoformat()}|{rnd.round_id}"
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, UUID]:
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        at, _, round_id = text.partition("|")
        opened = datetime.fromisoformat(at)
        if opened.tzinfo is None:
            raise ValueError("naive timestamp")
        return opened, UUID(round_id)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise ApiError(400, "VALIDATION_ERROR", "cursor is not one this API issued") from None


handlers = [create_round, decide, close_round, void_round, get_round, list_rounds]
