"""OpenAPI response specs: the success body and every problem-details error a route can answer."""

from __future__ import annotations

from typing import Annotated, Any

from litestar.openapi.datastructures import ResponseSpec
from litestar.openapi.spec import OpenAPI, Reference, RequestBody, Schema
from litestar.openapi.spec.discriminator import Discriminator
from litestar.params import HeaderParameter

from service.errors import PROBLEM_JSON, Problem

ERRORS = {
    400: "VALIDATION_ERROR (malformed JSON, unknown field, wrong type, bad query), DUPLICATE_JSON_KEY, "
    "IDEMPOTENCY_KEY_REQUIRED or DUPLICATE_HEADER",
    401: "UNAUTHENTICATED: missing or invalid X-Operator-Id / X-Timestamp / X-Signature",
    403: "FORCED_CARDS_NOT_ALLOWED: test tables and forced cards need RD_ALLOW_TEST_TABLES=true and a test table",
    404: "NOT_FOUND: no such resource for this operator",
    409: "IDEMPOTENCY_CONFLICT, NOT_IN_RAISE_WINDOW, RAISE_WINDOW_CLOSED, ALREADY_DECIDED, TABLE_CLOSED, "
    "ROUND_IN_PROGRESS, CHAIN_TRUNCATED (records a checkpoint signed are missing)",
    413: "BODY_TOO_LARGE: the body is over RD_MAX_BODY_BYTES (64 KiB by default)",
    415: "UNSUPPORTED_MEDIA_TYPE: the body is not sent as Content-Type: application/json",
    422: "VALIDATION_ERROR (values the rules refuse), BET_LIMIT, RAISE_EXCEEDS_ANTE",
    503: "SERVICE_UNAVAILABLE: the database is unreachable, refusing connections or contended; retryable. "
    "CHECKPOINTS_DISABLED: the server has no checkpoint signing key (development only)",
}


def responses(status: int, model: Any, *errors: int, description: str = "Success") -> dict[int, ResponseSpec]:
    spec = {status: ResponseSpec(data_container=model, description=description, generate_examples=False)}
    for code in (*errors, 503):
        spec[code] = ResponseSpec(
            data_container=Problem, description=ERRORS[code], media_type=PROBLEM_JSON, generate_examples=False
        )
    return spec


SIGNED = (400, 401)
JSON_BODY = (413, 415)  # routes that read a JSON body


# Documented here so the schema shows them; `service.auth.authenticate` checks them before anything else runs.
SIGNATURE_HEADERS = {
    "x_operator_id": HeaderParameter(
        annotation=str, name="X-Operator-Id", description="the operator's id", max_length=128
    ),
    "x_timestamp": HeaderParameter(
        annotation=str,
        name="X-Timestamp",
        description="unix seconds; refused when more than 300 s from the server clock",
    ),
    "x_signature": HeaderParameter(
        annotation=str,
        name="X-Signature",
        description="lowercase hex HMAC-SHA256 with the operator secret over timestamp + '\\n' + METHOD + '\\n' + "
        "path_with_query + '\\n' + idempotency_key (empty for a GET) + '\\n' + raw_body",
        min_length=64,
        max_length=64,
    ),
}
# A handler parameter (not a layered one) so the schema lists it on every POST; authenticate() checks it first.
IdempotencyKey = Annotated[
    str,
    HeaderParameter(
        name="Idempotency-Key",
        description="1-128 printable characters, scoped to the operator; a retry with the same key and request "
        "returns the first reply byte for byte (header Idempotent-Replayed: true)",
        min_length=1,
        max_length=128,
    ),
]


def name_body_union(openapi: OpenAPI, name: str, path: str, tag_field: str) -> None:
    """Give a route's tagged-union body one named component with a discriminator (Litestar writes the union inline),
    so a generated client has one type for it and picks the variant by the tag."""
    operation = openapi.paths[path].post if openapi.paths else None
    assert operation is not None, path
    assert isinstance(operation.request_body, RequestBody), path
    content = operation.request_body.content["application/json"]
    union = content.schema
    assert isinstance(union, Schema), path
    assert union.one_of, f"{path} has no union body"
    variants = [ref for ref in union.one_of if isinstance(ref, Reference)]
    mapping = {_tag(openapi, ref, tag_field): ref.ref for ref in variants}
    schemas = openapi.components.schemas
    schemas[name] = Schema(one_of=variants, discriminator=Discriminator(property_name=tag_field, mapping=mapping))
    content.schema = Reference(ref=f"#/components/schemas/{name}")


def _tag(openapi: OpenAPI, ref: Reference, tag_field: str) -> str:
    schema = openapi.components.schemas[ref.ref.rsplit("/", 1)[-1]]
    assert schema.properties is not None
    tag = schema.properties[tag_field]
    assert isinstance(tag, Schema)
    return str(tag.const)


def optional_body(openapi: OpenAPI, path: str) -> None:
    """Document a POST body that may be left empty (an empty body means the defaults)."""
    operation = openapi.paths[path].post if openapi.paths else None
    assert operation is not None, path
    assert isinstance(operation.request_body, RequestBody), path
    operation.request_body.required = False
