"""Round history: GET /v1/rounds with filters, newest first, keyset pages that neither repeat nor skip."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest

from tests.api.helpers import open_round, problem
from tests.support.client import Signed


async def _ids(api: Signed, query: str) -> list[str]:
    page = await api.ok("GET", f"/v1/rounds?{query}")
    assert page["next_cursor"] is None, "expected a single page"
    return [r["round_id"] for r in page["items"]]


async def _all_pages(api: Signed, query: str) -> list[list[str]]:
    pages: list[list[str]] = []
    cursor: str | None = None
    while True:
        suffix = "" if cursor is None else f"&cursor={quote(cursor, safe='')}"
        page = await api.ok("GET", f"/v1/rounds?{query}{suffix}")
        pages.append([r["round_id"] for r in page["items"]])
        cursor = page["next_cursor"]
        if cursor is None:
            return pages
        assert len(pages) < 20, "pagination does not end"


@pytest.fixture
async def history(api: Signed) -> dict[str, Any]:
    """Seven rounds on two tables, in this order: settled, open, void and by several players."""
    a = (await api.table(mode="test"))["table_id"]
    b = (await api.table(mode="test"))["table_id"]
    r: dict[str, Any] = {"a": a, "b": b}
    r["r1"] = await open_round(api, a, [("p1", 10)], ["5S", "6S"])  # consecutive: settled
    r["r2"] = await open_round(api, a, [("p1", 10), ("p2", 10)], ["2S", "9S"])  # spread: raise_window
    r["r3"] = await open_round(api, a, [("p2", 10)], ["7S", "7H"])  # pair: settled
    r["r4"] = await open_round(api, a, [("p3", 10)], ["2H", "9H"])
    await api.ok("POST", f"/v1/rounds/{r['r4']['round_id']}/void", {"reason": "test"})
    r["r5"] = await open_round(api, a, [("p1", 10)], ["3S", "JS"])  # raise_window
    r["r6"] = await open_round(api, b, [("p2", 10)], ["QS", "KS"])  # settled
    r["r7"] = await open_round(api, b, [("p1", 10)], ["3H", "JH"])  # raise_window
    return r


def _rid(history: dict[str, Any], *names: str) -> list[str]:
    return [history[n]["round_id"] for n in names]


async def test_the_history_lists_every_round_newest_first(api: Signed, history: dict[str, Any]) -> None:
    page = await api.ok("GET", "/v1/rounds")
    assert [r["round_id"] for r in page["items"]] == _rid(history, "r7", "r6", "r5", "r4", "r3", "r2", "r1")
    assert page["next_cursor"] is None
    openings = [r["opened_at"] for r in page["items"]]
    assert openings == sorted(openings, reverse=True)
    by_id = {r["round_id"]: r for r in page["items"]}
    assert by_id[history["r4"]["round_id"]]["status"] == "void"
    assert by_id[history["r5"]["round_id"]] == history["r5"]


async def test_the_history_filters_by_table_player_and_status(api: Signed, history: dict[str, Any]) -> None:
    a, b = history["a"], history["b"]
    assert await _ids(api, f"table_id={a}") == _rid(history, "r5", "r4", "r3", "r2", "r1")
    assert await _ids(api, f"table_id={b}") == _rid(history, "r7", "r6")
    assert await _ids(api, "player_id=p1") == _rid(history, "r7", "r5", "r2", "r1")
    assert await _ids(api, "player_id=p2") == _rid(history, "r6", "r3", "r2")
    assert await _ids(api, "player_id=nobody") == []
    assert await _ids(api, "status=raise_window") == _rid(history, "r7", "r5", "r2")
    assert await _ids(api, "status=settled") == _rid(history, "r6", "r3", "r1")
    assert await _ids(api, "status=void") == _rid(history, "r4")
    assert await _ids(api, f"table_id={a}&player_id=p2&status=raise_window") == _rid(history, "r2")


async def test_the_history_filters_by_opening_time_from_inclusive_to_exclusive(
    api: Signed, history: dict[str, Any]
) -> None:
    start = quote(history["r3"]["opened_at"], safe="")
    end = quote(history["r6"]["opened_at"], safe="")
    assert await _ids(api, f"from={start}&to={end}") == _rid(history, "r5", "r4", "r3")
    assert await _ids(api, f"from={end}") == _rid(history, "r7", "r6")
    assert await _ids(api, f"to={start}") == _rid(history, "r2", "r1")


@pytest.mark.parametrize("limit", [1, 2, 3, 6])
async def test_pages_of_the_history_neither_repeat_nor_skip_and_end_with_a_null_cursor(
    api: Signed, history: dict[str, Any], limit: int
) -> None:
    pages = await _all_pages(api, f"limit={limit}")
    assert all(len(p) == limit for p in pages[:-1])
    assert 1 <= len(pages[-1]) <= limit
    assert [i for p in pages for i in p] == _rid(history, "r7", "r6", "r5", "r4", "r3", "r2", "r1")


async def test_pages_keep_their_filter(api: Signed, history: dict[str, Any]) -> None:
    pages = await _all_pages(api, "player_id=p1&limit=3")
    assert pages == [_rid(history, "r7", "r5", "r2"), _rid(history, "r1")]


async def test_a_round_opened_while_paging_does_not_shift_the_later_pages(api: Signed, history: dict[str, Any]) -> None:
    first = await api.ok("GET", "/v1/rounds?limit=3")
    await open_round(api, history["a"], [("p1", 10)], ["5H", "6H"])
    rest = await _all_pages(api, f"limit=3&cursor={quote(first['next_cursor'], safe='')}")
    seen = [r["round_id"] for r in first["items"]] + [i for p in rest for i in p]
    assert seen == _rid(history, "r7", "r6", "r5", "r4", "r3", "r2", "r1")


async def test_another_operator_sees_none_of_this_history(other_api: Signed, history: dict[str, Any]) -> None:
    page = await other_api.ok("GET", "/v1/rounds?limit=200")
    mine = set(_rid(history, "r1", "r2", "r3", "r4", "r5", "r6", "r7"))
    assert not mine & {r["round_id"] for r in page["items"]}
    assert (await other_api.ok("GET", f"/v1/rounds?table_id={history['a']}"))["items"] == []


@pytest.mark.parametrize("cursor", ["garbage", "!!!!", "bm90IGEgY3Vyc29y", "MjAyNC0wMS0wMXxub3QtYS11dWlk"])
async def test_a_cursor_the_api_did_not_issue_is_a_validation_error(api: Signed, cursor: str) -> None:
    problem(await api.get(f"/v1/rounds?cursor={cursor}"), 400, "VALIDATION_ERROR")


@pytest.mark.parametrize(
    "query",
    ["limit=0", "limit=201", "limit=ten", "status=open", "from=yesterday", "to=2024-13-01", "table_id=not-a-uuid"],
)
async def test_a_bad_history_query_is_a_validation_error(api: Signed, query: str) -> None:
    problem(await api.get(f"/v1/rounds?{query}"), 400, "VALIDATION_ERROR")
