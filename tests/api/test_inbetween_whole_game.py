"""A whole In Between game to its end through the API, replayed from its audit chain alone; retries act once."""

from __future__ import annotations

from collections import Counter
from typing import Any
from uuid import UUID

import asyncpg
import msgspec

from audit.verify_export import verify_links
from paytables.inbetween.inbetween_events import (
    InBetweenAwaiting,
    InBetweenCardDealt,
    InBetweenGameStarted,
    InBetweenShoeRevealed,
    InBetweenShoeShuffled,
)
from paytables.inbetween.inbetween_state import Game, replay
from service.db import audit_sql
from shoe.cards import DECK
from shoe.shoe import Reveal, verify_reveal
from tests.api.helpers import problem
from tests.api.inbetween_helpers import GAMES, chips, events, fingerprint, humans, play, post_action, start
from tests.support.client import Signed


async def play_to_the_end(api: Signed, game: Any) -> tuple[Any, int]:
    """The human's turns: an ace called high, a pair passed, one chip on every bet; the moves it took."""
    moves = 0
    while game["status"] != "game_over":
        player, awaiting = game["to_act"], game["awaiting"]
        if awaiting == "ace_call":
            game = await play(api, game["game_id"], player, "call_ace", call="high")
        elif awaiting == "pair_call":
            game = await play(api, game["game_id"], player, "pass")
        else:
            game = await play(api, game["game_id"], player, "bet", amount=1)
        moves += 1
    return game, moves


async def test_a_whole_game_against_the_computer_ends_after_its_rounds_and_replays_from_its_audit_chain(
    api: Signed, db: asyncpg.Connection
) -> None:
    # 15 rounds of two players are 30 turns of at least two cards: more than one pack, so the discards are shuffled.
    game = await start(api, [{"player_id": "alice"}, {"computer": True}], ante=5, rounds=15)
    assert game["test"] is False
    game, moves = await play_to_the_end(api, game)
    gid = game["game_id"]
    assert (game["status"], game["ended_reason"], game["round"]) == ("game_over", "rounds_played", 15)
    assert (sum(chips(game)), game["pot"]) == (2000, 0)
    assert game["winners"] == [i for i, c in enumerate(chips(game)) if c == max(chips(game))]
    assert (game["to_act"], game["awaiting"], game["odds"]) == (None, None, None)
    assert await api.ok("GET", f"{GAMES}/{gid}") == game

    # The chain verifies, and the stored game is exactly what its events replay to.
    links = await audit_sql.select_chain(db, UUID(gid))
    assert verify_links(gid, links).ok
    found = await events(db, gid)
    stored = msgspec.json.decode(
        await db.fetchval("SELECT state::text FROM inbetween_games WHERE game_id = $1", UUID(gid)), type=Game
    )
    assert replay(found) == stored
    assert isinstance(found[0], InBetweenGameStarted)
    assert found[0].seats[1].computer is True
    # Each time the game waited for alice, one move of hers answered it (adjacent posts pass without asking).
    assert moves == len([e for e in found if isinstance(e, InBetweenAwaiting) and e.seat == 0])

    # Every pack was committed before its first card, revealed after its last, and dealt in its committed order.
    shuffled = [e for e in found if isinstance(e, InBetweenShoeShuffled)]
    revealed = {e.shoe_number: e for e in found if isinstance(e, InBetweenShoeRevealed)}
    assert len(shuffled) >= 2
    assert [e.shoe_number for e in shuffled] == list(range(1, len(shuffled) + 1)) == sorted(revealed)
    for pack in shuffled:
        reveal = revealed[pack.shoe_number]
        assert verify_reveal(pack.commitment, Reveal(salt=reveal.salt, order=reveal.order))
        cards = [reveal.order[i : i + 2] for i in range(0, len(reveal.order), 2)]
        assert Counter(cards) + Counter(pack.excluded) == Counter(DECK)
        dealt = [e for e in found if isinstance(e, InBetweenCardDealt) and e.shoe_number == pack.shoe_number]
        assert [e.shoe_index for e in dealt] == list(range(len(dealt))) == list(range(reveal.dealt))
        assert [e.card for e in dealt] == cards[: len(dealt)]
    last = revealed[len(shuffled)]
    assert game["shoe"] == {
        "number": len(shuffled),
        "commitment": shuffled[-1].commitment,
        "reveal": {"salt": last.salt, "order": last.order},
    }


async def test_a_retried_action_returns_the_first_reply_byte_for_byte_and_acts_once(
    api: Signed, db: asyncpg.Connection
) -> None:
    game = await start(api, humans("alice", "bob"), ["4S", "JH", "7D", "5C", "9C"])
    path, body = (
        f"{GAMES}/{game['game_id']}/actions",
        {"action": "bet", "player_id": "bob", "version": game["version"], "amount": 5},
    )
    first = await api.post(path, body, key="bet-1")
    assert first.status_code == 200, first.text
    after = await fingerprint(db, api.operator_id, game["game_id"])
    again = await api.post(path, body, key="bet-1")
    assert (again.status_code, again.content, again.headers["idempotent-replayed"]) == (200, first.content, "true")
    assert await fingerprint(db, api.operator_id, game["game_id"]) == after
    problem(await api.post(path, {**body, "amount": 6}, key="bet-1"), 409, "IDEMPOTENCY_CONFLICT")
    # Without the key's protection the same move again is judged afresh: it is alice's turn now.
    problem(await post_action(api, game["game_id"], "bob", "bet", amount=5), 409, "NOT_YOUR_TURN")
    assert (chips(first.json()), first.json()["pot"]) == ([990, 995], 15)


async def test_a_retried_game_start_starts_one_game(api: Signed, db: asyncpg.Connection) -> None:
    body: dict[str, Any] = {"ruleset": "inbetween/home/v1", "ante": 5, "rounds": 10, "seats": humans("a", "b", "c")}
    first = await api.post(GAMES, body, key="start-1")
    again = await api.post(GAMES, body, key="start-1")
    assert first.status_code == 201, first.text
    assert (again.status_code, again.content, again.headers["idempotent-replayed"]) == (201, first.content, "true")
    assert await db.fetchval("SELECT count(*) FROM inbetween_games WHERE operator_id = $1", api.operator_id) == 1


async def test_a_test_games_first_shuffle_record_counts_the_cards_it_forced_and_a_live_games_none(
    api: Signed, db: asyncpg.Connection
) -> None:
    forced = ["4S", "JH", "7D"]
    test_game = (await start(api, humans("alice", "bob"), forced))["game_id"]
    live_game = (await start(api, humans("carol", "dan")))["game_id"]
    for game_id, count in ((test_game, len(forced)), (live_game, 0)):
        (first,) = [e for e in await events(db, game_id) if isinstance(e, InBetweenShoeShuffled)]
        assert (first.shoe_number, first.forced) == (1, count)
