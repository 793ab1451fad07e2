"""Signed requests: HMAC-SHA256 over timestamp, method, path with query and raw body; idempotency keys."""

from __future__ import annotations

import enum
import hashlib
import hmac
import re
from typing import Any

import msgspec
import structlog
from litestar import Request

from service.api import auth_failures
from service.api.bodies import decode_body
from service.chains.request_signing import sign as sign  # re-exported: clients and tests sign with these
from service.chains.request_signing import signing_message as signing_message
from service.errors import ApiError
from service.observability import metrics
from service.observability.logs import client_address
from service.settings import Settings

log = structlog.get_logger("reddog.auth")

MAX_KEY_LENGTH = 128
_HEX64 = re.compile(r"[0-9a-fA-F]{64}")


class Role(enum.StrEnum):
    OPERATOR = "operator"  # an aggregator: its own tables and rounds
    AUDITOR = "auditor"  # a test lab or regulator: reads every operator's records, changes nothing


AUDITORS_ALLOWED = "auditors"  # a route's opt key: auditor credentials may call it (GET only)


class Caller(msgspec.Struct, frozen=True, kw_only=True):
    """Who signed the request, and for a POST its idempotency key and the hash that binds the key to it."""

    operator_id: str  # the signer's id: an operator's, or an auditor's
    role: Role = Role.OPERATOR
    idempotency_key: str | None = None
    request_hash: bytes = b""


def path_with_query(scope: Any) -> str:
    # ASGI's raw_path excludes the query, but some servers and test transports put it there too: cut it off so the
    # query is signed once, from query_string. A literal "?" in a path is always percent-encoded, so this is safe.
    path: bytes = (scope.get("raw_path") or scope["path"].encode()).split(b"?", 1)[0]
    query: bytes = scope.get("query_string") or b""
    return (path + b"?" + query).decode("latin-1") if query else path.decode("latin-1")


def _unauthenticated() -> ApiError:
    # One answer for every failure, so a prober learns nothing about which part was wrong.
    return ApiError(401, "UNAUTHENTICATED", "missing or invalid request signature")


async def _refused(request: Request[Any, Any, Any], operator_id: str, reason: str) -> ApiError:
    """Count the failure by `reason` (metrics.AUTH_REASONS) and on the system chain (rate-limited there), then
    refuse: the refusal never waits on it."""
    metrics.record_auth_failure(reason)
    try:
        await auth_failures.note_failure(request.app.state.runner, operator_id, client_address(request.scope))
    except Exception as exc:  # a failure to record is logged; the request is refused all the same
        log.warning("auth_failure_not_recorded", error=type(exc).__name__)
    return _unauthenticated()


SECURITY_HEADERS = (b"x-operator-id", b"x-timestamp", b"x-signature", b"idempotency-key")


def refuse_repeated_security_headers(scope: Any) -> None:
    """A security header sent twice is ambiguous (which one was signed?): refuse it rather than pick one."""
    names = [name.lower() for name, _ in scope["headers"]]
    for header in SECURITY_HEADERS:
        if names.count(header) > 1:
            raise ApiError(400, "DUPLICATE_HEADER", f"the {header.decode()} header is sent more than once")


async def authenticate(request: Request[Any, Any, Any]) -> None:
    """before_request hook for /v1: verify the signature, then for a POST require an idempotency key."""
    settings: Settings = request.app.state.settings
    refuse_repeated_security_headers(request.scope)
    headers = request.headers
    operator_id = headers.get("x-operator-id", "")
    timestamp = headers.get("x-timestamp", "")
    signature = headers.get("x-signature", "")
    role = Role.OPERATOR if operator_id in settings.operators else Role.AUDITOR
    secret = settings.operators.get(operator_id) or settings.auditors.get(operator_id)
    # Everything the headers alone can refuse is refused before a byte of the body is read (it may be large, and
    # an unauthenticated client must not make the server hold it); Litestar then reads at most max_body_bytes.
    if secret is None:
        raise await _refused(request, operator_id, "unknown_operator")
    if not (timestamp.isascii() and timestamp.isdigit()) or len(timestamp) > 12:
        raise await _refused(request, operator_id, "bad_timestamp")
    if abs(request.app.state.clock().timestamp() - int(timestamp)) > settings.signature_tolerance_seconds:
        raise await _refused(request, operator_id, "stale_timestamp")
    if not _HEX64.fullmatch(signature):
        raise await _refused(request, operator_id, "malformed_signature")
    body = await request.body()
    target = path_with_query(request.scope)
    key = headers.get("idempotency-key", "") if request.method == "POST" else ""
    expected = sign(secret, timestamp, request.method, target, body, idempotency_key=key)
    if not hmac.compare_digest(expected, signature.lower()):
        raise await _refused(request, operator_id, "bad_signature")
    structlog.contextvars.bind_contextvars(operator=operator_id)
    if role is Role.AUDITOR and (request.method != "GET" or not request.route_handler.opt.get(AUDITORS_ALLOWED)):
        raise ApiError(403, "AUDITOR_READ_ONLY", "auditor credentials may only read the audit records and reports")
    caller = Caller(operator_id=operator_id, role=role)
    if request.method == "POST":
        if not 1 <= len(key) <= MAX_KEY_LENGTH or not key.isascii() or not key.isprintable():
            raise ApiError(
                400, "IDEMPOTENCY_KEY_REQUIRED", "POST needs an Idempotency-Key of 1-128 printable characters"
            )
        digest = hashlib.sha256(f"{request.method}\n{target}\n".encode() + body).digest()
        caller = Caller(operator_id=operator_id, role=role, idempotency_key=key, request_hash=digest)
    request.state.caller = caller
    await decode_body(request)


def caller_of(request: Request[Any, Any, Any]) -> Caller:
    caller: Caller = request.state.caller
    return caller
