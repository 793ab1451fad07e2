"""Game recall routes: a player's last rounds (signed), a recall link (signed), and the replay page it opens."""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime
from typing import Annotated, Any
from urllib.parse import urlencode
from uuid import UUID

from litestar import MediaType, Request, Response, get, post
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, QueryParameter

from service.api import presenters, wire
from service.api.bodies import body, body_of
from service.api.openapi.openapi_docs import JSON_BODY, KEY, SIGNED, IdempotencyKey, problem_spec, responses
from service.api.recall_presenters import player_rounds_out
from service.api.replies import read, write
from service.db.unit_of_work import run
from service.errors import ApiError
from service.settings import Settings
from service.use_cases import recall_use_cases
from service.use_cases.recall_use_cases import Link
from service.web.recall_page import CSP, render


@get(
    "/players/{player_id:str}/rounds",
    responses=responses(200, wire.PlayerRoundsOut, *SIGNED),
    summary="Game recall: a player's last rounds, newest first, with every moment they saw and when",
)
async def player_rounds(
    request: Request[Any, Any, Any],
    player_id: FromPath[str],
    limit: Annotated[int, QueryParameter(ge=1, le=recall_use_cases.MAX_ROUNDS)] = 10,
) -> wire.PlayerRoundsOut:
    if not 1 <= len(player_id) <= 64 or not re.fullmatch(wire.PLAYER_ID, player_id):
        raise ApiError(400, "VALIDATION_ERROR", "player_id is 1-64 of A-Z a-z 0-9 . _ : @ -")
    found = await read(request, lambda unit: recall_use_cases.player_rounds(unit, player_id, limit))
    return player_rounds_out(player_id, found)


def link_url(settings: Settings, link: Link, signature: str) -> str:
    """The link on settings.link_base, never on the request's Host: the caller writes that header, unsigned."""
    query = {"player": link.player_id} if link.player_id is not None else {}
    query |= {"expires": str(link.expires), "sig": signature}
    return f"{settings.link_base}/recall/{link.round_id}?{urlencode(query)}"


@post(
    "/rounds/{round_id:uuid}/recall-link",
    operation_id="createRecallLink",
    status_code=200,
    responses=responses(200, wire.RecallLinkOut, *SIGNED, *JSON_BODY, 404, 409, conflicts=KEY),
    summary="A signed link that shows the round's replay page, without credentials, until it expires",
    **body(wire.RecallLinkIn, optional=True),
)
async def recall_link(
    request: Request[Any, Any, Any], round_id: FromPath[UUID], idempotency_key: IdempotencyKey
) -> Response[bytes]:
    data: wire.RecallLinkIn = body_of(request) or wire.RecallLinkIn()
    settings: Settings = request.app.state.settings

    def present(link: Link) -> bytes:
        url = link_url(settings, link, recall_use_cases.link_signature(settings, link))
        return presenters.encode(wire.RecallLinkOut(url=url, expires_at=datetime.fromtimestamp(link.expires, UTC)))

    return await write(
        request,
        200,
        lambda unit: recall_use_cases.new_link(unit, round_id, data.player_id, data.ttl_seconds),
        present,
    )


PAGE_RESPONSES = {
    200: ResponseSpec(
        data_container=str, media_type=MediaType.HTML, description="The replay page", generate_examples=False
    ),
    400: problem_spec(400, ("VALIDATION_ERROR",)),
    403: problem_spec(403, ("RECALL_LINK_INVALID",)),
    404: problem_spec(404, ("NOT_FOUND",)),
    410: problem_spec(410, ("RECALL_LINK_EXPIRED",)),
    503: problem_spec(503, ("SERVICE_UNAVAILABLE", "RECALL_LINKS_DISABLED")),
}


@get(
    "/recall/{round_id:uuid}",
    media_type=MediaType.HTML,
    responses=PAGE_RESPONSES,
    summary="The replay page of a recall link (HTML; the link's own signature, no credentials)",
    tags=["recall"],
)
async def recall_page(
    request: Request[Any, Any, Any],
    round_id: FromPath[UUID],
    expires: Annotated[int, QueryParameter(ge=0, le=2**40)],
    sig: Annotated[str, QueryParameter(min_length=64, max_length=64)],
    player: Annotated[str | None, QueryParameter(max_length=64, pattern=wire.whole(wire.PLAYER_ID))] = None,
) -> Response[str]:
    link = Link(round_id=round_id, player_id=player, expires=expires)
    page = await run(request.app.state.runner, "recall", lambda unit: recall_use_cases.open_link(unit, link, sig))
    nonce = secrets.token_urlsafe(16)
    headers = {
        "Content-Security-Policy": CSP.format(nonce=nonce),
        "Cache-Control": "private, no-store",
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
    }
    html = render(page, nonce, datetime.fromtimestamp(expires, UTC))
    return Response(html, media_type=MediaType.HTML, headers=headers)


handlers = [player_rounds, recall_link]
