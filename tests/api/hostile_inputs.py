"""What the property tests throw at an input: strategies for Hypothesis, and a fixed list of the values that broke
something once (the ends of the calendar, a number past a bigint, nesting 3,000 deep, a NUL) thrown at every input.

Strings carry NUL, escaped surrogates, newlines, the valid value with junk around it; numbers run past int32, int64
and a double's integers, go negative, fractional, not finite and oddly spelled; times take any offset, the ends of
the calendar or none; a body's values become any JSON value at all or arrays and objects nested up to 10,000 deep.
"""

from __future__ import annotations

import base64
import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from hypothesis import strategies as st

from tests.api.route_inputs import NO_BODY, SCENE, TIME, Case, Served

CRITICAL = ["\x00", "\n"]  # what PostgreSQL's text cannot hold, and what `$` lets through
NASTY = ["", "\r\n", "\x1b", "\x7f", " ", "\u2028", "\ufeff", "%00", "'", '"', "\\", "\ud800", "é" * 70]


def spoiled(valid: str) -> st.SearchStrategy[str]:
    """The valid value with troublemakers before or after it, a troublemaker alone, or any string at all."""
    junk = st.sampled_from(CRITICAL) | st.sampled_from(NASTY) | st.text(max_size=20)
    return st.one_of(st.builds(lambda a, b: a + valid + b, junk, junk), junk, st.text(), st.just(valid))


WIDEST = timedelta(hours=23, minutes=59)  # the widest offset Python takes (real zones span -12:00..+14:00)
EXTREME_ZONES = st.sampled_from([timedelta(hours=14), -timedelta(hours=14), WIDEST, -WIDEST]).map(timezone)
ZONES = st.none() | st.just(UTC) | st.timedeltas(-WIDEST, WIDEST).map(timezone)
CALENDAR_ENDS = st.builds(datetime.replace, st.sampled_from([datetime.min, datetime.max]), tzinfo=EXTREME_ZONES)
ANY_TIME = st.builds(datetime.replace, st.datetimes(), tzinfo=ZONES)
TIMES = (CALENDAR_ENDS | ANY_TIME).map(datetime.isoformat)


def cursor_for(opened_at: str) -> str:
    """A history cursor as the API writes one, for a round opened at `opened_at`."""
    return base64.urlsafe_b64encode(f"{opened_at}|{uuid.uuid4()}".encode()).decode().rstrip("=")


# Numbers as text: past int32, int64 and a double's integers, negative, fractional, not finite, spelled oddly.
EDGE_NUMBERS = [str(n) for n in (-1, 0, 2**31, 2**53 + 1, 2**63 - 1, 2**63, 2**64, -(2**63) - 1, 10**20, 10**400)]
ODD_NUMBERS = ["1.0", "1e3", "1e400", "NaN", "inf", "-0", "+5", " 5", "0x10", "1_000", "\u0661\u0662", "\uff15"]
NUMBER_TEXT = st.sampled_from(EDGE_NUMBERS) | st.sampled_from(ODD_NUMBERS) | st.integers().map(str)
JSON_NUMBERS = st.sampled_from([2**63, 2**64, -(2**63) - 1, 10**400, -1, 0]) | st.integers() | st.floats()
JUNK = st.recursive(
    st.none() | st.booleans() | JSON_NUMBERS | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)  # any JSON value at all (NaN and Infinity too, which JSON does not allow)


@dataclass(frozen=True)
class Deep:
    """Arrays or objects nested `depth` deep, written as text: json.dumps would recurse once a level."""

    depth: int
    key: str | None  # None: arrays


DEEP = st.builds(
    Deep, depth=st.integers(1, 40) | st.sampled_from([500, 1_000, 3_000, 10_000]), key=st.none() | st.just("x")
)

# The values that broke a route once, thrown at every input of every route, each kind at the inputs of its kind.
TEXT_KILLERS = ["\x00", "\ud800", "a\n"]
NUMBER_KILLERS = ["99999999999999999999", str(2**63), str(-(2**63) - 1), "1e400", "NaN", "-1"]
TIME_KILLERS = ["0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00", "0001-01-01T00:00:00", "9999-12-31"]
BODY_KILLERS: list[Any] = [Deep(3_000, "x"), Deep(3_000, None), Deep(33, "x"), 2**64, 10**400, float("nan")]


