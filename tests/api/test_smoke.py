"""A first round through the real app: open a table, deal, decide, settle."""

from __future__ import annotations

from tests.support.client import Signed


async def test_a_forced_spread_round_settles_with_a_hand_computed_payout(api: Signed) -> None:
    table = await api.table(mode="test")
    # 5 and 9: ranks 6, 7, 8 lie between, spread 3, standard/v1 pays 2 to 1.
    rnd = await api.ok(
        "POST",
        f"/v1/tables/{table['table_id']}/rounds",
        {"bets": [{"player_id": "p1", "ante": 10}], "forced_cards": ["5S", "9H", "7D"]},
    )
    assert rnd["status"] == "raise_window"
    assert (rnd["spread"], rnd["payout_odds"]) == (3, 2)
    assert [c["card"] for c in rnd["cards"]] == ["5S", "9H"]
    bet_id = rnd["bets"][0]["bet_id"]
    done = await api.ok(
        "POST", f"/v1/rounds/{rnd['round_id']}/decisions", {"bet_id": bet_id, "action": "raise", "amount": 10}
    )
    bet = done["bets"][0]
    # wager 20 at 2 to 1: 40 won plus the 20 staked comes back.
    assert (done["status"], bet["result"], bet["payout"], bet["net"]) == ("settled", "win", 60, 40)
    assert [c["card"] for c in done["cards"]] == ["5S", "9H", "7D"]
    assert done["shoe"]["reveal"] is not None
