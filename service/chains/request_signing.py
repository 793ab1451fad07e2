"""The one signing rule, both ways: an operator's requests to us, and our notifications to its receiver."""

from __future__ import annotations

import hashlib
import hmac


def signing_message(timestamp: str, method: str, path_with_query: str, body: bytes, idempotency_key: str = "") -> bytes:
    """timestamp, METHOD, path with query and the Idempotency-Key (empty for a GET), each on its own line, then the
    raw body: everything that changes what a request does is signed, so a captured request replays only as itself."""
    return f"{timestamp}\n{method}\n{path_with_query}\n{idempotency_key}\n".encode() + body


def sign(
    secret: str, timestamp: str, method: str, path_with_query: str, body: bytes, *, idempotency_key: str = ""
) -> str:
    """Lowercase hex HMAC-SHA256; what a client computes too."""
    message = signing_message(timestamp, method, path_with_query, body, idempotency_key)
    return hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()


def notification_signatures(secrets: tuple[str, ...], timestamp: str, path: str, event_id: str, body: bytes) -> str:
    """X-Signature of a notification: a POST of `body` to `path`, its event id in the Idempotency-Key's place, under
    each secret (newest first, comma separated: while a secret is rotated the receiver accepts either)."""
    return ",".join(sign(s, timestamp, "POST", path, body, idempotency_key=event_id) for s in secrets)
