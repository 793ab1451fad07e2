"""The hot routes answer alike on the real app whichever path serves them: the lean one (service/runtime/lean_routes.py)
or Litestar's own handler path (`create_app(..., lean=False)`), for open, decide, replays and every refusal.

Both apps share one database and one operator, each playing a world of its own with a clock of its own
(tests/support/two_paths.py): an answer is compared whole, status, headers in order, body bytes and the status the
request log counted, once the ids and shoe values each world drew at random are written in the lean world's words.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from litestar import Litestar

from service.app import create_app
from service.settings import Settings
from tests.api.helpers import problem
from tests.conftest import make_settings
from tests.support.lean_paths import HOT_ROUTES, served_lean
from tests.support.two_paths import (
    Send,
    TwoPaths,
    answer,
    as_auditor,
    borrow,
    both_ok,
    both_paths,
    database_gone,
    headers_as_sent,
    later,
    post,
    post_with,
)

SPREAD = ["4S", "TH", "7D"]  # posts 4 and T, then a 7: spread 5, between
TABLE = {"name": "t", "paytable": "standard/v1", "currency": "EUR", "min_ante": 1, "max_ante": 100, "max_bets": 3}
ROUNDS = "/v1/tables/{table}/rounds"
DECISIONS = "/v1/rounds/{round}/decisions"
OPEN = {"bets": [{"player_id": "p1", "ante": 10}, {"player_id": "p2", "ante": 10}], "forced_cards": SPREAD}


@pytest.fixture(scope="module")
def apps(database_url: str) -> dict[str, Litestar]:
    """The real app built once a module each way (a build costs about 0.1 s): hot routes lean, and by handler."""
    settings = make_settings(database_url)
    return {name: create_app(settings, sweep=False, lean=name == "lean") for name in ("lean", "handler")}


async def set_scene(paths: TwoPaths) -> None:
    """Each world: a test table with an open round (one bet raised), a settled round, a live table, a closed
    table, and a cut-card table with a round in progress."""
    for name, overrides in [("table", {"mode": "test"}), ("live", {}), ("closed", {"mode": "test"})]:
        paths.learn(await paths.send(post("/v1/tables", {**TABLE, **overrides})), **{name: by("table_id")})
    cut_card = {**TABLE, "mode": "test", "shoe_policy": "cut_card"}
    paths.learn(await paths.send(post("/v1/tables", cut_card)), cut=by("table_id"))
    both_ok(await paths.send(post("/v1/tables/{closed}/close")))
    opened = await paths.send(post(ROUNDS, OPEN, key="open-{side}"))
    paths.learn(opened, round=by("round_id"), bet1=bet(0), bet2=bet(1), commitment=shoe("commitment"))
    both_ok(await paths.send(post(DECISIONS, {"bet_id": "{bet1}", "action": "raise"})))
    settled = await paths.send(post(ROUNDS, {"bets": [{"player_id": "p1", "ante": 5}], "forced_cards": ["9S", "TS"]}))
    paths.learn(settled, settled=by("round_id"), settled_bet=bet(0), settled_commitment=shoe("commitment"))
    one_at_a_time = {"bets": [{"player_id": "p1", "ante": 5}], "forced_cards": SPREAD[:2]}  # a spread: it stays open
    in_progress = await paths.send(post("/v1/tables/{cut}/rounds", one_at_a_time))
    paths.learn(in_progress, cut_round=by("round_id"), cut_commitment=shoe("commitment"))


def by(key: str) -> Callable[[Any], str]:
    return lambda body: str(body[key])


def bet(index: int) -> Callable[[Any], str]:
    return lambda body: str(body["bets"][index]["bet_id"])


def shoe(key: str) -> Callable[[Any], str]:
    return lambda body: str(body["shoe"][key] if key == "commitment" else body["shoe"]["reveal"][key])


def test_one_app_answers_the_hot_routes_lean_and_the_other_by_their_handlers(apps: dict[str, Litestar]) -> None:
    assert set(served_lean(apps["lean"])) == HOT_ROUTES
    assert served_lean(apps["handler"]) == {}


async def test_an_open_a_raise_a_settling_call_and_their_replays_answer_the_same_bytes_on_both_paths(
    apps: dict[str, Litestar], settings: Settings
) -> None:
    async with both_paths(apps, settings) as paths:
        await _play_a_round_to_its_end(paths)


async def _play_a_round_to_its_end(paths: TwoPaths) -> None:
    """Open, replay, raise, a settling call and its replay: each answer the same on both paths."""
    paths.learn(await paths.send(post("/v1/tables", {**TABLE, "mode": "test"})), table=by("table_id"))
    opened = await paths.send(post(ROUNDS, OPEN, key="open-{side}"))
    paths.learn(opened, round=by("round_id"), bet1=bet(0), bet2=bet(1), commitment=shoe("commitment"))
    assert paths.same(opened).status_code == 201
    replayed = paths.same(await paths.send(post(ROUNDS, OPEN, key="open-{side}")))
    assert (replayed.status_code, replayed.headers["idempotent-replayed"]) == (201, "true")
    assert replayed.content == opened.lean.content
    raised = paths.same(await paths.send(post(DECISIONS, {"bet_id": "{bet1}", "action": "raise"})))
    assert (raised.status_code, raised.json()["bets"][0]["decision"]) == (200, "raise")
    assert "idempotent-replayed" not in raised.headers
    called = await paths.send(post(DECISIONS, {"bet_id": "{bet2}", "action": "call"}, key="call-{side}"))
    paths.learn(called, salt=shoe("salt"), order=shoe("order"))  # the shoe is shown once the round settles
    assert paths.same(called).json()["status"] == "settled"
    again = paths.same(await paths.send(post(DECISIONS, {"bet_id": "{bet2}", "action": "call"}, key="call-{side}")))
    assert (again.headers["idempotent-replayed"], again.content) == ("true", called.lean.content)


async def test_a_replay_of_one_path_s_request_through_the_other_answers_the_bytes_it_stored(
    apps: dict[str, Litestar], settings: Settings
) -> None:
    # The worlds share an operator: each app replays the key the other app's world used, with that world's ids.
    request = post(ROUNDS, OPEN, key="open-{side}")
    async with both_paths(apps, settings) as paths:
        await set_scene(paths)
        for world, other in ((paths.lean, paths.handler), (paths.handler, paths.lean)):
            own = await request(world)
            crossed = await request(borrow(other, world))
            assert answer(crossed, {}) == answer(own, {})
            assert (own.status_code, own.headers["idempotent-replayed"]) == (201, "true")


BIG = {"bets": [{"player_id": "p1", "ante": 10}], "forced_cards": SPREAD, "pad": "x" * 70_000}
REFUSALS = [
    ("RAISE_WINDOW_CLOSED", later(31, post(DECISIONS, {"bet_id": "{bet2}", "action": "call"})), 409),
    ("ALREADY_DECIDED", post(DECISIONS, {"bet_id": "{bet1}", "action": "call"}), 409),
    ("NOT_IN_RAISE_WINDOW", post("/v1/rounds/{settled}/decisions", {"bet_id": "{settled_bet}", "action": "call"}), 409),
    ("IDEMPOTENCY_CONFLICT", post(ROUNDS, {**OPEN, "forced_cards": ["2S", "9H"]}, key="open-{side}"), 409),
    ("TABLE_CLOSED", post("/v1/tables/{closed}/rounds", OPEN), 409),
    ("ROUND_IN_PROGRESS", post("/v1/tables/{cut}/rounds", {"bets": [{"player_id": "p2", "ante": 5}]}), 409),
    ("NOT_FOUND", post("/v1/tables/{nowhere}/rounds", OPEN), 404),
    ("NOT_FOUND", post("/v1/rounds/{nowhere}/decisions", {"bet_id": "{bet2}", "action": "call"}), 404),
    ("NOT_FOUND", post(DECISIONS, {"bet_id": "{round}.9", "action": "call"}), 404),
    ("FORCED_CARDS_NOT_ALLOWED", post("/v1/tables/{live}/rounds", OPEN), 403),
    ("AUDITOR_READ_ONLY", as_auditor(post(ROUNDS, OPEN)), 403),
    ("BET_LIMIT", post(ROUNDS, {"bets": [{"player_id": "p1", "ante": 101}]}), 422),
    ("VALIDATION_ERROR", post(ROUNDS, {"bets": [{"player_id": "p1", "ante": 5}, {"player_id": "p1", "ante": 6}]}), 422),
    ("RAISE_EXCEEDS_ANTE", post(DECISIONS, {"bet_id": "{bet2}", "action": "raise", "amount": 11}), 422),
    ("VALIDATION_ERROR", post(ROUNDS, {**OPEN, "colour": "red"}), 400),
    ("VALIDATION_ERROR", post(ROUNDS, {"bets": [{"player_id": "p1", "ante": "10"}]}), 400),
    ("VALIDATION_ERROR", post(ROUNDS, {**OPEN, "forced_cards": ["2S", "3S", "4S", "5S"]}), 400),
    ("VALIDATION_ERROR", post(DECISIONS, {"bet_id": "{bet2}", "action": "fold"}), 400),
    ("VALIDATION_ERROR", post(DECISIONS, raw=b'{"bet_id": '), 400),
    ("DUPLICATE_JSON_KEY", post(DECISIONS, raw=b'{"action":"call","action":"raise","bet_id":"x"}'), 400),
    ("IDEMPOTENCY_KEY_REQUIRED", post_with(ROUNDS, OPEN, headers_as_sent, key=False), 400),
    ("DUPLICATE_HEADER", post_with(ROUNDS, OPEN, lambda h: [*h.items(), ("x-timestamp", h["x-timestamp"])]), 400),
    ("UNSUPPORTED_MEDIA_TYPE", post_with(ROUNDS, OPEN, lambda h: [*{**h, "content-type": "text/plain"}.items()]), 415),
    ("BODY_TOO_LARGE", post(ROUNDS, BIG), 413),
    ("UNAUTHENTICATED", post_with(ROUNDS, OPEN, lambda h: [*{**h, "x-signature": "0" * 64}.items()]), 401),
    ("UNAUTHENTICATED", post_with(DECISIONS, {"bet_id": "{bet2}", "action": "call"}, headers_as_sent, age=3600), 401),
    ("SERVICE_UNAVAILABLE", database_gone(post(DECISIONS, {"bet_id": "{bet2}", "action": "call"})), 503),
]


@pytest.mark.parametrize(
    ("code", "refusal", "status"), [pytest.param(*case, id=f"{case[0]}-{n}") for n, case in enumerate(REFUSALS)]
)
async def test_each_refusal_of_a_hot_route_answers_the_same_bytes_on_both_paths(
    apps: dict[str, Litestar], settings: Settings, code: str, refusal: Send, status: int
) -> None:
    async with both_paths(apps, settings) as paths:
        await set_scene(paths)
        refused = paths.same(await paths.send(refusal))
    problem(refused, status, code)
    assert ("retry-after" in refused.headers) == (code == "SERVICE_UNAVAILABLE")
