"""Two copies of the real app over one database, for comparing the hot routes' lean path with Litestar's handler path.

Each side plays a world of its own with a clock of its own, started at one instant and read as often, so the two
see the same times; `TwoPaths.same` compares their answers whole (status, every header but the request id, the
body's bytes, and what the request log counted) once the values each world drew at random are written in the lean
world's words. Used by tests/api/test_lean_path.py.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, NamedTuple

import httpx
from httpx import Response
from litestar import Litestar

from service.app import rewire
from service.observability import metrics
from service.settings import Settings
from tests.api.helpers import fill
from tests.support.client import Signed
from tests.support.clock import ManualClock

PER_REQUEST = {b"x-request-id"}  # a fresh random id on every answer, by design
NOWHERE = "00000000-0000-4000-8000-000000000000"  # an id no table or round has, the same in both worlds


class Side:
    """One app (lean or handler path), its clock, its signed client and the ids its world has drawn."""

    def __init__(self, name: str, app: Litestar, clock: ManualClock, api: Signed) -> None:
        self.name, self.app, self.clock, self.api = name, app, clock, api
        self.ids: dict[str, str] = {}


Send = Callable[[Side], Awaitable[Response]]
Served = tuple[str, str, str]  # method, route template, status: what the request log and its metrics count


class Pair(NamedTuple):
    """One request's answers on each path, and what each path's request log counted for it."""

    lean: Response
    handler: Response
    counted: tuple[set[Served], set[Served]]


def served_counts() -> dict[Served, float]:
    """The requests the request log middleware has counted so far, by method, route template and status."""
    samples = (sample for family in metrics.HTTP_DURATION.collect() for sample in family.samples)
    return {
        (s.labels["method"], s.labels["route"], s.labels["status"]): s.value
        for s in samples
        if s.name.endswith("_count")
    }


async def counted(request: Send, side: Side) -> tuple[Response, set[Served]]:
    """The side's answer, and what the request log counted while it was given (the status it saw, not only sent)."""
    before = served_counts()
    response = await request(side)
    return response, {served for served, count in served_counts().items() if count != before.get(served, 0)}


class Answer(NamedTuple):
    """What a client is sent: the status, the headers in order and the body's bytes."""

    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes


def answer(response: Response, words: dict[str, str]) -> Answer:
    """What a client is sent, in order, but the request id; each of `words` written as what it maps to."""
    body = response.content
    for theirs, ours in words.items():
        body = body.replace(theirs.encode(), ours.encode())
    headers = [(name.lower(), value) for name, value in response.headers.raw if name.lower() not in PER_REQUEST]
    return Answer(response.status_code, headers, body)


class TwoPaths:
    """The lean app and the handler app; `words` maps what the handler's world drew to what the lean one's did."""

    def __init__(self, lean: Side, handler: Side) -> None:
        self.lean, self.handler = lean, handler
        self.words: dict[str, str] = {}
        for side in (lean, handler):
            side.ids = {"side": side.name, "nowhere": NOWHERE}

    async def send(self, request: Send) -> Pair:
        lean, lean_counted = await counted(request, self.lean)
        handler, handler_counted = await counted(request, self.handler)
        return Pair(lean, handler, (lean_counted, handler_counted))

    def learn(self, pair: Pair, **picks: Callable[[Any], str]) -> None:
        """Name what each world drew in these answers, and write the handler world's value in the lean one's words."""
        both_ok(pair)
        for name, pick in picks.items():
            lean, handler = pick(pair.lean.json()), pick(pair.handler.json())
            self.lean.ids[name], self.handler.ids[name] = lean, handler
            self.words[handler] = lean

    def same(self, pair: Pair) -> Response:
        """The two answers are one (status, headers and bytes) and were logged alike; returns the lean one."""
        assert answer(pair.handler, self.words) == answer(pair.lean, {})
        lean_counted, handler_counted = pair.counted
        assert lean_counted == handler_counted  # the request log and its metrics saw what the client was sent
        assert [status for _, _, status in lean_counted] == [str(pair.lean.status_code)]
        return pair.lean


