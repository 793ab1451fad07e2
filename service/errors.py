"""Every error becomes an RFC 9457 problem details body with a stable `code` and a `retryable` flag."""

from __future__ import annotations

from typing import Any

import asyncpg
import msgspec
import structlog
from litestar import Request, Response
from litestar.exceptions import HTTPException, ValidationException

from paytables.red_dog.red_dog import RuleError
from paytables.refusals import GameError
from service.observability import metrics
from service.observability.logs import client_gone

PROBLEM_JSON = "application/problem+json"
log = structlog.get_logger("reddog.errors")


class Problem(msgspec.Struct, kw_only=True, omit_defaults=True):
    """RFC 9457 problem details, plus our machine-readable `code` and whether a retry can succeed."""

    type: str  # always sent (no default for omit_defaults to drop): "about:blank", the status says it all
    title: str
    status: int
    detail: str
    code: str
    retryable: bool  # no default: omit_defaults would drop `"retryable": false`, and clients rely on the field
    errors: list[dict[str, Any]] | None = None


class ApiError(Exception):
    """An error the API reports as problem details."""

    def __init__(
        self,
        status: int,
        code: str,
        detail: str,
        *,
        retryable: bool = False,
        errors: list[dict[str, Any]] | None = None,
        retry_after: int = 1,
    ) -> None:
        super().__init__(detail)
        self.status = status
        self.code = code
        self.detail = detail
        self.retryable = retryable
        self.errors = errors
        self.retry_after = retry_after  # the seconds a retryable problem's Retry-After header says to wait


TITLES = {
    400: "Bad request",
    401: "Unauthenticated",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    408: "Request timeout",
    409: "Conflict",
    413: "Content too large",
    415: "Unsupported media type",
    422: "Unprocessable content",
    429: "Too many requests",
    499: "Client closed request",
    500: "Internal server error",
    503: "Service unavailable",
}

# The one map from a game's refusal (Red Dog's or In Between's) to its HTTP status: a value the rules refuse is a
# 422, a missing thing a 404, and every other refusal a 409 conflict with the state the game is in.
REFUSAL_STATUS = {
    "NOT_FOUND": 404,
    "RAISE_EXCEEDS_ANTE": 422,
    "INVALID_GAME": 422,
    "BET_OVER_POT": 422,
    "BET_OVER_CHIPS": 422,
    "BET_BELOW_MINIMUM": 422,
    "IMPOSSIBLE_CALL": 422,
    "PASS_NOT_ALLOWED": 422,
    "STOP_NOT_ALLOWED": 422,
    "BUY_NOT_ALLOWED": 422,
    "BUY_OVER_LIMIT": 422,
}


def refusal_status(code: str) -> int:
    """The status a game's refusal is answered with (NOT_YOUR_TURN, WRONG_ACTION, GAME_OVER, ...: 409)."""
    return REFUSAL_STATUS.get(code, 409)


