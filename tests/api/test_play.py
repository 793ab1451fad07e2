"""`reddog play` against a real server: a readable line per step, no `None`, and one table across runs."""

from __future__ import annotations

import pytest

from service.cli.play import _bet_line, play
from service.settings import Settings
from tests.support.threaded import served


def test_play_reuses_the_table_it_opened_and_never_prints_none(
    settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    operator, secret = next((op, s) for op, s in settings.operators.items() if op != "other")
    with served(settings) as url:
        assert play(url, operator, secret, None) == 0
        first = capsys.readouterr().out
        assert play(url, operator, secret, None) == 0
        second = capsys.readouterr().out
    opened = next(line for line in first.splitlines() if line.startswith("opened table "))
    table_id = opened.split()[2]
    assert f"reusing table {table_id}" in second
    for line in (first + second).splitlines():
        if line.startswith(("dealt:", "settled:")):
            assert "None" not in line, line


def test_an_open_bet_is_shown_as_open_with_its_ante_and_a_settled_one_with_a_signed_net() -> None:
    open_bet = {"player_id": "alice", "ante": 500, "result": None, "net": None}
    won = {"player_id": "alice", "ante": 500, "result": "win", "net": 1000}
    assert _bet_line(open_bet) == "alice open, ante 500"
    assert _bet_line(won) == "alice win net +1000"
