"""`reddog report par` writes one HTML file that loads nothing and shows the figures a second count gives."""

from __future__ import annotations

import decimal
import math
from fractions import Fraction
from html.parser import HTMLParser
from pathlib import Path

import pytest

from paytables.red_dog import loader
from paytables.red_dog.analysis.par_sheet import par_sheet
from service.cli.cli import main
from service.cli.par_sheet_html import render
from tests.unit.oracle import RELEASED_SHA256, closed_form
from tests.unit.par_oracle import brute_force, raise_spreads_by_hand, seat_one_of_two

# Elements that fetch, run or style something; attributes that name a resource or run a script.
FETCHING_TAGS = {"script", "style", "link", "img", "iframe", "object", "embed", "base", "form", "audio", "video"}
FETCHING_TAGS |= {"source", "track", "image", "use", "feimage", "picture", "frame", "portal"}
RESOURCE_ATTRIBUTES = {"src", "href", "xlink:href", "srcset", "action", "formaction", "poster", "data", "background"}


class Fetches(HTMLParser):
    """Everything in a document that could make a request or be refused by `default-src 'none'`."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in FETCHING_TAGS:
            self.found.append(f"<{tag}>")
        for name, value in attrs:
            if name in RESOURCE_ATTRIBUTES or name == "style" or name.startswith("on"):
                self.found.append(f"<{tag} {name}={value!r}>")


def fetches(document: str) -> list[str]:
    parser = Fetches()
    parser.feed(document)
    return parser.found + (["://"] if "://" in document else []) + (["url("] if "url(" in document else [])


def ten_places(value: Fraction) -> str:
    """Rounded half-even to ten places, by the decimal module's own rules."""
    context = decimal.Context(prec=50, rounding=decimal.ROUND_HALF_EVEN)
    quotient = context.divide(decimal.Decimal(value.numerator), decimal.Decimal(value.denominator))
    return f"{quotient.quantize(decimal.Decimal('1e-10'), context=context):f}"


def cell(value: Fraction) -> str:
    return f"{ten_places(value)}<br><small>{value.numerator}/{value.denominator}</small>"


def test_the_checker_finds_every_way_a_page_could_fetch_or_be_refused() -> None:
    page = (
        '<a href="https://example.org">x</a><img src="//cdn.example/x.png"><svg><use href="#a"/></svg>'
        '<p style="color: red" onclick="f()">y</p><link rel="icon" href="data:,">'
    )
    assert fetches(page) == [
        "<a href='https://example.org'>",
        "<img>",
        "<img src='//cdn.example/x.png'>",
        "<use>",
        "<use href='#a'>",
        "<p style='color: red'>",
        "<p onclick='f()'>",
        "<link>",
        "<link href='data:,'>",
        "://",
    ]


@pytest.mark.parametrize(("paytable_id", "decks", "seats"), [("standard/v1", 6, None), ("post-double/v1", 1, 2)])
def test_the_sheet_has_no_url_no_src_or_href_and_nothing_a_default_src_none_policy_refuses(
    paytable_id: str, decks: int, seats: int | None
) -> None:
    document = render(par_sheet(loader.get(paytable_id), decks, seats))
    assert fetches(document) == []
    assert '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'">' in document
    assert document.count("<svg ") == 4


def test_the_six_deck_classic_sheet_shows_the_figures_of_a_second_count() -> None:
    document = render(par_sheet(loader.get("standard/v1"), 6))
    by_hand = closed_form("standard/v1", 6)
    brute = brute_force("standard/v1", 6, raise_spreads_by_hand("standard/v1", 6))
    assert RELEASED_SHA256["standard/v1"] in document
    assert cell(by_hand.house_edge) in document
    assert cell(by_hand.never_raise_house_edge) in document
    assert cell(brute.rtp) in document
    assert cell(by_hand.variance_per_ante) in document
    assert cell(Fraction(12, 155)) in document  # spread 1: 24 of the 310 cards left lie between
    for confidence, z in ((95, 1.959963984540054), (99, 2.5758293035489004)):
        for tolerance in (Fraction(1, 200), Fraction(1, 1000)):
            rounds = math.ceil(z**2 * float(brute.rtp_variance) / float(tolerance) ** 2)
            assert f"<td>{rounds:,}</td>" in document, (confidence, tolerance)
    assert "Optimal play raises the most allowed on spreads 7, 8, 9, 10, 11" in document
    assert "normal approximation" in document.lower()


def test_a_per_seat_sheet_shows_the_counting_seat_s_edge() -> None:
    document = render(par_sheet(loader.get("post-double/v1"), 1, 2))
    by_hand = seat_one_of_two("post-double/v1", 1, raise_spreads_by_hand("post-double/v1", 1))
    assert "A hand per seat: the counting player (2 seats)" in document
    assert cell(-by_hand.counting_net) in document
    assert cell(by_hand.counting_net - by_hand.usual_net) in document


def test_the_command_writes_the_sheet_and_prints_where(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "sheet.html"
    assert main(["report", "par", "standard/v1", "--decks", "1", "--out", str(out)]) == 0
    assert capsys.readouterr().out == f"{out}\n"
    assert out.read_text(encoding="utf-8") == render(par_sheet(loader.get("standard/v1"), 1))


def test_by_default_the_file_is_named_for_the_paytable_decks_and_seats(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["report", "par", "post-double/v1", "--decks", "1", "--deal", "per_seat", "--seats", "2"]) == 0
    assert capsys.readouterr().out == "par-post-double-v1-1d-per-seat-2.html\n"
    assert "the counting player (2 seats)" in (tmp_path / "par-post-double-v1-1d-per-seat-2.html").read_text()


@pytest.mark.parametrize(
    "args",
    [
        ["nope/v1", "--decks", "1"],  # no such paytable
        ["standard/v1", "--decks", "1", "--seats", "2"],  # seats without a per-seat deal
    ],
)
def test_a_bad_request_exits_2_and_writes_nothing(
    args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "sheet.html"
    assert main(["report", "par", *args, "--out", str(out)]) == 2
    assert "reddog:" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("decks", ["0", "9"])
def test_decks_outside_one_to_eight_are_refused_by_the_parser(decks: str, tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["report", "par", "standard/v1", "--decks", decks, "--out", str(tmp_path / "x.html")])
    assert exit_.value.code == 2
    assert not (tmp_path / "x.html").exists()


def test_the_same_inputs_give_the_same_bytes() -> None:
    paytable = loader.get("generous/v1")
    assert render(par_sheet(paytable, 2)) == render(par_sheet(paytable, 2))
