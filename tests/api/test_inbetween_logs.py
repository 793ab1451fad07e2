"""In Between logs: each request line names its game, a game's end is one line, and no pack or salt is ever logged."""

from __future__ import annotations

import json
from typing import Any

import pytest
from litestar.testing import AsyncTestClient

from service.app import create_app
from tests.api.inbetween_helpers import GAMES, humans, play, start
from tests.conftest import make_settings
from tests.support.client import Signed


async def test_the_request_lines_name_the_game_and_its_end_is_logged_without_the_pack(
    database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Built inside the test body: the logger writes to the stdout of the moment it is configured (capsys's here).
    settings = make_settings(database_url, log_level="DEBUG")
    operator = next(op for op in settings.operators if op != "other")
    async with AsyncTestClient(app=create_app(settings, sweep=False)) as http:
        capsys.readouterr()
        api = Signed(http, operator, settings.operators[operator])
        # sheets/v1 ends when a bet takes the pot: bob's 20 on 4-J wins on the 7.
        game = await start(
            api, humans("alice", "bob"), ["4S", "JH", "7D"], ruleset="inbetween/sheets/v1", rounds="until_empty"
        )
        game = await play(api, game["game_id"], "bob", "bet", amount=20, version=game["version"])
        await api.ok("GET", f"{GAMES}/{game['game_id']}")
        out = capsys.readouterr().out
    lines: list[dict[str, Any]] = [json.loads(line) for line in out.splitlines() if line.strip()]
    requests = [line for line in lines if line.get("event") == "request"]
    assert [(r["method"], r["status"], r.get("game_id")) for r in requests] == [
        ("POST", 201, game["game_id"]),
        ("POST", 200, game["game_id"]),
        ("GET", 200, game["game_id"]),
    ]
    ended = [line for line in lines if line.get("event") == "inbetween_game_ended"]
    assert len(ended) == 1
    assert {k: ended[0][k] for k in ("game_id", "ruleset", "reason", "rounds", "chips", "winners", "test")} == {
        "game_id": game["game_id"],
        "ruleset": "inbetween/sheets/v1",
        "reason": "pot_emptied",
        "rounds": 1,
        "chips": [990, 1010],
        "winners": ["bob"],
        "test": True,
    }
    reveal = game["shoe"]["reveal"]
    assert reveal is not None
    assert reveal["salt"] not in out
    assert reveal["order"][6:40] not in out  # the undealt part of the pack
