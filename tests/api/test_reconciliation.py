"""What reconciliation needs: the currency everywhere, ISO 4217 tables, settled-time filters and per-page totals."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest

from tests.api.helpers import decide, open_round, problem
from tests.support.client import Signed
from tests.support.clock import ManualClock

TABLE = {"name": "t", "paytable": "standard/v1", "min_ante": 1, "max_ante": 1000}


@pytest.mark.parametrize(("currency", "exponent"), [("EUR", 2), ("JPY", 0), ("BHD", 3), ("CLF", 4), ("USD", 2)])
async def test_a_table_in_an_iso_4217_currency_reports_its_minor_unit_exponent(
    api: Signed, currency: str, exponent: int
) -> None:
    table = await api.ok("POST", "/v1/tables", {**TABLE, "currency": currency})
    assert (table["currency"], table["currency_exponent"]) == (currency, exponent)
    assert (await api.ok("GET", f"/v1/tables/{table['table_id']}"))["currency_exponent"] == exponent


@pytest.mark.parametrize("currency", ["ZZZ", "XAU", "XTS", "XXX", "HRK"])
async def test_a_code_that_is_no_current_iso_4217_currency_with_a_minor_unit_is_refused(
    api: Signed, currency: str
) -> None:
    refused = await api.post("/v1/tables", {**TABLE, "currency": currency})
    body = problem(refused, 422, "VALIDATION_ERROR")
    assert currency in body["detail"]


async def test_every_round_and_every_transaction_names_the_tables_currency(api: Signed) -> None:
    table = await api.table(mode="test", currency="GBP")
    rnd = await open_round(api, table["table_id"], [("p1", 10), ("p2", 20)], ["5S", "6H"])
    assert rnd["currency"] == "GBP"
    assert {t["currency"] for b in rnd["bets"] for t in b["transactions"]} == {"GBP"}
    page = await api.ok("GET", f"/v1/rounds?table_id={table['table_id']}")
    assert page["items"][0]["currency"] == "GBP"


async def test_rounds_can_be_listed_by_the_time_they_settled(api: Signed, clock: ManualClock) -> None:
    table = (await api.table(mode="test", raise_window_seconds=300))["table_id"]
    early = await open_round(api, table, [("p1", 10)], ["5S", "6H"])  # settles at open
    spread = await open_round(api, table, [("p1", 10)], ["3S", "JH", "9D"])  # open for now
    start = clock.advance(60).isoformat()
    settled = (await decide(api, spread["round_id"], spread["bets"][0]["bet_id"], "call")).json()
    still_open = await open_round(api, table, [("p1", 10)], ["3D", "JD"])
    end = clock.advance(60).isoformat()
    late = await open_round(api, table, [("p1", 10)], ["7S", "7H", "9D"])

    async def ids(query: str) -> list[str]:
        page = await api.ok("GET", f"/v1/rounds?table_id={table}&{query}")
        return [r["round_id"] for r in page["items"]]

    # The spread round opened before `start` but settled after it; open rounds have no settlement time.
    assert await ids(f"settled_from={quote(start)}") == [late["round_id"], settled["round_id"]]
    assert await ids(f"settled_from={quote(start)}&settled_to={quote(end)}") == [settled["round_id"]]
    assert await ids(f"settled_to={quote(start)}") == [early["round_id"]]
    assert still_open["round_id"] not in await ids(f"settled_to={quote(end)}")


async def test_a_page_totals_what_its_transactions_moved_per_currency(api: Signed) -> None:
    eur = (await api.table(mode="test"))["table_id"]
    jpy = (await api.table(mode="test", currency="JPY"))["table_id"]
    await open_round(api, eur, [("p1", 10), ("p2", 30)], ["7S", "7H", "7D"])  # trips: each paid ante x 12
    await open_round(api, eur, [("p1", 5)], ["5S", "6H"])  # consecutive: the ante back
    await open_round(api, jpy, [("p1", 100)], ["3S", "JH", "KD"])  # still open: no transactions yet
    lost = await open_round(api, jpy, [("p1", 200)], ["3D", "JD", "KS"])
    await decide(api, lost["round_id"], lost["bets"][0]["bet_id"], "call")  # a king is outside 3..J: lost
    page = await api.ok("GET", "/v1/rounds")
    assert page["totals"] == [
        {"currency": "EUR", "rounds": 2, "wagered": 10 + 30 + 5, "paid": 120 + 360 + 5, "net": 440},
        {"currency": "JPY", "rounds": 2, "wagered": 200, "paid": 0, "net": -200},
    ]


async def test_the_totals_cover_only_the_page_they_are_on(api: Signed) -> None:
    table = (await api.table(mode="test"))["table_id"]
    for ante in (10, 20, 40):
        await open_round(api, table, [("p1", ante)], ["5S", "6H"])  # each pushes: wagered = paid = the ante
    first = await api.ok("GET", "/v1/rounds?limit=2")
    second = await api.ok("GET", f"/v1/rounds?limit=2&cursor={quote(first['next_cursor'], safe='')}")
    assert [t["wagered"] for t in first["totals"]] == [40 + 20]
    assert [t["wagered"] for t in second["totals"]] == [10]


async def test_an_empty_page_has_no_totals(api: Signed) -> None:
    assert (await api.ok("GET", "/v1/rounds"))["totals"] == []


@pytest.mark.parametrize("name", ["from", "to", "settled_from", "settled_to"])
async def test_a_bad_time_filter_is_reported_under_the_name_it_was_sent_as(api: Signed, name: str) -> None:
    body = problem(await api.get(f"/v1/rounds?{name}=yesterday"), 400, "VALIDATION_ERROR")
    assert [e["key"] for e in body["errors"]] == [name]
    assert "opened_" not in body["detail"]


TIMES = [("2020-01-01T00:00:00Z", True), ("2020-01-01T00:00:00", True), ("2020-01-01T00:00:00%2B02:00", True),
         ("2020-01-01", False)]  # fmt: skip


@pytest.mark.parametrize(("value", "accepted"), TIMES)
async def test_a_time_filter_takes_a_date_and_time_and_refuses_a_bare_date(
    api: Signed, value: str, accepted: bool
) -> None:
    response = await api.get(f"/v1/rounds?from={value}")
    if accepted:
        assert response.status_code == 200, response.text
    else:
        problem(response, 400, "VALIDATION_ERROR")


async def test_a_naive_time_filter_is_read_as_utc(api: Signed, clock: ManualClock) -> None:
    table = (await api.table(mode="test"))["table_id"]
    rnd = await open_round(api, table, [("p1", 10)], ["5S", "6H"])
    opened: Any = rnd["opened_at"]
    naive = opened.replace("Z", "")  # the same instant without its zone
    assert [r["round_id"] for r in (await api.ok("GET", f"/v1/rounds?from={quote(naive)}"))["items"]] == [
        rnd["round_id"]
    ]
    later = await api.ok("GET", f"/v1/rounds?to={quote(naive)}&table_id={table}")
    assert later["items"] == []
