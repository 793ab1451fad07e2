"""Between a route and a use case: the caller, one unit of work, and the reply's bytes (stored for replays)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from litestar import Request, Response

from service.api.auth import caller_of
from service.db import unit_of_work
from service.db.row_reads import Replay
from service.db.unit_of_work import KEY_FIRST, IdempotencyKey, Keying, Reply, Work, run
from service.observability import metrics

T = TypeVar("T")


async def write(
    request: Request[Any, Any, Any],
    status: int,
    work: Work[T | Replay],
    present: Callable[[T], bytes],
    keying: Keying = KEY_FIRST,
) -> Response[bytes]:
    """A state change under the request's idempotency key; a replay returns the first reply's bytes."""
    return as_response(await write_reply(request, status, work, present, keying))


async def write_reply(
    request: Request[Any, Any, Any],
    status: int,
    work: Work[T | Replay],
    present: Callable[[T], bytes],
    keying: Keying = KEY_FIRST,
) -> Reply:
    """`write`'s reply before it becomes a Response (lean_routes sends it as it is). `keying`: KEY_IN_READ for work
    whose first read is the one statement reading what it changes (it can run unlocked first, unit_of_work.modes)."""
    caller = caller_of(request)
    assert caller.idempotency_key is not None  # authenticate() requires one on every POST
    key = IdempotencyKey(key=caller.idempotency_key, request_hash=caller.request_hash, keying=keying)
    reply = await unit_of_work.write(request.app.state.runner, caller.operator_id, key, status, work, present)
    if reply.replayed:
        metrics.record_replay(request.scope.get("path_template") or "unmatched")
    return reply


async def read(request: Request[Any, Any, Any], work: Work[T]) -> T:
    """A read in its own transaction (it may settle a round whose deadline passed, which must commit)."""
    return await run(request.app.state.runner, caller_of(request).operator_id, work)


def as_response(reply: Reply) -> Response[bytes]:
    headers = {"Idempotent-Replayed": "true"} if reply.replayed else {}
    return Response(content=reply.body, status_code=reply.status, media_type="application/json", headers=headers)