def post(path: str, body: Any = None, *, key: str = "", raw: bytes | None = None) -> Send:
    """A signed POST with the side's ids filled in; `key` names an Idempotency-Key (a fresh one when empty)."""

    async def send(side: Side) -> Response:
        data = raw if raw is not None else fill(json.dumps(body), side.ids).encode()
        return await side.api.post(fill(path, side.ids), raw=data, key=fill(key, side.ids) or None)

    return send


def post_with(
    path: str, body: Any, edit: Callable[[dict[str, str]], list[tuple[str, str]]], *, key: bool = True, age: int = 0
) -> Send:
    """A POST whose signed headers `edit` changes before it goes (signed `age` seconds ago, with a key or none)."""

    async def send(side: Side) -> Response:
        target, data = fill(path, side.ids), fill(json.dumps(body), side.ids).encode()
        idempotency_key = fill("key-{side}", side.ids) if key else ""
        headers = side.api.headers("POST", target, data, timestamp=side.api.now() - age, key=idempotency_key)
        return await side.api.client.post(target, content=data, headers=edit(headers))

    return send


def as_auditor(request: Send) -> Send:
    """The request signed with the test lab's read-only credentials."""

    async def send(side: Side) -> Response:
        auditor = Signed(side.api.client, "lab", side.app.state.settings.auditors["lab"], clock=side.clock)
        lab = Side(side.name, side.app, side.clock, auditor)
        lab.ids = side.ids
        return await request(lab)

    return send


def later(seconds: float, request: Send) -> Send:
    """The request once the side's clock has moved on `seconds`."""

    async def send(side: Side) -> Response:
        side.clock.advance(seconds)
        return await request(side)

    return send


def database_gone(request: Send) -> Send:
    """The request while the side's pool can reach no database (its connections retired, new ones refused)."""

    async def send(side: Side) -> Response:
        pool = side.app.state.pool
        pool.set_connect_args("postgresql://postgres@127.0.0.1:1/gone")
        await pool.expire_connections()
        try:
            return await request(side)
        finally:
            pool.set_connect_args(side.app.state.settings.database_url, command_timeout=30)

    return send


def headers_as_sent(headers: dict[str, str]) -> list[tuple[str, str]]:
    """The signed headers unchanged (for a POST signed without a key, or long ago)."""
    return list(headers.items())


def both_ok(pair: Pair) -> None:
    """Both worlds' requests succeeded (a scene's steps, and every answer `learn` reads ids from)."""
    for response in (pair.lean, pair.handler):
        assert response.status_code < 300, response.text


@contextlib.asynccontextmanager
async def serve(name: str, app: Litestar, settings: Settings, clock: ManualClock) -> AsyncIterator[Side]:
    """The app started for this test's settings and clock, through httpx's ASGI transport: it hands the app the
    headers as sent (Litestar's test client would merge a header sent twice)."""
    rewire(app, settings, clock=clock, sweep=False)
    operator = next(op for op in settings.operators if op != "other")
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]  # Litestar types ASGI scopes as TypedDicts
    async with app.lifespan(), httpx.AsyncClient(transport=transport, base_url="http://testserver.local") as client:
        yield Side(name, app, clock, Signed(client, operator, settings.operators[operator], clock=clock))


@contextlib.asynccontextmanager
async def both_paths(apps: dict[str, Litestar], settings: Settings) -> AsyncIterator[TwoPaths]:
    """Both apps started over one database and one operator, each with a clock of its own at the same instant (in
    the test's own task: a lifespan ends in the task it began in)."""
    start = datetime.now(UTC)
    async with (
        serve("lean", apps["lean"], settings, ManualClock(start)) as lean,
        serve("handler", apps["handler"], settings, ManualClock(start)) as handler,
    ):
        yield TwoPaths(lean, handler)


def borrow(app_side: Side, world: Side) -> Side:
    """`app_side`'s app and clock, sending with `world`'s ids."""
    borrowed = Side(app_side.name, app_side.app, app_side.clock, app_side.api)
    borrowed.ids = world.ids
    return borrowed
