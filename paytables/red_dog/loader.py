"""Load released paytables from the TOML files shipped inside this package."""

from __future__ import annotations

import functools
from pathlib import Path

from paytables import releases
from paytables.red_dog.paytable import Paytable, Terms
from paytables.releases import ReleaseError

RELEASED_DIR = Path(__file__).parent / "released"


class PaytableError(ReleaseError):
    """A paytable file that is missing or invalid; the message names the file and the field."""


def load_file(path: Path) -> Paytable:
    """Parse and validate one paytable file; its id must match its place under `released/`."""
    loaded = releases.load_file(path, Terms, PaytableError, id_of=lambda terms: terms.id)
    return Paytable(terms=loaded.terms, description=loaded.description, sha256=loaded.sha256)


@functools.cache
def released() -> dict[str, Paytable]:
    """Every released paytable by id, read once."""
    tables = [load_file(path) for path in releases.release_files(RELEASED_DIR)]
    return {table.id: table for table in tables}


def get(paytable_id: str) -> Paytable:
    """A released paytable by id (`name/vN`)."""
    try:
        return released()[paytable_id]
    except KeyError:
        raise PaytableError(f"no released paytable {paytable_id!r}") from None
