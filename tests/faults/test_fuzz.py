"""Schemathesis against the served /schema/openapi.json, every request signed as an aggregator signs it: no answer
is a 5xx, and every answer conforms to the document (status, content type, headers, body)."""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Iterator
from typing import Any

import hypothesis
import pytest
import requests
import schemathesis
from schemathesis.checks import CHECKS, load_all_checks

from service.api.auth import sign
from service.settings import Settings
from tests.support.threaded import served

EXAMPLES = int(os.environ.get("RD_FUZZ_EXAMPLES", "1"))  # per operation and mode; `make fuzz` asks for hundreds


class Signer(requests.auth.AuthBase):
    """Signs the request as it will go on the wire: its path and query as sent, its body's exact bytes."""

    def __init__(self, operator: str, secret: str) -> None:
        self.operator, self.secret = operator, secret

    def __call__(self, request: requests.PreparedRequest) -> requests.PreparedRequest:
        body = request.body or b""
        assert isinstance(body, str | bytes)  # schemathesis sends whole bodies, never streams
        raw = body.encode() if isinstance(body, str) else body
        key = ""
        if request.method == "POST":
            sent = request.headers.setdefault("Idempotency-Key", uuid.uuid4().hex)
            key = sent.decode("latin-1") if isinstance(sent, bytes) else sent
        ts = str(int(time.time()))
        assert request.method is not None
        request.headers["X-Operator-Id"] = self.operator
        request.headers["X-Timestamp"] = ts
        request.headers["X-Signature"] = sign(
            self.secret, ts, request.method, request.path_url, raw, idempotency_key=key
        )
        return request


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[tuple[str, Settings]]:
    from tests.conftest import make_settings

    settings = make_settings(database_url)
    with served(settings) as url:
        yield url, settings


# The two properties: no 5xx, and every answer as the document describes it. (Schemathesis's other checks judge
# which requests should be refused, e.g. its generated credentials, which the Signer replaces on purpose.)
CHECK_NAMES = [
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
]
# The short run (make test) sends one valid request per operation; the long one (make fuzz) invalid ones too.
MODES = [schemathesis.GenerationMode.POSITIVE] + [schemathesis.GenerationMode.NEGATIVE] * (EXAMPLES > 1)


def test_no_request_gets_a_server_error_or_an_answer_the_document_does_not_describe(
    server: tuple[str, Settings],
) -> None:
    url, settings = server
    operator, secret = next((op, s) for op, s in settings.operators.items() if op != "other")
    schema = schemathesis.openapi.from_url(f"{url}/schema/openapi.json")
    load_all_checks()
    checks = [c for c in CHECKS.get_by_names(CHECK_NAMES) if not isinstance(c, type)]
    assert len(checks) == len(CHECK_NAMES)  # all five are plain functions
    with requests.Session() as session:
        session.auth = Signer(operator, secret)
        failures = [
            failure
            for result in schema.get_all_operations()
            for mode in MODES
            # an operation schemathesis cannot read has no ok(): the test fails there
            if (failure := fuzz(result.ok(), mode, url, session, checks))  # type: ignore[union-attr]
        ]
    assert not failures, "\n\n".join(failures)


def fuzz(
    operation: schemathesis.APIOperation[Any, Any, Any, Any],
    mode: schemathesis.GenerationMode,
    url: str,
    session: requests.Session,
    checks: list[schemathesis.CheckFunction],
) -> str | None:
    """EXAMPLES requests to one operation; what failed, if anything, so that every operation's failures are shown."""

    @hypothesis.given(case=operation.as_strategy(generation_mode=mode))
    @hypothesis.settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(hypothesis.HealthCheck))
    def run(case: schemathesis.Case[Any]) -> None:
        case.call_and_validate(base_url=url, session=session, checks=checks)

    try:
        run()
    except hypothesis.errors.Unsatisfiable:
        assert mode is schemathesis.GenerationMode.NEGATIVE  # nothing to negate: no parameters, no body
    except (Exception, BaseExceptionGroup) as exc:  # schemathesis raises its failures as a group
        return f"{operation.label} ({mode.value}): {exc}"
    return None
