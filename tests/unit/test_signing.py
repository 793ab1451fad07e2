"""The signed bytes are exactly what docs/api.md spells out, so a client written from the page interoperates."""

from __future__ import annotations

import hashlib
import hmac

from service.api.auth import sign, signing_message


def test_a_post_signs_its_idempotency_key_on_its_own_line_before_the_body() -> None:
    got = signing_message("1767225600", "POST", "/v1/rounds/1f0/void", b'{"reason":"x"}', "k-1")
    assert got == b'1767225600\nPOST\n/v1/rounds/1f0/void\nk-1\n{"reason":"x"}'


def test_a_get_signs_an_empty_key_line_and_no_body() -> None:
    assert signing_message("1767225600", "GET", "/v1/tables?limit=5", b"") == b"1767225600\nGET\n/v1/tables?limit=5\n\n"


def test_the_signature_is_lowercase_hex_hmac_sha256_of_those_bytes() -> None:
    message = b"1767225600\nPOST\n/v1/tables\nk-1\n{}"
    expected = hmac.new(b"demo-secret", message, hashlib.sha256).hexdigest()
    assert sign("demo-secret", "1767225600", "POST", "/v1/tables", b"{}", idempotency_key="k-1") == expected
    assert sign("demo-secret", "1767225600", "POST", "/v1/tables", b"{}", idempotency_key="k-2") != expected
