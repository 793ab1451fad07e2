"""Canonical record bytes and the per-table sha256 hash chain over them.

The chain is generic: a record's `event` is any msgspec Struct (the game's tagged events); this module needs only
the envelope to hash and link, so it imports no other project package. The one check of a chain is
`audit/chain_check.py` (fed by `audit/verify_export.py`, from an export, the database or a chain's links).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import datetime
from typing import Generic, TypeVar

import msgspec

GENESIS = bytes(32)  # the prev_hash of a chain's first record
SCHEMA = 2  # 1: {kind, round_id, bet_id, payload} untyped; 2: a typed `event` tagged by its `kind`
E = TypeVar("E")


class Record(msgspec.Struct, Generic[E], frozen=True, kw_only=True):
    """One audit record exactly as hashed (schema 2); `E` is the game's tagged union of event Structs."""

    schema: int = SCHEMA
    table_id: str
    seq: int
    recorded_at: datetime  # UTC, encoded as RFC 3339 with `Z`
    test: bool
    event: E  # its `kind` tag names the record


class EventKeys(msgspec.Struct, frozen=True, kw_only=True):
    """The fields of an event the audit_log columns repeat; the rest of the event is left undecoded."""

    kind: str
    round_id: str | None = None
    bet_id: str | None = None


class Envelope(msgspec.Struct, frozen=True, kw_only=True):
    """Any stored record, schema 1 or 2, read for what verification needs."""

    schema: int = 1
    table_id: str
    seq: int
    recorded_at: str
    test: bool = False
    event: EventKeys | None = None  # schema 2
    kind: str | None = None  # schema 1 kept these three beside an untyped payload
    round_id: str | None = None
    bet_id: str | None = None

    @property
    def keys(self) -> EventKeys:
        if self.event is not None:
            return self.event
        return EventKeys(kind=self.kind or "", round_id=self.round_id, bet_id=self.bet_id)


class Link(msgspec.Struct, frozen=True, kw_only=True):
    """A stored record: its canonical bytes and the hashes that chain it."""

    seq: int
    prev_hash: bytes
    hash: bytes
    body: bytes


# Sorted keys, no whitespace, UTF-8 as is: the same record always gives the same bytes.
_encoder = msgspec.json.Encoder(order="sorted")
_decoder = msgspec.json.Decoder(Envelope)


def canonical(record: Record[E]) -> bytes:
    return _encoder.encode(record)


def envelope(body: bytes) -> Envelope:
    return _decoder.decode(body)


def link_hash(prev_hash: bytes, body: bytes) -> bytes:
    """hash = sha256(prev_hash || canonical record bytes)."""
    return hashlib.sha256(prev_hash + body).digest()


def extend(head: bytes, records: Iterable[Record[E]]) -> list[Link]:
    """Chain new records after `head`; their seq numbers must already follow the head's."""
    links = []
    for record in records:
        body = canonical(record)
        digest = link_hash(head, body)
        links.append(Link(seq=record.seq, prev_hash=head, hash=digest, body=body))
        head = digest
    return links
