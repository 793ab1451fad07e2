"""The pages people play on (/play/...): the friends' In Between page, its replay page, and the files they load.
Public, read-only, and the same for everyone: what a phone may do is decided by the /v1/friends routes it calls."""

from __future__ import annotations

from typing import Any

from litestar import MediaType, Request, Response, get
from litestar.params import FromPath

from service.errors import ApiError
from service.web import play_page


def _file(path: str) -> tuple[bytes, str]:
    found = play_page.shipped(path)
    if found is None:
        raise ApiError(404, "NOT_FOUND", "no such file")
    return found


@get("/play/inbetween", media_type=MediaType.HTML, include_in_schema=False)
async def inbetween_page() -> Response[bytes]:
    """The page a share link opens; `?code=` joins, `?watch=` watches (the page reads them itself)."""
    content, kind = _file(play_page.SHELLS["inbetween"])
    return Response(content, media_type=kind, headers=play_page.HEADERS)


@get("/play/inbetween/replay", media_type=MediaType.HTML, include_in_schema=False)
async def inbetween_replay_page() -> Response[bytes]:
    """A game's replay: every record of its chain, told move by move and checked against the pack's reveal."""
    content, kind = _file(play_page.SHELLS["inbetween/replay"])
    return Response(content, media_type=kind, headers=play_page.HEADERS)


@get("/play/static/{path:path}", include_in_schema=False)
async def play_static(request: Request[Any, Any, Any], path: FromPath[str]) -> Response[bytes]:
    content, kind = _file(path.lstrip("/"))
    headers = {"X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache"}
    return Response(content, media_type=kind, headers=headers)


handlers = [inbetween_page, inbetween_replay_page, play_static]
