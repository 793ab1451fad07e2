"""The two PAR sheets kept in docs/par (the ones the labs were shown) are what `reddog report par` writes today:
a change to the figures or the page shows up as a difference here, and the files are written again with the
command each test names."""

from pathlib import Path

import pytest

from paytables.red_dog import loader
from paytables.red_dog.analysis.par_sheet import par_sheet
from service.cli.par_sheet_html import render

DOCS = Path(__file__).resolve().parents[2] / "docs" / "par"


@pytest.mark.parametrize(
    ("paytable", "decks", "file"),
    [("standard/v1", 6, "standard-v1-6-decks.html"), ("post-double/v1", 1, "post-double-v1-1-deck.html")],
)
def test_the_kept_sheet_is_what_the_command_writes_today(paytable: str, decks: int, file: str) -> None:
    kept = (DOCS / file).read_text(encoding="utf-8")
    written = render(par_sheet(loader.get(paytable), decks, None))
    assert written == kept, (
        f"docs/par/{file} is stale: reddog report par {paytable} --decks {decks} --out docs/par/{file}"
    )
