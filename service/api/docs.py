"""OpenAPI response specs: the success body and every problem-details error a route can answer."""

from __future__ import annotations

from typing import Any

from litestar.openapi.datastructures import ResponseSpec

from service.errors import PROBLEM_JSON, Problem

ERRORS = {
    400: "VALIDATION_ERROR (malformed JSON, unknown field, wrong type, bad query) or IDEMPOTENCY_KEY_REQUIRED",
    401: "UNAUTHENTICATED: missing or invalid X-Operator-Id / X-Timestamp / X-Signature",
    403: "FORCED_CARDS_NOT_ALLOWED: test tables and forced cards need RD_ALLOW_TEST_TABLES=true and a test table",
    404: "NOT_FOUND: no such resource for this operator",
    409: "IDEMPOTENCY_CONFLICT, NOT_IN_RAISE_WINDOW, RAISE_WINDOW_CLOSED, ALREADY_DECIDED, TABLE_CLOSED, "
    "ROUND_IN_PROGRESS",
    422: "VALIDATION_ERROR (values the rules refuse), BET_LIMIT, RAISE_EXCEEDS_ANTE",
    503: "SERVICE_UNAVAILABLE: the database is unreachable or contended; retryable",
}


def responses(status: int, model: Any, *errors: int, description: str = "Success") -> dict[int, ResponseSpec]:
    spec = {status: ResponseSpec(data_container=model, description=description, generate_examples=False)}
    for code in (*errors, 503):
        spec[code] = ResponseSpec(
            data_container=Problem, description=ERRORS[code], media_type=PROBLEM_JSON, generate_examples=False
        )
    return spec


SIGNED = (400, 401)
