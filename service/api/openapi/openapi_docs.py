"""OpenAPI response specs: the success body and every problem-details error a route can answer."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any

from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import Example
from litestar.params import HeaderParameter

from service.errors import PROBLEM_JSON, TITLES, Problem
from service.problem_codes import when

ERRORS = {
    400: "VALIDATION_ERROR (malformed JSON, unknown field, wrong type, bad query), DUPLICATE_JSON_KEY, "
    "IDEMPOTENCY_KEY_REQUIRED or DUPLICATE_HEADER",
    401: "UNAUTHENTICATED: missing or invalid X-Operator-Id / X-Timestamp / X-Signature",
    403: "FORCED_CARDS_NOT_ALLOWED: test tables and forced cards need RD_ALLOW_TEST_TABLES=true and a test table; "
    "AUDITOR_READ_ONLY: auditor credentials on a route that is not theirs",
    404: "NOT_FOUND: no such resource for this operator",
    409: "IDEMPOTENCY_CONFLICT, NOT_IN_RAISE_WINDOW, RAISE_WINDOW_CLOSED, ALREADY_DECIDED, TABLE_CLOSED, "
    "ROUND_IN_PROGRESS, ROLLBACK_GRACE_EXPIRED, CHAIN_TRUNCATED (records a checkpoint signed are missing)",
    405: "METHOD_NOT_ALLOWED: the path does not take this method",
    413: "BODY_TOO_LARGE: the body is over RD_MAX_BODY_BYTES (64 KiB by default)",
    415: "UNSUPPORTED_MEDIA_TYPE: the body is not sent as Content-Type: application/json",
    422: "VALIDATION_ERROR (values the rules refuse), BET_LIMIT, RAISE_EXCEEDS_ANTE",
    503: "SERVICE_UNAVAILABLE: the database is unreachable, refusing connections or contended; retryable. "
    "CHECKPOINTS_DISABLED: the server has no checkpoint signing key (development only). "
    "CHAIN_BEHIND_CHECKPOINT: the table's chain is behind a published checkpoint (after a failover or a restore) "
    "until an operator accepts the fork",
}


def responses(
    status: int,
    model: Any,
    *errors: int,
    description: str = "Success",
    conflicts: tuple[str, ...] = (),
    meanings: Mapping[int, str] = ERRORS,
) -> dict[int, ResponseSpec]:
    """The success body and the problems, in status order, each described by `meanings` (a route family's words);
    a 409 lists, with an example each, the `conflicts` this route answers (every 409 code when none are named)."""
    spec = {status: ResponseSpec(data_container=model, description=description, generate_examples=False)}
    for code in sorted(set(errors)):
        spec[code] = ResponseSpec(
            data_container=Problem, description=meanings[code], media_type=PROBLEM_JSON, generate_examples=False
        )
    if conflicts:
        spec[409] = conflict_spec(conflicts)
    return spec


def conflict_spec(codes: tuple[str, ...]) -> ResponseSpec:
    """A 409 that lists, and gives an example of, only the conflicts its route can answer."""
    return problem_spec(409, codes)


def problem_spec(status: int, codes: tuple[str, ...]) -> ResponseSpec:
    """A problem response that lists, and gives an example of, exactly the codes its route answers at `status`."""
    examples = [
        Example(
            id=code,
            summary=code,
            value={
                "type": "about:blank",
                "title": TITLES.get(status, "Error"),  # as `service.errors.problem` titles it
                "status": status,
                "code": code,
                "detail": when(code, status),
                "retryable": "retryable" in when(code, status),
            },
        )
        for code in codes
    ]
    return ResponseSpec(
        data_container=Problem,
        description="; ".join(f"{code}: {when(code, status)}" for code in codes),
        media_type=PROBLEM_JSON,
        generate_examples=False,
        examples=examples,
    )


SIGNED = (400, 401, 503)  # a signed route reads the database, which may be unreachable
KEY = ("IDEMPOTENCY_CONFLICT",)  # every POST: its Idempotency-Key was used for another request
JSON_BODY = (413, 415)  # routes that read a JSON body


# A handler parameter so the schema lists it on every POST; authenticate() checks it first and refuses a POST
# without one (400 IDEMPOTENCY_KEY_REQUIRED, before the signature). Optional here so Litestar's own check does not
# answer first with another problem; the document declares it required (openapi_generators).
IdempotencyKey = Annotated[
    str | None,
    HeaderParameter(
        name="Idempotency-Key",
        description="1-128 printable characters, scoped to the operator; a retry with the same key and request "
        "returns the first reply byte for byte (header Idempotent-Replayed: true)",
        min_length=1,
        max_length=128,
        required=False,
    ),
]


def name_body_union(doc: dict[str, Any], name: str, path: str, tag_field: str) -> None:
    """Give a route's tagged-union body one named component with a discriminator (Litestar writes the union inline),
    so a generated client has one type for it and picks the variant by the tag."""
    content = doc["paths"][path]["post"]["requestBody"]["content"]["application/json"]
    variants = [branch for branch in content["schema"]["oneOf"] if "$ref" in branch]
    assert variants, f"{path} has no union body"
    schemas = doc["components"]["schemas"]
    mapping = {schemas[v["$ref"].rsplit("/", 1)[-1]]["properties"][tag_field]["const"]: v["$ref"] for v in variants}
    schemas[name] = {"oneOf": variants, "discriminator": {"propertyName": tag_field, "mapping": mapping}}
    content["schema"] = {"$ref": f"#/components/schemas/{name}"}


def optional_body(doc: dict[str, Any], path: str) -> None:
    """Document a POST body that may be left empty (an empty body means the defaults)."""
    doc["paths"][path]["post"]["requestBody"]["required"] = False
