"""The `reddog` command's paytable and RTP output, read the way a script would read it."""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal
from fractions import Fraction

import pytest

from service.cli.cli import main
from tests.unit.oracle import PAYTABLE_IDS, RELEASED_SHA256, closed_form

OUTCOMES = {"consecutive", "pair_push", "trips", *(f"spread_{s}" for s in range(1, 12))}


def rtp_json(capsys: pytest.CaptureFixture[str], paytable_id: str, decks: int) -> dict[str, object]:
    assert main(["rtp", paytable_id, "--decks", str(decks), "--json"]) == 0
    figures: dict[str, object] = json.loads(capsys.readouterr().out)
    return figures


def test_rtp_as_json_gives_the_exact_house_edge_in_lowest_terms(capsys: pytest.CaptureFixture[str]) -> None:
    figures = rtp_json(capsys, "standard/v1", 6)
    by_hand = closed_form("standard/v1", 6)
    assert (figures["paytable"], figures["decks"]) == ("standard/v1", 6)
    fraction = str(figures["house_edge_fraction"])
    assert re.fullmatch(r"\d+/\d+", fraction)
    numerator, denominator = map(int, fraction.split("/"))
    assert math.gcd(numerator, denominator) == 1
    assert Fraction(numerator, denominator) == by_hand.house_edge


def test_rtp_as_json_gives_the_house_edge_to_at_least_six_places(capsys: pytest.CaptureFixture[str]) -> None:
    figures = rtp_json(capsys, "standard/v1", 6)
    edge = str(figures["house_edge"])
    assert len(edge.partition(".")[2]) >= 6
    assert abs(Fraction(Decimal(edge)) - closed_form("standard/v1", 6).house_edge) < Fraction(1, 10**6)


def test_rtp_as_json_gives_the_strategy_the_spread_of_the_outcomes_and_the_spread_of_results(
    capsys: pytest.CaptureFixture[str],
) -> None:
    figures = rtp_json(capsys, "post-double/v1", 1)
    by_hand = closed_form("post-double/v1", 1)
    assert figures["min_raise_spread"] == min(by_hand.raise_spreads)
    assert abs(Fraction(Decimal(str(figures["rtp_per_total_bet"]))) - by_hand.rtp_per_total_bet) < Fraction(1, 10**6)
    probabilities = figures["outcome_probabilities"]
    assert isinstance(probabilities, dict)
    assert set(probabilities) == OUTCOMES
    assert {name: Fraction(p) for name, p in probabilities.items()} == by_hand.outcome_probabilities
    std_dev = float(str(figures["std_dev_per_ante"]))
    assert math.isclose(std_dev, math.sqrt(by_hand.variance_per_ante), rel_tol=1e-9)


def test_rtp_as_a_table_names_the_paytable_and_its_sha256(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rtp", "generous/v1", "--decks", "2"]) == 0
    out = capsys.readouterr().out
    assert "generous/v1 with 2 deck(s)" in out
    assert RELEASED_SHA256["generous/v1"] in out


def test_paytables_lists_every_released_table_with_its_sha256(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["paytables"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(PAYTABLE_IDS)
    listed = {line.split()[0]: line.split()[1] for line in lines}
    assert listed == RELEASED_SHA256


def test_paytables_with_ids_lists_only_the_ids(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["paytables", "--ids"]) == 0
    assert sorted(capsys.readouterr().out.split()) == sorted(PAYTABLE_IDS)


def test_an_unknown_paytable_exits_2_with_a_message_naming_it(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rtp", "nosuch/v1"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "nosuch/v1" in captured.err


@pytest.mark.parametrize("decks", ["0", "9", "six"])
def test_a_deck_count_outside_one_to_eight_exits_2(capsys: pytest.CaptureFixture[str], decks: str) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["rtp", "standard/v1", "--decks", decks])
    assert exited.value.code == 2
    assert "decks" in capsys.readouterr().err


def test_a_seeded_simulation_reports_the_exact_edge_inside_its_interval(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "standard/v1", "--rounds", "20000", "--seed", "11", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["rounds"], report["exact_inside_ci99"]) == (20000, True)
    assert Decimal(report["ci99_low"]) <= Decimal(report["exact_house_edge"]) <= Decimal(report["ci99_high"])


@pytest.mark.parametrize("command", [["audit", "verify", "--db"], ["audit", "replay", "--db"], ["audit-verify"]])
def test_a_file_named_beside_db_is_refused_rather_than_left_unchecked(command: list[str]) -> None:
    with pytest.raises(SystemExit, match=r"--db reads DATABASE_URL, not old\.jsonl"):
        main([*command, "old.jsonl"])
