"""A body's nesting is measured as JSON nests, brackets inside strings not counted, and refused only past the bound."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.api.bodies import MAX_DEPTH, refuse_deep_nesting
from service.errors import ApiError

TEXT = st.text(st.sampled_from('[{"\\]}x:, \u2028é'), max_size=24)  # strings that look like structure
NEAR_THE_BOUND = st.integers(MAX_DEPTH - 3, MAX_DEPTH + 3) | st.integers(0, MAX_DEPTH + 8)
SHAPES = NEAR_THE_BOUND.flatmap(
    lambda n: st.tuples(st.text(st.sampled_from("[{"), min_size=n, max_size=n), st.lists(TEXT, min_size=n, max_size=n))
)  # the openers from the inside out, and each level's key


def wrap(value: Any, shape: str, keys: list[str], sibling: str) -> Any:
    """`value` inside one array or object per character of `shape`, each beside a string of brackets."""
    for opener, key in zip(shape, keys, strict=True):
        value = [sibling, value] if opener == "[" else {key + "_": sibling, key: value}
    return value


@given(
    shape=SHAPES,
    leaf=st.none() | st.integers() | TEXT,
    sibling=TEXT,
    ascii_only=st.booleans(),
)
def test_a_body_is_refused_exactly_when_it_nests_deeper_than_the_bound(
    shape: tuple[str, list[str]], leaf: Any, sibling: str, ascii_only: bool
) -> None:
    openers, keys = shape
    raw = json.dumps(wrap(leaf, openers, keys, sibling), ensure_ascii=ascii_only).encode()
    if len(openers) > MAX_DEPTH:
        with pytest.raises(ApiError) as refused:
            refuse_deep_nesting(raw)
        assert (refused.value.status, refused.value.code) == (400, "VALIDATION_ERROR")
    else:
        refuse_deep_nesting(raw)


def test_thousands_of_brackets_inside_one_string_are_text_not_nesting_past_escaped_quotes_and_backslashes() -> None:
    for reason in ('say "' + "[{" * 5_000, "ends in a backslash\\", 'a \\" b ' + "[" * 100):
        refuse_deep_nesting(json.dumps([{"reason": reason}, "[{" * 100]).encode())