def problem(
    status: int,
    code: str,
    detail: str,
    *,
    retryable: bool = False,
    errors: list[dict[str, Any]] | None = None,
    retry_after: int = 1,
) -> Response[Problem]:
    body = Problem(
        type="about:blank",
        title=TITLES.get(status, "Error"),
        status=status,
        detail=detail,
        code=code,
        retryable=retryable,
    )
    if errors:
        body.errors = errors
    metrics.record_problem(status, code)
    headers = {"Retry-After": str(retry_after)} if retryable else None
    return Response(content=body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


def raw_problem(status: int, code: str, detail: str, *, retryable: bool = False) -> bytes:
    """The problem document as bytes, for the HTTP layer under the app (a request that never reached it)."""
    title = TITLES.get(status, "Error")
    metrics.record_problem(status, code)
    return msgspec.json.encode(
        Problem(type="about:blank", title=title, status=status, detail=detail, code=code, retryable=retryable)
    )


def not_found(what: str) -> ApiError:
    return ApiError(404, "NOT_FOUND", f"{what} not found")


def validation(detail: str) -> ApiError:
    return ApiError(422, "VALIDATION_ERROR", detail)


def on_api_error(_: Request[Any, Any, Any], exc: ApiError) -> Response[Problem]:
    return problem(
        exc.status, exc.code, exc.detail, retryable=exc.retryable, errors=exc.errors, retry_after=exc.retry_after
    )


def on_game_error(_: Request[Any, Any, Any], exc: GameError) -> Response[Problem]:
    return problem(refusal_status(exc.code), exc.code, str(exc))


def on_rule_error(_: Request[Any, Any, Any], exc: RuleError) -> Response[Problem]:
    return problem(422, "VALIDATION_ERROR", str(exc))


def on_http_exception(request: Request[Any, Any, Any], exc: HTTPException) -> Response[Problem]:
    status = exc.status_code
    if isinstance(exc, ValidationException) or status == 400:
        errors = _as_sent(request, exc.extra) if isinstance(exc.extra, list) else None
        return problem(400, "VALIDATION_ERROR", _clean(exc.detail), errors=errors)
    if status == 413:  # Litestar's request_max_body_size: a declared Content-Length, or a body that grew past it
        limit = request.route_handler.resolve_request_max_body_size()
        return problem(413, "BODY_TOO_LARGE", f"the request body is over the server's limit of {limit} bytes")
    code = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED", 401: "UNAUTHENTICATED", 415: "UNSUPPORTED_MEDIA_TYPE"}
    if status >= 500:
        return on_unexpected(request, exc)
    return problem(status, code.get(status, "CLIENT_ERROR"), _clean(exc.detail))


def _as_sent(request: Request[Any, Any, Any], errors: list[Any]) -> list[Any]:
    """Litestar names a bad parameter by its Python name (`opened_from`): name it as the client sent it (`from`)."""
    parameters = request.route_handler.parsed_fn_signature.parameters
    for error in errors:
        field = parameters.get(error.get("key", "")) if isinstance(error, dict) else None
        sent_as = getattr(field.kwarg_definition, "name", None) if field is not None else None
        if sent_as:
            error["key"] = sent_as
    return errors


def on_database_down(_: Request[Any, Any, Any], exc: Exception) -> Response[Problem]:
    log.warning("database_unavailable", error=type(exc).__name__)
    return problem(503, "SERVICE_UNAVAILABLE", "the database is unavailable; retry shortly", retryable=True)


def on_unexpected(request: Request[Any, Any, Any], exc: Exception) -> Response[Problem]:
    if unavailable(exc):  # a refusal asyncpg has no class of its own for (55000)
        return on_database_down(request, exc)
    if client_gone():  # Litestar's "client disconnected prematurely" and the like: the client left, nothing broke
        log.info("client_disconnected", method=request.method, path=request.url.path, error=type(exc).__name__)
        # Never delivered: the status the request log and the metrics count it under (nginx's 499).
        return problem(499, "CLIENT_DISCONNECTED", "the client closed the connection before the reply")
    log.exception("unhandled_error", error=type(exc).__name__)
    # Nothing the client sent or could change: the same request would meet the same fault.
    return problem(500, "INTERNAL_ERROR", "an unexpected error occurred; it has been logged", retryable=False)


def _clean(detail: str) -> str:
    return detail or "the request is not valid"


UNAVAILABLE: tuple[type[Exception], ...] = (
    OSError,
    ConnectionError,
    asyncpg.exceptions.PostgresConnectionError,
    asyncpg.exceptions.InterfaceError,
    asyncpg.exceptions.CannotConnectNowError,
    asyncpg.exceptions.AdminShutdownError,
    asyncpg.exceptions.TooManyConnectionsError,
    # A pooled connection cut mid-operation (a database restart) can leave asyncpg's protocol in a state it refuses.
    asyncpg.exceptions.InternalClientError,
)


# SQLSTATEs of a server refusing connections for now, like one that dropped them: not accepting connections (55000,
# e.g. ALLOW_CONNECTIONS false), cannot connect now (57P03: starting, stopping, recovering), too many connections
# (53300), and a server that only reads (25006: a standby, or a primary set read-only while a failover settles).
# Matched exactly: 55000's subclasses (55P03 lock not available, 55006 object in use) are other faults.
REFUSING_SQLSTATES = frozenset({"55000", "57P03", "53300", "25006"})


def unavailable(exc: BaseException) -> bool:
    """The database is unreachable or refusing us: a fresh attempt later may succeed."""
    return isinstance(exc, UNAVAILABLE) or getattr(exc, "sqlstate", None) in REFUSING_SQLSTATES


def exception_handlers() -> dict[type[Exception] | int, Any]:
    handlers: dict[type[Exception] | int, Any] = {
        ApiError: on_api_error,
        GameError: on_game_error,
        RuleError: on_rule_error,
        HTTPException: on_http_exception,
        Exception: on_unexpected,
    }
    handlers.update(dict.fromkeys(UNAVAILABLE, on_database_down))
    return handlers
