"""The committed shoe: a cut-card table deals on from one shoe, and reveals it only once it is retired."""

from __future__ import annotations

from typing import Any

from tests.api.helpers import check_reveal, open_round
from tests.support.client import Signed


async def _play(api: Signed, table_id: str) -> Any:
    """One round on a live table, its window closed by the dealer if it opened one."""
    rnd = await open_round(api, table_id, [("p1", 10)])
    if rnd["status"] == "raise_window":
        assert rnd["shoe"]["reveal"] is None
        rnd = await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/close")
    return rnd


async def test_a_cut_card_table_deals_on_from_one_shoe_and_reveals_it_when_the_table_closes(api: Signed) -> None:
    table = await api.table(shoe_policy="cut_card")
    first = await _play(api, table["table_id"])
    second = await _play(api, table["table_id"])
    assert first["shoe"]["commitment"] == second["shoe"]["commitment"]
    assert second["cards"][0]["shoe_index"] == len(first["cards"])  # the next card of the same shoe
    for rnd in (first, second):
        assert rnd["status"] == "settled"
        assert rnd["shoe"]["reveal"] is None  # the shoe is still in play
    await api.ok("POST", f"/v1/tables/{table['table_id']}/close")
    first, second = [await api.ok("GET", f"/v1/rounds/{r['round_id']}") for r in (first, second)]
    assert check_reveal(first) == check_reveal(second, first_index=None)


async def test_once_the_cut_card_is_out_the_next_round_has_a_new_shoe_and_the_old_one_is_revealed(
    api: Signed,
) -> None:
    # one deck cut at 10%: the cut card sits after the fifth card (52 * 10 // 100)
    table = await api.table(shoe_policy="cut_card", decks=1, penetration=10)
    played = [await _play(api, table["table_id"])]
    while played[-1]["shoe"]["commitment"] == played[0]["shoe"]["commitment"]:
        played.append(await _play(api, table["table_id"]))
        assert len(played) <= 4, "five cards are out after at most three rounds"
    old = [r for r in played if r["shoe"]["commitment"] == played[0]["shoe"]["commitment"]]
    dealt = sum(len(r["cards"]) for r in old)
    assert dealt >= 5
    assert dealt - len(old[-1]["cards"]) < 5  # the old shoe was replaced as soon as the cut card came out
    assert played[-1]["cards"][0]["shoe_index"] == 0
    orders = {check_reveal(await api.ok("GET", f"/v1/rounds/{r['round_id']}"), first_index=None) for r in old}
    assert len(orders) == 1
    assert played[-1]["shoe"]["reveal"] is None
