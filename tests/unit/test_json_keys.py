"""A key given twice in one JSON object is found, however the JSON is spelled, and only then."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from service.api.json_keys import repeated_key

KEYS = st.sampled_from(["a", "b", "mode", 'q"uote', "back\\slash", "{", "}", "[", ":", "é", "\u2028", ""])
SCALARS = st.none() | st.booleans() | st.integers() | st.sampled_from(["x", '"', "{", "}", "[", "]", ":", ",", "\\"])


class Pairs(list[tuple[str, Any]]):
    """A JSON object as written: its pairs in order, repeats allowed (a dict could not hold them)."""


JSONISH = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.lists(st.tuples(KEYS, inner), max_size=4).map(Pairs),
    max_leaves=20,
)


def write(value: Any, ascii_only: bool, space: str) -> str:
    """JSON text, every object's pairs in the order given; escapes and whitespace vary."""
    if isinstance(value, Pairs):
        pairs = (
            f"{json.dumps(k, ensure_ascii=ascii_only)}{space}:{space}{write(v, ascii_only, space)}" for k, v in value
        )
        return "{" + f",{space}".join(pairs) + "}"
    if isinstance(value, list):
        return "[" + f",{space}".join(write(v, ascii_only, space) for v in value) + "]"
    return json.dumps(value, ensure_ascii=ascii_only)


def repeats(value: Any) -> set[str]:
    """The oracle, from the structure the text was written from: every key some object holds twice."""
    found: set[str] = set()
    if isinstance(value, Pairs):
        keys = [k for k, _ in value]
        found.update(k for i, k in enumerate(keys) if k in keys[:i])
    if isinstance(value, list):
        for item in value:
            found |= repeats(item[1] if isinstance(value, Pairs) else item)
    return found


@given(JSONISH, st.booleans(), st.sampled_from(["", " ", "\n\t "]))
def test_a_repeated_key_is_found_exactly_when_some_object_holds_one(value: Any, ascii_only: bool, space: str) -> None:
    text = write(value, ascii_only, space)
    expected = repeats(value)
    found = repeated_key(text.encode())
    assert (found is None) == (not expected), text
    assert found is None or found in expected, text


def test_a_key_spelled_with_escapes_is_the_same_key() -> None:
    assert repeated_key(rb'{"mode":"live","mo\u0064e":"test"}') == "mode"
    assert repeated_key(rb'{"a":{"mode":1},"mode":2}') is None  # one each in two objects


@given(st.binary(max_size=200))
def test_any_bytes_at_all_get_an_answer_and_never_an_exception(raw: bytes) -> None:
    result = repeated_key(raw)
    assert result is None or isinstance(result, str)


def test_a_body_nested_beyond_the_parser_s_depth_is_not_an_error() -> None:
    assert repeated_key(b"[" * 100_000 + b"]" * 100_000) is None
