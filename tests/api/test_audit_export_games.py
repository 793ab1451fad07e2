"""In Between games in the audit export: `GET /v1/audit/records`, `reddog audit export`, `verify` and `replay` carry
and check each game's chain beside the tables', in one `table_id` order; replay re-plays every game that ended
through the engine (a split pair, an agreement to stop and the computers' reshuffled packs among them)."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from audit.export_format import RecordLine, TableHead, read_lines
from audit.replay import Replayer
from audit.verify_export import verify_lines
from tests.api.helpers import problem
from tests.api.inbetween_helpers import humans, play, start
from tests.api.test_audit_export import pages
from tests.support.client import Signed
from tests.support.reddog_command import reddog
from tests.support.scratch import Database, verified_scratch_database

SPLIT = "inbetween/pagat-split/v1"
AGREE = "inbetween/pagat-ante/v2"


@pytest.fixture(scope="module")
async def database(database_server: str) -> AsyncIterator[Database]:
    """This module's own database, so the whole export holds only these games and tables."""
    async with verified_scratch_database(database_server) as database:
        yield database


async def play_out(api: Signed, game: dict[str, Any]) -> dict[str, Any]:
    """Every human move a plain one (an ace high, a pair kept, every bet passed) until the game is over."""
    moves = {"ace_call": ("call_ace", {"call": "high"}), "split": ("keep_pair", {}), "bet": ("pass", {})}
    moves["pair_call"] = ("pass", {})
    while game["status"] != "game_over":
        action, fields = moves[game["awaiting"]]
        game = await play(api, game["game_id"], game["to_act"], action, **fields)
    return game


async def games_of_every_kind(api: Signed) -> list[str]:
    """A split pair, an agreement to stop, and a live game of computers (played to its end as it starts)."""
    split = await start(api, humans("alice", "bob", "carol"), ["2S", "8S", "8H", "2D", "5C", "KD", "8D"], ruleset=SPLIT)
    split = await play(api, split["game_id"], "bob", "split")
    split = await play(api, split["game_id"], "bob", "bet", amount=20)
    split = await play_out(api, await play(api, split["game_id"], "bob", "bet", amount=20))
    agreed = await start(api, humans("alice", "bob", "carol"), ["2S", "4S", "JH"], ruleset=AGREE)
    for player in ("carol", "alice", "bob"):
        agreed = await play(api, agreed["game_id"], player, "agree_stop")
    computers = [{"player_id": f"c{n}", "computer": True} for n in range(4)]
    live = await start(api, computers, ruleset="inbetween/nepal/v2", ante=10, rounds=10)
    assert [g["status"] for g in (split, agreed, live)] == ["game_over"] * 3
    assert agreed["ended_reason"] == "agreed"
    return [split["game_id"], agreed["game_id"], live["game_id"]]


async def test_every_game_chain_is_exported_in_table_id_order_and_replays_through_the_engine(
    api: Signed, auditor_api: Signed, database_url: str, tmp_path: Path
) -> None:
    games = await games_of_every_kind(api)
    table = await api.table()
    open_game = (await start(api, humans("dora", "eve"), ["4S", "JH"]))["game_id"]
    lines, _ = await pages(auditor_api, limit=50)
    heads = [x.table_id for x in lines if type(x) is TableHead]
    assert {*games, open_game, table["table_id"]} <= set(heads)
    assert sorted(dict.fromkeys(heads)) == list(dict.fromkeys(heads))  # one order: table_id, across tables and games
    assert verify_lines(lines).ok
    replayer = Replayer()
    replayer.feed(lines)
    report = replayer.report()
    assert report.ok, report.games.mismatches
    assert (report.games.games, report.games.matched, report.games.open_games) == (3, 3, 1)
    out = tmp_path / "export.jsonl"
    code, _, err = await reddog(database_url, "audit", "export", "--out", str(out))
    assert code == 0, err
    exported = list(read_lines(io.BytesIO(out.read_bytes())))
    assert [x for x in lines if type(x) is RecordLine] == [x for x in exported if type(x) is RecordLine]
    kinds = {x.kind for x in exported if type(x) is RecordLine and x.table_id in games}
    assert {"ib_pair_split", "ib_hand_ended", "ib_stop_agreed", "ib_shoe_shuffled"} <= kinds
    code, text, err = await reddog(database_url, "audit", "verify", str(out))
    assert code == 0, (text, err)
    code, text, err = await reddog(database_url, "audit", "replay", str(out))
    assert code == 0, (text, err)
    assert "In Between games re-played through the engine: 3, matching their records: 3; 1 not over" in text


async def test_an_operator_exports_its_own_games_and_not_anothers(api: Signed, other_api: Signed) -> None:
    mine = (await start(api, humans("a", "b"), ["4S", "JH"]))["game_id"]
    theirs = (await start(other_api, humans("a", "b"), ["4S", "JH"]))["game_id"]
    lines, _ = await pages(api)
    heads = {x.table_id for x in lines if type(x) is TableHead}
    assert mine in heads
    assert theirs not in heads
    problem(await api.get(f"/v1/audit/records?table_id={theirs}"), 404, "NOT_FOUND")
    mine_only, _ = await pages(api, f"&table_id={mine}")
    assert {getattr(x, "table_id", None) for x in mine_only} == {mine}
    assert next(x.seq for x in mine_only if type(x) is RecordLine) == 1
