"""Whatever a client puts in any input of any route the app serves, the answer is never a 5xx, and a refusal writes
nothing: Hypothesis throws strings, numbers, times, any JSON and deep nesting (tests/api/hostile_inputs.py) at the
real app on PostgreSQL, and a sweep throws every value that once broke a route at every input of every route.

The routes are read from the built app when the tests are collected and run (tests/api/route_inputs.py): a route
without a case, or a path parameter, query parameter or body its case gives no valid value for, fails. One input is
spoiled at a time and the others stay valid, so the spoiled value gets as far as it can (towards SQL) instead of
being refused for a sibling. Kept to a few dozen requests a route so `make test` stays fast.
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Annotated, Any
from urllib.parse import parse_qs, quote, urlsplit
from uuid import UUID

import asyncpg
import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from litestar import Litestar, Request, post
from litestar.exceptions import LitestarDeprecationWarning
from litestar.params import CookieParameter, FromPath, QueryParameter

from service.api import wire
from service.api.bodies import body
from service.api.openapi.openapi_docs import IdempotencyKey
from service.api.openapi.schema_site import SCHEMA_PATH
from service.app import create_app
from tests.api import friends_helpers as friends
from tests.api.helpers import counts, fingerprint, open_round
from tests.api.hostile_inputs import Thrown, cursor_for, every_killer, render, thrown
from tests.api.route_inputs import GAME_BODY, NO_BODY, TIME, Case, Served, cases, served_routes
from tests.conftest import make_settings
from tests.support.client import Signed

PROPERTY = settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
TABLE = {"name": "t", "paytable": "standard/v1", "currency": "EUR", "min_ante": 1, "max_ante": 1000}


def assert_never_5xx(response: httpx.Response, *, page_misses: bool = False) -> None:
    """Below 500, and a refusal is problem details; `page_misses`: a 404 may be an HTML page (the schema site's
    own, as Litestar writes it for a browser)."""
    assert response.status_code < 500, response.text
    html = response.headers.get("content-type", "").startswith("text/html")
    if response.status_code >= 400 and not (page_misses and response.status_code == 404 and html):
        assert response.headers["content-type"].startswith("application/problem+json"), response.text
        assert isinstance(response.json()["code"], str)


def query(values: dict[str, str]) -> str:
    """A query string; a lone surrogate goes out as the invalid UTF-8 it would be."""
    escaped = (quote(text, safe="", errors="surrogatepass") for pair in values.items() for text in pair)
    return "&".join(f"{k}={v}" for k, v in zip(escaped, escaped, strict=True))


HEADER_TEXT = st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF), max_size=140)  # what HTTP can carry


@given(key=HEADER_TEXT | st.just("key-1"), request_id=HEADER_TEXT | st.just("req-1"))
@PROPERTY
async def test_any_idempotency_key_or_request_id_is_a_4xx_or_a_table(
    api: Signed, db: asyncpg.Connection, key: str, request_id: str
) -> None:
    raw = json.dumps(TABLE).encode()
    headers = {**api.headers("POST", "/v1/tables", raw, key=key or "k"), "x-request-id": request_id}
    encoded = {k.encode(): v.encode("latin-1") for k, v in headers.items()}  # header bytes as sent, Latin-1 too
    before = await counts(db, api.operator_id)
    response = await api.client.post("/v1/tables", content=raw, headers=encoded)
    assert_never_5xx(response)
    if response.status_code >= 400:
        assert await counts(db, api.operator_id) == before


async def written(db: asyncpg.Connection, operator_id: str, ids: dict[str, str] | None = None) -> tuple[Any, ...]:
    """Every row a request of this operator could write or change: its tables, rounds, keys, games, records; and the
    friends' tables of the scene, with their seats (what a refused friends' request must leave as it was)."""
    games = await db.fetch(
        "SELECT game_id, status, state::text, audit_seq FROM inbetween_games WHERE operator_id = $1 ORDER BY game_id",
        operator_id,
    )
    game_records = await db.fetchval(
        "SELECT count(*) FROM audit_log a JOIN inbetween_games g ON g.game_id = a.table_id WHERE g.operator_id = $1",
        operator_id,
    )
    codes = [v for k, v in (ids or {}).items() if k in FRIENDS_CODES]
    friends = await db.fetch(
        "SELECT t.code, t.status, t.version, t.host_seat, t.game_id, t.turn_deadline, t.active_at,"
        " (SELECT array_agg((s.seat, s.name, s.held_by, s.missed, s.personality, s.token_hash) ORDER BY s.seat)::text"
        "  FROM friends_seats s WHERE s.table_id = t.table_id) AS seats"
        " FROM friends_tables t WHERE t.code = ANY($1::text[]) ORDER BY t.code",
        codes,
    )
    return (await fingerprint(db, operator_id), [tuple(g) for g in games], game_records, [tuple(f) for f in friends])


FRIENDS_CODES = ("{code}", "{played}", "{held}")


async def friends_scene(client: httpx.AsyncClient, text: str) -> dict[str, str]:
    """The friends' tables a case names: one waiting (a guest in seat 1), one whose game waits for a person's pass
    (dealt again until its first decision is no ace call), one whose guest the computer plays."""
    ids: dict[str, str] = {}
    if "{code}" in text:
        host = await friends.create(client, seats=8)
        guest = await friends.join(client, host.code, "Guest")
        ids.update({"{code}": host.code, "{host}": str(host.token), "{guest}": str(guest.token)})
    if "{played}" in text:
        for _ in range(50):
            host = await friends.create(client, seats=2)
            guest = await friends.join(client, host.code, "Guest")
            started = await host.ok("/start")
            if started["game"]["awaiting"] != "ace_call":
                break
        mover = host if started["game"]["to_act"] == "seat-0" else guest
        ids.update({"{played}": host.code, "{mover}": str(mover.token), "{version}": str(started["game"]["version"])})
    if "{held}" in text:
        host = await friends.create(client, seats=2)
        guest = await friends.join(client, host.code, "Guest")
        await host.ok("/start")
        await host.ok("/seats/1/computer", {})
        ids.update({"{held}": host.code, "{held_host}": str(host.token), "{held_guest}": str(guest.token)})
    return ids


NUMBERS = {"{version}"}  # placeholders a body carries as JSON numbers, not strings


def fill(value: Any, scene: dict[str, str]) -> Any:
    """The value with every placeholder of the scene put in, in strings and in a body's strings."""
    if isinstance(value, str) and value in NUMBERS and value in scene:  # a body's number, such as a game's version
        return int(scene[value])
    if isinstance(value, str):
        for placeholder, real in scene.items():
            value = value.replace(placeholder, real)
        return value
    if isinstance(value, dict):
        return {fill(k, scene): fill(v, scene) for k, v in value.items()}
    if isinstance(value, list):
        return [fill(v, scene) for v in value]
    return value


