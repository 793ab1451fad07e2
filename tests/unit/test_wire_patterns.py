"""Every text a request carries is matched as a whole: msgspec searches with `re.search`, where `^…$` also takes a
value with a trailing newline."""

from __future__ import annotations

import re
from collections.abc import Iterator

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.api import inbetween_wire, wire

REQUESTS = (
    wire.CreateTable,
    wire.CreateRound,
    wire.RaiseIn,
    wire.CallIn,
    wire.VoidIn,
    wire.CloseIn,
    wire.RecallLinkIn,
    inbetween_wire.CreateGame,
    inbetween_wire.CallAceIn,
    inbetween_wire.CallPairIn,
    inbetween_wire.PlaceBetIn,
    inbetween_wire.PassIn,
)


def text_fields(info: msgspec.inspect.Type, path: str) -> Iterator[tuple[str, msgspec.inspect.StrType]]:
    """(path, string type) of every string inside a request type, however deep."""
    match info:
        case msgspec.inspect.StrType():
            yield path, info
        case msgspec.inspect.Metadata(type=inner):
            yield from text_fields(inner, path)
        case msgspec.inspect.StructType(fields=fields):
            for field in fields:
                yield from text_fields(field.type, f"{path}.{field.name}")
        case msgspec.inspect.ListType(item_type=item):
            yield from text_fields(item, f"{path}[]")
        case msgspec.inspect.UnionType(types=types):
            for member in types:
                yield from text_fields(member, path)


FIELDS = dict(
    field for request in REQUESTS for field in text_fields(msgspec.inspect.type_info(request), request.__name__)
)


def test_every_free_text_field_has_a_pattern_and_the_scan_found_them() -> None:
    assert {
        "CreateTable.name",
        "CreateTable.currency",
        "BetIn.player_id",
        "VoidIn.reason",
        "VoidIn.requested_by",
        "CreateGame.ruleset",
        "PassIn.player_id",
    } <= {path.replace("CreateRound.bets[]", "BetIn") for path in FIELDS}
    assert all(info.pattern is not None for info in FIELDS.values()), FIELDS


@pytest.mark.parametrize("path", sorted(FIELDS))
def test_every_pattern_is_anchored_at_both_ends_against_a_trailing_newline(path: str) -> None:
    pattern = FIELDS[path].pattern
    assert pattern is not None
    assert pattern.startswith("^(?:")
    assert pattern.endswith(r")$(?!\n)")


VALID = {
    "currency": "EUR",
    "player_id": "alice",
    "forced_cards[]": "TD",
    "name": "main",
    "reason": "misdeal",
    "requested_by": "pit boss 7",
    "ruleset": "inbetween/nepal/v1",
}


@pytest.mark.parametrize("field", sorted(VALID))
def test_a_valid_value_is_taken_and_the_same_with_a_newline_after_it_is_not(field: str) -> None:
    (pattern,) = {i.pattern for path, i in FIELDS.items() if path.endswith(f".{field}")}  # one pattern a name
    assert pattern is not None
    assert re.search(pattern, VALID[field])
    if field != "reason":  # prose may end with a newline; the rest are one line
        assert not re.search(pattern, VALID[field] + "\n")


@given(st.text())
def test_a_label_is_taken_exactly_when_it_has_no_control_character(text: str) -> None:
    taken = re.search(wire.whole(wire.LABEL), text) is not None
    by_hand = text != "" and not any(ord(c) < 0x20 or ord(c) == 0x7F for c in text)
    assert taken == by_hand


def test_msgspec_applies_the_patterns_to_a_request() -> None:
    raw = b'{"name":"t","paytable":"p","currency":"EUR\\n","min_ante":1,"max_ante":2}'
    with pytest.raises(msgspec.ValidationError, match="currency"):
        msgspec.json.decode(raw, type=wire.CreateTable, strict=True)
