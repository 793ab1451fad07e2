"""Outbox routes (signed, an operator's own): its notifications for reconciliation, and its dead letters."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from litestar import Request, Response, get
from litestar.params import QueryParameter

from service.api.openapi.openapi_docs import SIGNED, responses
from service.api.outbox_wire import DeadLetterList, DeadLetterOut, NotificationPage, RawItem, RawPage
from service.api.query_values import MAX_SEQ
from service.api.replies import read
from service.use_cases import outbox_use_cases

_encode = msgspec.json.Encoder().encode


@get(
    "/notifications",
    responses=responses(200, NotificationPage, *SIGNED),
    summary="The operator's settlement notifications in order, the same bytes as POSTed, whether or not a URL is set",
    operation_id="listNotifications",
)
async def list_notifications(
    request: Request[Any, Any, Any],
    after: Annotated[int, QueryParameter(ge=0, le=MAX_SEQ, description="the last position already seen")] = 0,
    limit: Annotated[int, QueryParameter(ge=1, le=500)] = 100,
) -> Response[bytes]:
    found = await read(request, lambda unit: outbox_use_cases.list_notifications(unit, after, limit))
    items = [RawItem(seq=n.position, notification=msgspec.Raw(n.body)) for n in found]
    page = RawPage(notifications=items, next_after=found[-1].position if found else after)
    return Response(content=_encode(page), media_type="application/json")


@get(
    "/outbox/dead-letters",
    responses=responses(200, DeadLetterList, *SIGNED),
    summary="The operator's notifications given up on, oldest first (`reddog outbox retry` / `resolve` act on them)",
    operation_id="listDeadLetters",
)
async def list_dead_letters(
    request: Request[Any, Any, Any], limit: Annotated[int, QueryParameter(ge=1, le=500)] = 100
) -> DeadLetterList:
    found = await read(request, lambda unit: outbox_use_cases.list_dead_letters(unit, limit))
    return DeadLetterList(
        dead_letters=[
            DeadLetterOut(
                message_id=d.message_id,
                kind=d.kind,
                ordering_key=d.ordering_key,
                attempts=d.attempts,
                last_error=d.last_error,
                created_at=d.created_at,
                parked_at=d.parked_at,
            )
            for d in found
        ]
    )


handlers = [list_notifications, list_dead_letters]