async def scene(api: Signed, case: Case) -> dict[str, str]:
    """The ids a case's valid values name, made new: a request that succeeded may have used the last ones up."""
    text = repr(case)
    ids = {"{cursor}": cursor_for(TIME), **await friends_scene(api.client, text)}
    if "{signed_table}" in text:  # a round's proof signs its table's head: the table then has a checkpoint
        settled = await open_round(api, (await api.table(mode="test"))["table_id"], [("alice", 10)], ["5S", "6H"])
        await api.ok("GET", f"/v1/rounds/{settled['round_id']}/proof")
        ids["{signed_table}"] = settled["table_id"]
    if any(p in text for p in ("{table}", "{round}", "{bet}", "{settled}", "{sig}")):
        ids["{table}"] = (await api.table(mode="test"))["table_id"]
    if "{settled}" in text:  # consecutive: settles at once, before the open round takes the table
        ids["{settled}"] = (await open_round(api, ids["{table}"], [("alice", 10)], ["5S", "6H"]))["round_id"]
    if "{sig}" in text:
        link = await api.ok("POST", f"/v1/rounds/{ids['{settled}']}/recall-link", {"player_id": "alice"})
        signed = parse_qs(urlsplit(link["url"]).query)
        ids["{expires}"], ids["{sig}"] = signed["expires"][0], signed["sig"][0]
    if "{round}" in text or "{bet}" in text:
        opened = await open_round(api, ids["{table}"], [("alice", 10)], ["4S", "TH"])
        ids["{round}"], ids["{bet}"] = opened["round_id"], opened["bets"][0]["bet_id"]
    if "{game}" in text:
        game = await api.ok("POST", "/v1/inbetween/games", GAME_BODY)
        ids["{game}"], ids["{version}"] = game["game_id"], str(game["version"])
    return ids


