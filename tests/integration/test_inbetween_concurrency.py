"""Two app instances racing on In Between games: exactly one move wins, the loser is refused, the chain holds."""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any
from uuid import UUID

import asyncpg

from audit.verify_export import verify_links
from paytables.inbetween.inbetween_events import InBetweenBetPlaced, InBetweenPassed
from service.db import audit_sql
from service.settings import Settings
from tests.api.inbetween_helpers import events, humans, post_action, start
from tests.support.clock import ManualClock
from tests.support.live import live

GAMES_RACED = 6
BURSTS = int(os.environ.get("RD_RACE_ROUNDS", "8"))  # `make fuzz` races more
MOVES_A_BURST = 30


async def test_two_instances_racing_the_same_move_on_one_game_let_exactly_one_win(
    settings: Settings, db: asyncpg.Connection, clock: ManualClock
) -> None:
    async with live(settings, clock=clock) as a, live(settings, clock=clock) as b:
        games = [await start(a.api, humans("alice", "bob"), ["4S", "JH", "7D", "5C", "9C"]) for _ in range(GAMES_RACED)]
        # bob's turn on every game: one instance sends his bet, the other his pass, at the same moment, each with
        # its own idempotency key, both answering the version read before the race (each reading it inside the race
        # let the slower one read the winner's version on a slow machine, and be refused as NOT_YOUR_TURN).
        # Whichever lands first plays; the other names a version the game has moved past.
        races = [
            asyncio.gather(
                post_action(a.api, g["game_id"], "bob", "bet", amount=5, version=g["version"]),
                post_action(b.api, g["game_id"], "bob", "pass", version=g["version"]),
            )
            for g in games
        ]
        results = await asyncio.gather(*races)

    for game, (bet, passed) in zip(games, results, strict=True):
        statuses = sorted((bet.status_code, passed.status_code))
        assert statuses == [200, 409], (bet.text, passed.text)
        loser = bet if bet.status_code == 409 else passed
        assert loser.json()["code"] == "STALE_VERSION"
        found = await events(db, game["game_id"])
        moves = [e for e in found if isinstance(e, InBetweenBetPlaced | InBetweenPassed)]
        assert len(moves) == 1
        assert isinstance(moves[0], InBetweenBetPlaced) == (bet.status_code == 200)
        links = await audit_sql.select_chain(db, UUID(game["game_id"]))
        assert verify_links(game["game_id"], links).ok
        head = await db.fetchval("SELECT audit_seq FROM inbetween_games WHERE game_id = $1", UUID(game["game_id"]))
        assert head == len(links)
        winner = (bet if bet.status_code == 200 else passed).json()
        next_card = "5C" if bet.status_code == 200 else "7D"  # a pass leaves the 7D, the bet's third card, undealt
        assert (winner["to_act"], winner["turn"]["first_post"]) == ("alice", next_card)
        assert await stored_seats(db, game["game_id"]) == winner["seats"]


async def stored_seats(db: asyncpg.Connection, game_id: str) -> object:
    """The seats as stored, in the API's shape."""
    state = json.loads(await db.fetchval("SELECT state::text FROM inbetween_games WHERE game_id = $1", UUID(game_id)))
    return [
        {"seat": i, "player_id": s["player_id"], "computer": s["computer"], "chips": s["chips"]}
        for i, s in enumerate(state["seats"])
    ]


async def test_thirty_moves_racing_for_one_turn_let_exactly_one_land_every_time(
    settings: Settings, db: asyncpg.Connection, clock: ManualClock
) -> None:
    outcomes = []
    async with live(settings, clock=clock) as a, live(settings, clock=clock) as b:
        for _ in range(BURSTS):
            # bob against the computer: a pass that lands late would land on bob's next turn, after the computer's
            seats: list[dict[str, Any]] = [{"computer": True}, {"player_id": "bob"}]
            game = await start(a.api, seats, ["4S", "JH"], rounds=15)
            assert (game["to_act"], game["awaiting"]) == ("bob", "bet"), game
            # Every move answers the version bob was shown; each has its own key, half through each instance.
            moves = [
                post_action(api, game["game_id"], "bob", "pass", version=game["version"])
                for api in [a.api, b.api] * (MOVES_A_BURST // 2)
            ]
            replies = await asyncio.gather(*moves)
            codes = sorted(r.json().get("code", "OK") if r.status_code != 200 else "OK" for r in replies)
            bob = 1  # his seat
            passes = [e for e in await events(db, game["game_id"]) if isinstance(e, InBetweenPassed) and e.seat == bob]
            outcomes.append((codes.count("OK"), codes.count("STALE_VERSION"), len(passes)))
    assert outcomes == [(1, MOVES_A_BURST - 1, 1)] * BURSTS
