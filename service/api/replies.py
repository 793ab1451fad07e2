"""Between a route and a use case: the caller, one unit of work, and the reply's bytes (stored for replays)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from litestar import Request, Response

from service.api.auth import caller_of
from service.db.unit_of_work import IdempotencyKey, Reply, Work, idempotent, run

T = TypeVar("T")


async def write(
    request: Request[Any, Any, Any],
    status: int,
    work: Work[T],
    present: Callable[[T], bytes],
    *,
    claim_in_lock: bool = False,
) -> Response[bytes]:
    """A state change under the request's idempotency key; a replay returns the first reply's bytes.
    `claim_in_lock`: the work starts with a row lock that claims the key in the same statement."""
    return as_response(await write_reply(request, status, work, present, claim_in_lock=claim_in_lock))


async def write_reply(
    request: Request[Any, Any, Any],
    status: int,
    work: Work[T],
    present: Callable[[T], bytes],
    *,
    claim_in_lock: bool = False,
) -> Reply:
    """`write`'s reply before it becomes a Response (lean_routes sends it as it is)."""
    caller = caller_of(request)
    assert caller.idempotency_key is not None  # authenticate() requires one on every POST
    key = IdempotencyKey(key=caller.idempotency_key, request_hash=caller.request_hash)
    unit_work = idempotent(key, status, work, present, claim_in_lock=claim_in_lock)
    # Work that starts with the one statement reading what it changes can run unlocked first (unit_of_work.run).
    return await run(request.app.state.runner, caller.operator_id, unit_work, optimistic=claim_in_lock)


async def read(request: Request[Any, Any, Any], work: Work[T]) -> T:
    """A read in its own transaction (it may settle a round whose deadline passed, which must commit)."""
    return await run(request.app.state.runner, caller_of(request).operator_id, work)


def as_response(reply: Reply) -> Response[bytes]:
    headers = {"Idempotent-Replayed": "true"} if reply.replayed else {}
    return Response(content=reply.body, status_code=reply.status, media_type="application/json", headers=headers)
