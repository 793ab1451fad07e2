"""Load released paytables from the TOML files shipped inside this package."""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path

import msgspec

from paytables.red_dog.paytable import Paytable, Terms, terms_sha256

RELEASED_DIR = Path(__file__).parent / "released"


class PaytableError(ValueError):
    """A paytable file that is missing or invalid; the message names the file and the field."""


def load_file(path: Path) -> Paytable:
    """Parse and validate one paytable file."""
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise PaytableError(f"{path}: {exc}") from exc
    description = raw.pop("description", "")
    if not isinstance(description, str):
        raise PaytableError(f"{path}: field `description` must be a string")
    try:
        terms = msgspec.convert(raw, Terms)
    except msgspec.ValidationError as exc:
        raise PaytableError(f"{path}: {_name_field(str(exc))}") from exc
    expected_id = f"{path.parent.name}/{path.stem}"
    if terms.id != expected_id:
        raise PaytableError(f"{path}: field `id` is {terms.id!r} but the file's place says {expected_id!r}")
    return Paytable(terms=terms, description=description, sha256=terms_sha256(terms))


def _name_field(message: str) -> str:
    # msgspec says "... - at `$.trips_odds`"; say which field in words a paytable author reads first.
    if " - at `$." in message:
        detail, _, where = message.partition(" - at `$.")
        return f"field `{where.rstrip('`')}`: {detail}"
    return message


@functools.cache
def released() -> dict[str, Paytable]:
    """Every released paytable by id, read once."""
    tables = [load_file(path) for path in sorted(RELEASED_DIR.glob("*/v*.toml"))]
    return {table.id: table for table in tables}


def get(paytable_id: str) -> Paytable:
    """A released paytable by id (`name/vN`)."""
    try:
        return released()[paytable_id]
    except KeyError:
        raise PaytableError(f"no released paytable {paytable_id!r}") from None
