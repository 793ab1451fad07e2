"""A signed test client over the real app: what an aggregator sends, byte for byte."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

from httpx import AsyncClient, Response

from service.api.auth import sign
from tests.support.clock import ManualClock


class Signed:
    """Signs every request as `operator_id` with `secret`; POSTs get a fresh Idempotency-Key unless given one."""

    def __init__(self, client: AsyncClient, operator_id: str, secret: str, *, clock: ManualClock | None = None) -> None:
        # Litestar's AsyncTestClient is an httpx.AsyncClient, and so is tests/support/live.py's ASGI-transport one.
        self.client = client
        self.operator_id = operator_id
        self.secret = secret
        self.clock = clock  # the server's clock, when the test moves it: signatures are checked against it

    def now(self) -> int:
        return int(time.time()) if self.clock is None else self.clock.timestamp()

    def headers(
        self, method: str, path: str, body: bytes, *, timestamp: int | None = None, key: str = ""
    ) -> dict[str, str]:
        """The signed headers; a POST's Idempotency-Key is signed too (and sent)."""
        ts = str(self.now() if timestamp is None else timestamp)
        headers = {
            "content-type": "application/json",
            "x-operator-id": self.operator_id,
            "x-timestamp": ts,
            "x-signature": sign(self.secret, ts, method, path, body, idempotency_key=key),
        }
        if key:
            headers["idempotency-key"] = key
        return headers

    async def get(self, path: str) -> Response:
        return await self.client.get(path, headers=self.headers("GET", path, b""))

    async def post(self, path: str, body: Any = None, *, key: str | None = None, raw: bytes | None = None) -> Response:
        data = raw if raw is not None else (b"" if body is None else json.dumps(body).encode())
        headers = self.headers("POST", path, data, key=key or uuid.uuid4().hex)
        return await self.client.post(path, content=data, headers=headers)

    async def ok(self, method: str, path: str, body: Any = None) -> Any:
        """A request that must succeed; its JSON body."""
        response = await (self.get(path) if method == "GET" else self.post(path, body))
        assert response.status_code < 300, response.text
        return response.json()

    async def table(self, **overrides: Any) -> Any:
        """Open a table with sensible defaults for a test."""
        body = {"name": "t", "paytable": "standard/v1", "currency": "EUR", "min_ante": 1, "max_ante": 1000}
        return await self.ok("POST", "/v1/tables", {**body, **overrides})
