"""A small signed HTTP client (standard library only): what an aggregator's integration code does."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
import uuid
from typing import Any

from service.api.auth import sign


class ClientError(Exception):
    def __init__(self, status: int, body: dict[str, Any]) -> None:
        super().__init__(f"{status} {body.get('code')}: {body.get('detail')}")
        self.status = status
        self.body = body


class Client:
    def __init__(self, base_url: str, operator_id: str, secret: str) -> None:
        self.base_url = base_url.rstrip("/")
        self.operator_id = operator_id
        self.secret = secret

    def request(self, method: str, path: str, body: Any = None, *, key: str | None = None) -> Any:
        """Send a signed request; a POST gets a fresh Idempotency-Key unless one is given (to retry with)."""
        raw = b"" if body is None else json.dumps(body, separators=(",", ":")).encode()
        timestamp = str(int(time.time()))
        idempotency_key = (key or str(uuid.uuid4())) if method == "POST" else ""
        headers = {
            "Content-Type": "application/json",
            "X-Operator-Id": self.operator_id,
            "X-Timestamp": timestamp,
            "X-Signature": sign(self.secret, timestamp, method, path, raw, idempotency_key=idempotency_key),
        }
        if method == "POST":
            headers["Idempotency-Key"] = idempotency_key
        req = urllib.request.Request(self.base_url + path, data=raw or None, headers=headers, method=method)  # noqa: S310 - the operator's own URL
        try:
            with urllib.request.urlopen(req, timeout=30) as response:  # noqa: S310 - the operator's own server URL
                return json.loads(response.read())
        except urllib.error.HTTPError as exc:
            raise ClientError(exc.code, json.loads(exc.read() or b"{}")) from None
