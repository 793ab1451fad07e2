"""Stopping by agreement over HTTP (pagat-ante/v2): an agreement from a player whose turn it is not, the last one
ending the game with the pot shared, the refusals writing nothing; at a friends' table, every person agreeing from
their own phone while the computer's seats follow. The numbers are worked in tests/unit/test_inbetween_agreement.py."""

from __future__ import annotations

import asyncpg
from litestar import Litestar
from litestar.testing import AsyncTestClient

from paytables.inbetween.inbetween_events import InBetweenStopAgreed
from paytables.inbetween.inbetween_state import replay
from tests.api.friends_helpers import create, join
from tests.api.helpers import problem
from tests.api.inbetween_helpers import chips, events, fingerprint, humans, play, post_action, start
from tests.support.client import Signed

AGREE = "inbetween/pagat-ante/v2"
# "2S" is place 0 of the canonical deck: 0 mod 3 seats is seat 0, so alice deals and bob plays first on 4S JH.
CARDS = ["2S", "4S", "JH"]


async def test_players_agree_out_of_turn_and_the_last_agreement_shares_the_pot(
    api: Signed, db: asyncpg.Connection
) -> None:
    game = await start(api, humans("alice", "bob", "carol"), CARDS, ruleset=AGREE)
    assert (game["to_act"], game["awaiting"], game["pot"]) == ("bob", "bet", 30)
    game = await play(api, game["game_id"], "carol", "agree_stop")
    game = await play(api, game["game_id"], "alice", "agree_stop")
    assert (game["to_act"], game["agreed"], game["status"]) == ("bob", [2, 0], "awaiting_bet")
    game = await play(api, game["game_id"], "bob", "agree_stop")
    assert (game["status"], game["ended_reason"], chips(game), game["pot"]) == (
        "game_over",
        "agreed",
        [1000, 1000, 1000],
        0,
    )
    chain = await events(db, game["game_id"])
    assert [e.seat for e in chain if isinstance(e, InBetweenStopAgreed)] == [2, 0, 1]
    assert [s.chips for s in replay(chain).seats] == [1000, 1000, 1000]


async def test_an_agreement_twice_or_under_a_rule_set_without_it_is_refused_and_writes_nothing(
    api: Signed, db: asyncpg.Connection
) -> None:
    game = await start(api, humans("alice", "bob", "carol"), CARDS, ruleset=AGREE)
    game = await play(api, game["game_id"], "carol", "agree_stop")
    before = await fingerprint(db, api.operator_id, game["game_id"])
    problem(await post_action(api, game["game_id"], "carol", "agree_stop"), 409, "WRONG_ACTION")
    assert await fingerprint(db, api.operator_id, game["game_id"]) == before
    old = await start(api, humans("alice", "bob", "carol"), CARDS, ruleset="inbetween/pagat-ante/v1")
    before = await fingerprint(db, api.operator_id, old["game_id"])
    problem(await post_action(api, old["game_id"], "carol", "agree_stop"), 422, "STOP_NOT_ALLOWED")
    assert await fingerprint(db, api.operator_id, old["game_id"]) == before


async def test_at_a_friends_table_each_person_agrees_from_their_phone_and_the_computers_seats_follow(
    http: AsyncTestClient[Litestar],
) -> None:
    host = await create(http, seats=3, rounds=5, ante=10, ruleset=AGREE)
    guest = await join(http, host.code, "Sita")
    started = await host.ok("/start")
    version = started["game"]["version"]
    after_host = await host.ok("/moves", {"action": "agree_stop", "version": version})
    assert after_host["game"]["agreed"] == [0]
    assert after_host["game"]["status"] != "game_over"
    over = await guest.ok("/moves", {"action": "agree_stop", "version": after_host["game"]["version"]})
    game = over["game"]
    # seat 2 is the computer's: it agrees as soon as both people have, and the pot is shared
    assert (over["status"], game["ended_reason"], sorted(game["agreed"])) == ("over", "agreed", [0, 1, 2])
    assert (sum(s["chips"] for s in game["seats"]), game["pot"]) == (3000, 0)