def hostile(valid: str) -> st.SearchStrategy[str]:
    """What to throw at a path or query parameter: the valid value spoiled, and numbers, times or ids by its kind."""
    kind = SCENE.get(valid)
    if kind == "uuid":
        return spoiled(valid) | st.uuids().map(str)
    if kind == "cursor":
        return spoiled(valid) | TIMES.map(cursor_for)
    if kind == "number" or valid.lstrip("-").isdigit():
        return spoiled(valid) | NUMBER_TEXT
    if valid == TIME:
        return spoiled(valid) | TIMES
    return spoiled(valid)


def killers(valid: str) -> list[str]:
    """The fixed values to throw at a path or query parameter, by its kind."""
    kind = SCENE.get(valid)
    if kind == "cursor":
        return [*TEXT_KILLERS, *map(cursor_for, TIME_KILLERS)]
    if kind == "number" or valid.lstrip("-").isdigit():
        return [*TEXT_KILLERS, *NUMBER_KILLERS]
    if valid == TIME:
        return [*TEXT_KILLERS, *TIME_KILLERS]
    return TEXT_KILLERS


def nodes(value: Any, at: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    """Every value in a JSON body with the path to it, the body itself first."""
    found = [(at, value)]
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for key, inner in items:
        found.extend(nodes(inner, (*at, key)))
    return found


def replaced(value: Any, at: tuple[Any, ...], new: Any) -> Any:
    """A copy of `value` with what lies at path `at` replaced by `new`."""
    if not at:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[at[0]] = replaced(value[at[0]], at[1:], new)
    return copy


def hostile_value(value: Any) -> st.SearchStrategy[Any]:
    """What to put where a body holds `value`: text spoiled, numbers out of range, any JSON, deep nesting."""
    if isinstance(value, str):
        return spoiled(value) | JSON_NUMBERS | JUNK | DEEP
    if isinstance(value, bool) or value is None:
        return JUNK | DEEP
    if isinstance(value, int):
        return JSON_NUMBERS | spoiled(str(value)) | JUNK | DEEP
    return DEEP | JUNK


def hostile_body(valid: Any) -> st.SearchStrategy[Any]:
    """The valid body with one of its values, or the whole of it, replaced by something hostile."""
    if valid is NO_BODY:
        return JUNK | DEEP  # a route that reads no body must still take one sent without harm
    return st.sampled_from(nodes(valid)).flatmap(
        lambda node: hostile_value(node[1]).map(lambda new: replaced(valid, node[0], new))
    )


def body_killers(valid: Any) -> list[Any]:
    """The valid body with each of its values in turn, and the whole of it, replaced by each fixed value."""
    if valid is NO_BODY:
        return BODY_KILLERS
    return [replaced(valid, at, new) for at, _ in nodes(valid) for new in [*BODY_KILLERS, *TEXT_KILLERS]]


def render(value: Any) -> str:
    """JSON text of a body, Deep markers written out; lone surrogates travel escaped, NaN as NaN."""
    if isinstance(value, Deep):
        opener, closer = ("[", "]") if value.key is None else ('{"' + value.key + '":', "}")
        return opener * value.depth + ("" if value.key is None else "1") + closer * value.depth
    if isinstance(value, dict):
        return "{" + ",".join(json.dumps(k) + ":" + render(v) for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(render(v) for v in value) + "]"
    return json.dumps(value)


@dataclass(frozen=True)
class Thrown:
    """One hostile request: which input is spoiled (path, query, extra, body), its name, and the value thrown."""

    where: str
    name: str
    value: Any


EXTRA = st.tuples(spoiled("extra"), spoiled("1"))  # a query parameter no route takes, and its value


def thrown(route: Served, case: Case) -> st.SearchStrategy[Thrown]:
    """One input of the route, any of them equally, with a hostile value drawn for it."""
    options: list[tuple[str, str, st.SearchStrategy[Any]]] = [
        ("path", name, hostile(valid)) for name, valid in case.path.items()
    ]
    options += [("query", name, hostile(valid)) for name, valid in case.query.items()]
    options.append(("extra", "", EXTRA))
    if route.method != "GET":
        options.append(("body", "", hostile_body(case.body)))
    return st.sampled_from(options).flatmap(lambda o: o[2].map(lambda value: Thrown(o[0], o[1], value)))


def every_killer(route: Served, case: Case) -> list[Thrown]:
    """Each fixed value at each input of the route: every request the sweep sends."""
    found = [Thrown("path", name, value) for name, valid in case.path.items() for value in killers(valid)]
    found += [Thrown("query", name, value) for name, valid in case.query.items() for value in killers(valid)]
    found += [Thrown("extra", "", (name, "1")) for name in TEXT_KILLERS]
    if route.method != "GET":
        found += [Thrown("body", "", body) for body in body_killers(case.body)]
    return found
