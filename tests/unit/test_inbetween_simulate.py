"""Simulated In Between games and `reddog inbetween simulate`: each strategy's average final chips with an interval."""

from __future__ import annotations

import json
import random
from decimal import Decimal
from fractions import Fraction

import pytest

from paytables.inbetween import inbetween_rules
from paytables.inbetween.inbetween_simulate import mean_interval, simulate
from service.cli.cli import main


def test_in_two_seat_games_the_strategies_average_chips_add_up_to_every_chip_in_play() -> None:
    report = simulate(inbetween_rules.get("inbetween/nepal/v1"), 2, 60, random.Random(3))
    kelly, one_chip = report.results
    assert (kelly.strategy, one_chip.strategy, kelly.seats, one_chip.seats) == ("kelly", "one-chip", 60, 60)
    assert Decimal(kelly.mean_final_chips) + Decimal(one_chip.mean_final_chips) == 2000


def test_with_three_seats_the_kelly_bot_takes_two_seats_and_the_one_chip_player_one() -> None:
    report = simulate(inbetween_rules.get("inbetween/home/v1"), 3, 10, random.Random(3), ante=20, rounds=10)
    assert [(r.strategy, r.seats) for r in report.results] == [("kelly", 20), ("one-chip", 10)]
    assert (report.ante, report.rounds) == (20, 10)


def test_the_interval_is_the_mean_plus_or_minus_1_96_standard_errors() -> None:
    mean, half = mean_interval([1, 2, 3, 4])
    # Sample variance of 1..4 is 5/3; the standard error sqrt(5/12) = 0.6455; 1.96 x that is 1.2652.
    assert mean == Fraction(5, 2)
    assert abs(half - Decimal("1.2652")) < Decimal("0.0001")


def test_a_simulation_of_fewer_than_two_games_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 2"):
        simulate(inbetween_rules.get("inbetween/nepal/v1"), 2, 1, random.Random(1))


def test_the_command_prints_each_strategys_average_final_chips(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["inbetween", "simulate", "inbetween/nepal/v1", "--players", "2", "--games", "20", "--seed", "5"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("inbetween/nepal/v1: 2 players, 20 games, ante 5, 5 rounds")
    rows = {line.split()[0]: line.split() for line in lines[2:]}
    assert set(rows) == {"kelly", "one-chip"}
    assert Decimal(rows["kelly"][2]) + Decimal(rows["one-chip"][2]) == 2000


def test_the_command_takes_a_rule_set_id_without_its_inbetween_prefix(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inbetween", "simulate", "home/v1", "--games", "2", "--seed", "1"]) == 0
    assert capsys.readouterr().out.startswith("inbetween/home/v1: 2 players")


def test_the_command_gives_the_same_figures_as_json_for_the_same_seed(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["inbetween", "simulate", "inbetween/sheets/v1", "--games", "5", "--seed", "9", "--json"]
    assert main(argv) == 0
    first = json.loads(capsys.readouterr().out)
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out) == first
    assert first["rounds"] == "until_empty"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["inbetween/nope/v1"], "no released"),
        (["inbetween/nepal/v1", "--ante", "7"], "ante"),
        (["inbetween/nepal/v1", "--rounds", "until_empty"], "rounds"),
    ],
)
def test_the_command_refuses_what_the_rule_set_does_not_offer(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    assert main(["inbetween", "simulate", *argv, "--games", "2"]) == 2
    assert message in capsys.readouterr().err


def test_the_rule_sets_command_lists_each_with_its_sha256(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inbetween", "rulesets"]) == 0
    out = capsys.readouterr().out
    for ruleset in inbetween_rules.released().values():
        assert f"{ruleset.id}" in out
        assert ruleset.sha256 in out
