"""The one loader of released terms, for every game: a TOML file per version under the game's folder, its terms
validated strictly, its id its place (`<name>/v<N>.toml`), its sha256 over the canonical JSON of the terms.

Released files are never edited: new terms mean a new version. The hash covers the terms' canonical encoding (sorted
keys, no whitespace), never the file's layout or comments, so an auditor recomputes it from the terms alone.
"""

from __future__ import annotations

import hashlib
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

import msgspec

T = TypeVar("T", bound=msgspec.Struct)


class ReleaseError(ValueError):
    """A release file that is missing or invalid, or an id with no released file; the message says which."""


class Released(msgspec.Struct, Generic[T], frozen=True, kw_only=True):
    """A file's terms, its description (not hashed) and the sha256 of the terms."""

    terms: T
    description: str
    sha256: str


_canonical = msgspec.json.Encoder(order="sorted")


def canonical_bytes(terms: msgspec.Struct) -> bytes:
    """The canonical encoding of the terms: JSON with sorted keys and no whitespace."""
    return _canonical.encode(terms)


def terms_sha256(terms: msgspec.Struct) -> str:
    return hashlib.sha256(canonical_bytes(terms)).hexdigest()


def _no_check(_: object) -> None:
    return None


def parse(
    text: str,
    where: str,
    terms_type: type[T],
    error: type[ReleaseError],
    check: Callable[[T], None] = _no_check,
) -> Released[T]:
    """Parse and validate the TOML text of one release; `where` names it in errors, `check` refuses contradictions."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{where}: {exc}") from exc
    description = raw.pop("description", "")
    if not isinstance(description, str):
        raise error(f"{where}: field `description` must be a string")
    try:
        terms = msgspec.convert(raw, terms_type)
        check(terms)
    except msgspec.ValidationError as exc:
        raise error(f"{where}: {_name_field(str(exc))}") from exc
    except ReleaseError as exc:
        raise error(f"{where}: {exc}") from exc
    return Released(terms=terms, description=description, sha256=terms_sha256(terms))


def load_file(
    path: Path,
    terms_type: type[T],
    error: type[ReleaseError],
    *,
    id_of: Callable[[T], str],
    id_prefix: str = "",
    check: Callable[[T], None] = _no_check,
) -> Released[T]:
    """Parse one release file; the id its terms give (`id_of`) must be its place under the folder."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise error(f"{path}: {exc}") from exc
    released = parse(text, str(path), terms_type, error, check)
    expected = f"{id_prefix}{path.parent.name}/{path.stem}"
    if id_of(released.terms) != expected:
        raise error(f"{path}: field `id` is {id_of(released.terms)!r} but the file's place says {expected!r}")
    return released


def release_files(folder: Path) -> list[Path]:
    """Every release file under a game's folder, in a stable order."""
    return sorted(folder.glob("*/v*.toml"))


def _name_field(message: str) -> str:
    # msgspec says "... - at `$.pair.chips`"; an author reads the field first.
    if " - at `$." in message:
        detail, _, where = message.partition(" - at `$.")
        return f"field `{where.rstrip('`')}`: {detail}"
    return message


__all__ = ["ReleaseError", "Released", "canonical_bytes", "load_file", "parse", "release_files"]