def bearer_of(case: Case, ids: dict[str, str]) -> str | None:
    return None if case.bearer is None else ids[case.bearer]


PATH_PARAMETER = re.compile(r"\{(\w+)(?::\w+)?\}")


def segment(value: str) -> str:
    """A path parameter as one segment of the target. A segment of "." or ".." is a dot-segment that a client removes
    before sending (RFC 3986 5.2.4: httpx sent /v1/rounds/. as /v1/rounds, so it reached another route under a
    signature of the first), so those are sent percent-encoded, as a client sends a parameter that holds them."""
    quoted = quote(value, safe="", errors="surrogatepass")
    return quoted.replace(".", "%2E") if quoted in {".", ".."} else quoted


def request_of(route: Served, case: Case, spoil: Thrown | None, ids: dict[str, str]) -> tuple[str, bytes]:
    """The request target and body of the case's valid request, with the one spoiled input in it."""
    path_values = dict(case.path)
    query_values = {n: case.query[n] for n in case.required}
    extra: dict[str, str] = {}
    body = case.body
    if spoil is not None:
        match spoil.where:
            case "path":
                path_values[spoil.name] = spoil.value
            case "query":
                query_values[spoil.name] = spoil.value
            case "extra":
                extra = {spoil.value[0]: spoil.value[1]}
            case "body":
                body = spoil.value
    path = PATH_PARAMETER.sub(lambda m: segment(fill(path_values[m.group(1)], ids)), route.path)
    values = {n: fill(v, ids) for n, v in query_values.items()} | extra
    target = f"{path}?{query(values)}" if values else path
    raw = b"" if body is NO_BODY or route.method == "GET" else render(fill(body, ids)).encode()
    return target, raw


async def send(api: Signed, method: str, target: str, raw: bytes, bearer: str | None = None) -> httpx.Response:
    """A signed request as an operator sends it (a POST with a fresh Idempotency-Key); with a friends' seat token
    (which the friends' routes read, and which the signed routes ignore) when the case acts by one."""
    headers = api.headers(method, target, raw, key=uuid.uuid4().hex if method == "POST" else "")
    if bearer is not None:
        headers["authorization"] = f"Bearer {bearer}"
    return await api.client.request(method, target, content=raw, headers=headers)


CASES = cases()
# Listed from an app built as the tests build theirs, when this module is collected: a route added later is a case
# of the property test below whether or not anyone wrote it a strategy (and fails until someone does).
SERVED = served_routes(create_app(make_settings("postgresql://unused@localhost/unused"), sweep=False))


def case_of(route: Served) -> Case:
    """The route's case, which must give a valid value for each of its inputs."""
    case = CASES.get(route.key)
    assert case is not None, f"{route.key}: no strategy for it in tests/api/route_inputs.py"
    assert case.gaps(route) == [], route.key
    return case


def test_every_route_the_app_serves_has_a_valid_value_for_each_path_and_query_parameter_and_body(app: Litestar) -> None:
    routes = {route.key: route for route in served_routes(app)}
    missing = sorted(set(routes) - set(CASES))
    assert missing == [], f"routes without a case in tests/api/route_inputs.py: {missing}"
    gaps = {key: gaps for key, route in routes.items() if (gaps := CASES[key].gaps(route))}
    assert gaps == {}
    assert sorted(set(CASES) - set(routes)) == []  # a case for a route that is gone


@post("/planted/{thing_id:uuid}", **body(wire.VoidIn))
async def planted(
    request: Request[Any, Any, Any],
    thing_id: FromPath[UUID],
    idempotency_key: IdempotencyKey,
    unmarked: int = 0,
    renamed: Annotated[str | None, QueryParameter(name="from")] = None,
    session: Annotated[str | None, CookieParameter(name="session")] = None,
) -> None:
    """A route of every kind of input, to show the listing sees each one that a case must cover."""


