"""Glue between a route and a use case: the caller, one transaction, the stored reply bytes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from litestar import Request, Response

from service import uow
from service.auth import caller_of

T = TypeVar("T")


async def write(request: Request[Any, Any, Any], status: int, work: Callable[[uow.Unit], Awaitable[Any]]) -> uow.Reply:
    """A state change under the request's idempotency key."""
    caller = caller_of(request)
    state = request.app.state
    assert caller.idempotency_key is not None  # authenticate() requires one on every POST
    return await uow.run_idempotent(
        state.pool, state.settings, caller.operator_id, caller.idempotency_key, caller.request_hash, status, work
    )


async def read(request: Request[Any, Any, Any], work: Callable[[uow.Unit], Awaitable[T]]) -> T:
    state = request.app.state
    return await uow.run_committing(state.pool, state.settings, caller_of(request).operator_id, work)


def reply(result: uow.Reply) -> Response[bytes]:
    """The reply exactly as first encoded: a replay returns the same bytes, marked as replayed."""
    headers = {"Idempotent-Replayed": "true"} if result.replayed else {}
    return Response(content=result.body, status_code=result.status, media_type="application/json", headers=headers)
