"""The checkpoint store: each chain's latest published checkpoint, kept in a directory outside the database
(RD_CHECKPOINT_STORE, a volume of its own), so that a database restored or failed over to an older state can be
compared with what auditors were already handed.

One file a chain, `<chain id>.json`, replaced whole by rename (a reader never sees half a file) under an exclusive
lock on `.lock`, so replicas sharing the directory never move an entry back: a publish only ever raises the size.
Only an operator's `reddog audit accept-fork` sets an entry to a smaller head, on the record.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path
from uuid import UUID

import msgspec

SUFFIX = ".json"


class Kept(msgspec.Struct, frozen=True, kw_only=True):
    """What the store keeps of a chain: the size and root of its latest published checkpoint and the note as signed;
    or, after an operator accepted a fork, the head accepted (`note` None, `accepted_by` who)."""

    table_id: UUID
    tree_size: int
    root: bytes
    note: str | None = None
    accepted_by: str | None = None  # who accepted this head (the system chain records the decision)


class Stamped(msgspec.Struct, frozen=True, kw_only=True):
    kept: Kept
    stamp: int  # the file's mtime in ns: a reader reloads an entry only when this moves


_encode = msgspec.json.Encoder(order="deterministic").encode
_decode = msgspec.json.Decoder(Kept).decode


def _path(store: Path, table_id: UUID) -> Path:
    return store / f"{table_id}{SUFFIX}"


@contextlib.contextmanager
def _locked(store: Path) -> Iterator[None]:
    store.mkdir(parents=True, exist_ok=True)
    with (store / ".lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def read(store: Path, table_id: UUID) -> Stamped | None:
    """A chain's entry and its stamp; None when the store keeps nothing of it."""
    path = _path(store, table_id)
    try:
        stamp = path.stat().st_mtime_ns
        return Stamped(kept=_decode(path.read_bytes()), stamp=stamp)
    except FileNotFoundError:
        return None


def stamp_of(store: Path, table_id: UUID) -> int | None:
    try:
        return _path(store, table_id).stat().st_mtime_ns
    except FileNotFoundError:
        return None


def read_all(store: Path) -> dict[UUID, Stamped]:
    """Every entry of the store (an empty or missing directory: none)."""
    found: dict[UUID, Stamped] = {}
    if not store.is_dir():
        return found
    for path in store.iterdir():
        if path.suffix == SUFFIX and not path.name.startswith("."):
            entry = read(store, UUID(path.stem))
            if entry is not None:
                found[entry.kept.table_id] = entry
    return found


def _write(store: Path, kept: Kept) -> None:
    """Replace the chain's file whole: written beside it, flushed to disk, renamed over it, the rename flushed."""
    path = _path(store, kept.table_id)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with temporary.open("wb") as out:
        out.write(_encode(kept))
        out.flush()
        os.fsync(out.fileno())
    temporary.replace(path)
    directory = os.open(store, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def publish(store: Path, kept: Kept) -> Kept:
    """Keep this checkpoint unless the store already keeps a larger one (or another at this size); what is kept."""
    with _locked(store):
        current = read(store, kept.table_id)
        if current is not None and current.kept.tree_size >= kept.tree_size:
            return current.kept
        _write(store, kept)
        return kept


def accept(store: Path, kept: Kept) -> None:
    """An operator's decision: the store keeps this head from now on, whatever it kept before."""
    with _locked(store):
        _write(store, kept)