def test_the_listing_finds_each_path_and_query_parameter_and_body_a_new_route_takes_and_says_what_a_case_lacks() -> (
    None
):
    with pytest.warns(LitestarDeprecationWarning, match="unmarked"):  # Litestar still reads it from the query
        app = Litestar([planted], openapi_config=None)
    listed = {r.key: r for r in served_routes(app)}
    assert sorted(listed) == ["POST /planted/{thing_id:uuid}"]  # Litestar's own OPTIONS handler is left out
    route = listed["POST /planted/{thing_id:uuid}"]
    assert (route.path_params, route.query, route.body) == (
        frozenset({"thing_id"}),
        frozenset({"unmarked", "from"}),
        True,
    )
    assert Case(path={"thing_id": "{table}"}, query={"from": TIME}).gaps(route) == [
        "query parameter unmarked",
        "its body",
    ]
    assert Case(path={"id": "x"}, query={"unmarked": "1", "from": TIME}, body={}).gaps(route) == [
        "path parameter thing_id",
        "no such path parameter id",
    ]


@pytest.mark.parametrize("route", SERVED, ids=lambda route: route.key)
async def test_each_case_is_a_request_its_route_answers(api: Signed, route: Served) -> None:
    case = case_of(route)
    ids = await scene(api, case)
    target, raw = request_of(route, case, None, ids)
    response = await send(api, route.method, target, raw, bearer_of(case, ids))
    assert response.status_code < 300, response.text


async def throw(api: Signed, db: asyncpg.Connection, route: Served, spoil: Thrown, ids: dict[str, str]) -> bool:
    """Send the case's request with the one spoiled input; never a 5xx, and a refusal writes nothing. Whether the
    scene is left as it was (a refusal, or a read), so the next request may use it again."""
    target, raw = request_of(route, CASES[route.key], spoil, ids)
    before = await written(db, api.operator_id, ids)
    response = await send(api, route.method, target, raw, bearer_of(CASES[route.key], ids))
    # The request is signed: a 401 would mean it went nowhere; but a friends' seat token is good for its own table
    # only, so with the table's code spoiled it acts for no seat (SEAT_TOKEN_INVALID), as it should.
    spoiled_code = CASES[route.key].bearer is not None and (spoil.where, spoil.name) == ("path", "code")
    assert response.status_code != 401 or spoiled_code, response.text
    assert_never_5xx(response, page_misses=route.path.startswith(f"{SCHEMA_PATH}/"))
    if response.status_code >= 400:
        assert await written(db, api.operator_id, ids) == before, (spoil, response.text)
    return response.status_code >= 400 or route.method == "GET"


@pytest.fixture
def kept() -> dict[str, dict[str, str]]:
    """The scene of the last example, kept for the next while requests are refused (a refusal writes nothing)."""
    return {}


@pytest.mark.parametrize("route", SERVED, ids=lambda route: route.key)
@given(data=st.data())
@PROPERTY
async def test_any_hostile_path_query_or_body_is_a_4xx_or_an_answer_and_a_refusal_writes_nothing(
    api: Signed, db: asyncpg.Connection, kept: dict[str, dict[str, str]], route: Served, data: st.DataObject
) -> None:
    case = case_of(route)
    spoil = data.draw(thrown(route, case))
    ids = kept.get("ids") or await scene(api, case)
    kept["ids"] = ids if await throw(api, db, route, spoil, ids) else {}


@pytest.mark.parametrize("route", SERVED, ids=lambda route: route.key)
async def test_every_value_that_once_broke_a_route_at_every_input_is_a_4xx_or_an_answer_and_writes_nothing_refused(
    api: Signed, db: asyncpg.Connection, route: Served
) -> None:
    case = case_of(route)
    ids: dict[str, str] = {}
    for spoil in every_killer(route, case):
        ids = ids or await scene(api, case)
        ids = ids if await throw(api, db, route, spoil, ids) else {}
