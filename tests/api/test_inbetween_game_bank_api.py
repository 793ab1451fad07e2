"""The dealer's whole-game bank and buying chips over HTTP (issue 26): the operator's routes and a friends' table
offer pagat-bank/v1 and pagat-down/v1, a buy is a move of any seat whoever's turn it is, and chips + pot = seats x
starting chips + every buy."""

from __future__ import annotations

from litestar import Litestar
from litestar.testing import AsyncTestClient

from tests.api.friends_helpers import create, join, play_to_the_end
from tests.api.helpers import problem
from tests.api.inbetween_helpers import play, post_action, start
from tests.support.client import Signed

BANK = "inbetween/pagat-bank/v1"


async def test_an_operator_game_takes_a_buy_out_of_turn_and_refuses_one_over_the_limit(api: Signed) -> None:
    # "2S": place 0, 0 mod 3, seat 0 (a) deals and banks; b is first to act
    game = await start(api, [{"player_id": "a"}, {"player_id": "b"}, {"player_id": "c"}], ["2S", "4C", "JD", "TH"],
                       ruleset=BANK, rounds=3)  # fmt: skip
    assert (game["to_act"], game["pot"], [s["chips"] for s in game["seats"]]) == ("b", 100, [900, 1000, 1000])
    bought = await play(api, game["game_id"], "c", "buy", amount=250)
    assert (bought["bought"], [s["chips"] for s in bought["seats"]]) == ([0, 0, 250], [900, 1000, 1250])
    assert sum(s["chips"] for s in bought["seats"]) + bought["pot"] == 3 * 1000 + 250
    problem(await post_action(api, game["game_id"], "c", "buy", amount=751), 422, "BUY_OVER_LIMIT")
    nepal = await start(api, [{"player_id": "a"}, {"player_id": "b"}], ["4C", "JD"])
    problem(await post_action(api, nepal["game_id"], "a", "buy", amount=5), 422, "BUY_NOT_ALLOWED")


async def test_a_friends_table_plays_the_dealers_bank_with_a_buy_to_the_end(http: AsyncTestClient[Litestar]) -> None:
    host = await create(http, "Host", ruleset=BANK, rounds=5, ante=10, seats=3)  # a table plays 5, 10 or 15
    guest = await join(http, host.code, "Guest")
    await host.ok("/start", {"computers": []})
    state = await guest.state()
    moved = await guest.ok("/moves", {"action": "buy", "amount": 300, "version": state["game"]["version"]})
    game = moved["game"]
    assert game["bought"][1] == 300
    assert sum(s["chips"] for s in game["seats"]) + game["pot"] == 3 * 1000 + 300
    over = await play_to_the_end([host, guest])
    final = over["game"]
    assert final["status"] == "game_over"
    assert sum(s["chips"] for s in final["seats"]) == 3 * 1000 + 300


async def test_a_friends_table_plays_face_down_posts_to_the_end(http: AsyncTestClient[Litestar]) -> None:
    host = await create(http, "Host", ruleset="inbetween/pagat-down/v1", rounds=5, ante=10, seats=3)
    guest = await join(http, host.code, "Guest")
    await host.ok("/start", {"computers": []})
    over = await play_to_the_end([host, guest])  # the people fold unseen; the computer shows and bets, or folds
    assert over["game"]["status"] == "game_over"
    assert sum(s["chips"] for s in over["game"]["seats"]) == 3 * 1000
