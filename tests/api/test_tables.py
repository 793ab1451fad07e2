"""Paytables (public) and tables (signed): list, read, open, close."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.cli.cli import main as reddog
from tests.api.helpers import decide, open_round, problem
from tests.support.client import Signed

# The released terms, copied from the rule books the paytable files were written from (not from the service).
RELEASED = {
    "standard/v1": ([5, 4, 2, 1, 1, 1, 1, 1, 1, 1, 1], "lose"),
    "generous/v1": ([5, 4, 3, 1, 1, 1, 1, 1, 1, 1, 1], "lose"),
    "post-double/v1": ([5, 4, 2, 1, 1, 1, 1, 1, 1, 1, 1], "lose_double"),
}


async def test_the_paytables_are_public_and_list_every_released_table(http: AsyncTestClient[Litestar]) -> None:
    response = await http.get("/v1/paytables")  # no signature headers at all
    assert response.status_code == 200, response.text
    items = {p["id"]: p for p in response.json()["items"]}
    assert set(items) == set(RELEASED)
    for paytable_id, (spread_odds, post_rule) in RELEASED.items():
        p = items[paytable_id]
        name, version = paytable_id.split("/v")
        assert (p["name"], p["version"]) == (name, int(version))
        assert (p["spread_odds"], p["trips_odds"], p["post_rule"], p["max_raise_multiple"]) == (
            spread_odds,
            11,
            post_rule,
            1,
        )
        assert "theoretical" not in p


async def test_a_paytable_sha256_is_reproducible_from_its_published_terms(http: AsyncTestClient[Litestar]) -> None:
    for p in (await http.get("/v1/paytables")).json()["items"]:
        terms = {k: p[k] for k in ("id", "spread_odds", "trips_odds", "post_rule", "max_raise_multiple")}
        canonical = json.dumps(terms, sort_keys=True, separators=(",", ":")).encode()
        assert hashlib.sha256(canonical).hexdigest() == p["sha256"]


async def test_one_paytable_without_decks_has_no_theoretical_figures(http: AsyncTestClient[Litestar]) -> None:
    response = await http.get("/v1/paytables/post-double/v1")
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["id"], body["post_rule"]) == ("post-double/v1", "lose_double")
    assert "theoretical" not in body


async def test_one_paytable_with_decks_has_the_figures_of_reddog_rtp_json(
    http: AsyncTestClient[Litestar], capsys: pytest.CaptureFixture[str]
) -> None:
    response = await http.get("/v1/paytables/generous/v1?decks=6")
    assert response.status_code == 200, response.text
    theoretical = response.json()["theoretical"]
    capsys.readouterr()
    assert reddog(["rtp", "generous/v1", "--decks", "6", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert theoretical == cli
    assert (theoretical["paytable"], theoretical["decks"]) == ("generous/v1", 6)


@pytest.mark.parametrize(
    ("decks", "consecutive", "trips"),
    [
        # 6 decks, 312 cards, 24 of a rank. Consecutive: 24 ordered adjacent rank pairs (2 and A have one
        # neighbour, the 11 others two), so 24 * 24 / (13 * 311) = 576/4043.
        # Trips: a pair (23/311), then the third of that rank (22/310): 506/96410 = 253/48205.
        (6, "576/4043", "253/48205"),
        # 1 deck: 24 * 4 / (13 * 51) = 96/663 = 32/221; trips (3/51) * (2/50) = 6/2550 = 1/425.
        (1, "32/221", "1/425"),
    ],
)
async def test_the_theoretical_outcome_probabilities_match_a_hand_count(
    http: AsyncTestClient[Litestar], decks: int, consecutive: str, trips: str
) -> None:
    body = (await http.get(f"/v1/paytables/standard/v1?decks={decks}")).json()
    probabilities = body["theoretical"]["outcome_probabilities"]
    assert (body["theoretical"]["decks"], probabilities["consecutive"], probabilities["trips"]) == (
        decks,
        consecutive,
        trips,
    )


@pytest.mark.parametrize("path", ["/v1/paytables/nope/v1", "/v1/paytables/standard/v9", "/v1/paytables/standard/1"])
async def test_an_unknown_paytable_is_not_found(http: AsyncTestClient[Litestar], path: str) -> None:
    problem(await http.get(path), 404, "NOT_FOUND")


@pytest.mark.parametrize("decks", ["0", "9", "six", "-1"])
async def test_a_paytable_with_a_bad_deck_count_is_a_validation_error(
    http: AsyncTestClient[Litestar], decks: str
) -> None:
    problem(await http.get(f"/v1/paytables/standard/v1?decks={decks}"), 400, "VALIDATION_ERROR")


async def test_opening_a_table_returns_201_open_with_its_defaults_and_theoretical_figures(
    api: Signed, http: AsyncTestClient[Litestar]
) -> None:
    body = {"name": "Main", "paytable": "generous/v1", "currency": "USD", "min_ante": 5, "max_ante": 500, "decks": 2}
    response = await api.post("/v1/tables", body)
    assert response.status_code == 201, response.text
    table = response.json()
    assert table["status"] == "open"
    assert table["closed_at"] is None
    for key, value in body.items():
        assert table[key] == value
    # the documented defaults
    assert (table["shoe_policy"], table["max_bets"], table["raise_window_seconds"], table["mode"]) == (
        "per_round",
        7,
        15,
        "live",
    )
    published = (await http.get("/v1/paytables/generous/v1?decks=2")).json()
    assert table["paytable_sha256"] == published["sha256"]
    assert table["theoretical"] == published["theoretical"]


async def test_a_cut_card_table_keeps_its_penetration(api: Signed) -> None:
    assert (await api.table(shoe_policy="cut_card", penetration=50))["penetration"] == 50
    assert (await api.table(shoe_policy="cut_card"))["penetration"] is not None
    assert (await api.table())["penetration"] is None


async def test_a_table_reads_back_as_it_was_opened_and_is_listed_newest_first(api: Signed) -> None:
    first = await api.table(name="first")
    second = await api.table(name="second")
    assert await api.ok("GET", f"/v1/tables/{first['table_id']}") == first
    listed = (await api.ok("GET", "/v1/tables"))["items"]
    assert [t["table_id"] for t in listed] == [second["table_id"], first["table_id"]]
    assert listed == [second, first]


async def test_an_operator_lists_only_its_own_tables(api: Signed, other_api: Signed) -> None:
    mine = await api.table()
    theirs = (await other_api.ok("GET", "/v1/tables"))["items"]
    assert mine["table_id"] not in {t["table_id"] for t in theirs}


async def test_a_closed_table_takes_no_new_rounds_and_cannot_be_closed_twice(api: Signed) -> None:
    table = await api.table()
    path = f"/v1/tables/{table['table_id']}"
    closed = await api.ok("POST", f"{path}/close")
    assert closed["status"] == "closed"
    assert closed["closed_at"] is not None
    assert (await api.ok("GET", path))["status"] == "closed"
    refused = await api.post(f"{path}/rounds", {"bets": [{"player_id": "p1", "ante": 10}]})
    problem(refused, 409, "TABLE_CLOSED")
    problem(await api.post(f"{path}/close"), 409, "TABLE_CLOSED")


async def test_a_round_in_flight_when_its_table_closes_still_settles(api: Signed) -> None:
    table = await api.table(mode="test")
    rnd = await open_round(api, table["table_id"], [("p1", 10)], ["4S", "9H", "6D"])
    assert rnd["status"] == "raise_window"
    await api.ok("POST", f"/v1/tables/{table['table_id']}/close")
    response = await decide(api, rnd["round_id"], rnd["bets"][0]["bet_id"], "call")
    assert response.status_code == 200, response.text
    done: dict[str, Any] = response.json()
    # spread 4 pays 1 to 1: the 10 staked back plus 10 won
    assert (done["status"], done["bets"][0]["result"], done["bets"][0]["payout"]) == ("settled", "win", 20)


async def test_a_cut_card_table_closes_with_a_round_in_flight_and_the_round_still_settles(api: Signed) -> None:
    table = await api.table(mode="test", shoe_policy="cut_card")
    rnd = await open_round(api, table["table_id"], [("p1", 10)], ["4S", "9H", "KD"])
    await api.ok("POST", f"/v1/tables/{table['table_id']}/close")
    done = await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/close")
    # K is outside 4..9: the ante is lost
    assert (done["status"], done["bets"][0]["result"], done["bets"][0]["net"]) == ("settled", "lose", -10)
    assert done["shoe"]["reveal"] is not None  # the table is closed, so its shoe is retired and shown
