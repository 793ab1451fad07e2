"""`reddog rtp --deal per_seat` prints the usual and the counting seat's exact edges; the shared deal is unchanged."""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction

import pytest

from paytables.red_dog import loader
from paytables.red_dog.analysis.per_seat_deal_law import fresh_composition, seat_law
from paytables.red_dog.analysis.red_dog_per_seat import edges_of_law
from service.cli.cli import main
from tests.unit.oracle import closed_form


def per_seat_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, object]:
    assert main(["rtp", *args, "--deal", "per_seat", "--json"]) == 0
    figures: dict[str, object] = json.loads(capsys.readouterr().out)
    return figures


def test_per_seat_json_gives_the_shared_edge_for_the_usual_strategy_and_the_walked_edge_for_the_counter(
    capsys: pytest.CaptureFixture[str],
) -> None:
    figures = per_seat_json(capsys, "post-double/v1", "--decks", "1", "--seats", "2")
    by_hand = closed_form("post-double/v1", 1)
    assert (figures["paytable"], figures["decks"], figures["seats"], figures["deal"]) == (
        "post-double/v1",
        1,
        2,
        "per_seat",
    )
    assert Fraction(str(figures["usual_house_edge_fraction"])) == by_hand.house_edge
    assert Fraction(str(figures["shared_house_edge_fraction"])) == by_hand.house_edge
    walked = edges_of_law(
        loader.get("post-double/v1"), seat_law(fresh_composition(1), 2, 2), frozenset(by_hand.raise_spreads)
    )
    counting = Fraction(str(figures["counting_house_edge_fraction"]))
    assert counting == -walked.counting_net
    assert abs(Fraction(Decimal(str(figures["counting_house_edge"]))) - counting) <= Fraction(1, 2 * 10**10)
    assert Fraction(str(figures["counting_gain_fraction"])) == by_hand.house_edge - counting > 0
    assert figures["raise_spreads"] == by_hand.raise_spreads


def test_per_seat_as_a_table_prints_both_edges(capsys: pytest.CaptureFixture[str]) -> None:
    figures = per_seat_json(capsys, "generous/v1", "--decks", "1", "--seats", "3")
    assert main(["rtp", "generous/v1", "--decks", "1", "--deal", "per_seat", "--seats", "3"]) == 0
    out = capsys.readouterr().out
    assert "generous/v1 with 1 deck(s), a hand per seat at 3 seat(s)" in out
    assert f"usual strategy house edge    {figures['usual_house_edge']}" in out
    assert f"counting seat house edge     {figures['counting_house_edge']}" in out


def test_the_shared_deal_is_the_default_and_prints_as_before(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rtp", "standard/v1", "--decks", "2", "--json"]) == 0
    default = capsys.readouterr().out
    assert main(["rtp", "standard/v1", "--decks", "2", "--json", "--deal", "shared"]) == 0
    assert capsys.readouterr().out == default
    assert "seats" not in json.loads(default)


def test_seats_without_the_per_seat_deal_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rtp", "standard/v1", "--seats", "3"]) == 2
    assert "--deal per_seat" in capsys.readouterr().err


@pytest.mark.parametrize("seats", ["0", "8", "three"])
def test_a_seat_count_outside_one_to_seven_exits_2(capsys: pytest.CaptureFixture[str], seats: str) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["rtp", "standard/v1", "--deal", "per_seat", "--seats", seats])
    assert exited.value.code == 2
    assert "seats" in capsys.readouterr().err
