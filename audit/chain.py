"""Canonical record bytes and the per-table sha256 hash chain over them.

The chain is generic: a record's `event` is any msgspec Struct (the game's tagged events); this module needs only
the envelope to hash, link and verify, so it imports no other project package.
"""

from __future__ import annotations

import hashlib
import hmac
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


class ChainReport(msgspec.Struct, frozen=True, kw_only=True):
    ok: bool
    records: int
    head: str
    error: str | None = None


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


def verify(links: Iterable[Link], *, table_id: str | None = None) -> ChainReport:
    """Check a whole chain: gap-free seq from 1, every prev_hash links, every hash recomputes, bodies decode."""
    head, count = GENESIS, 0
    for link in links:
        count += 1
        problem = _check(link, head, count, table_id)
        if problem is not None:
            return ChainReport(ok=False, records=count - 1, head=head.hex(), error=problem)
        head = link.hash
    return ChainReport(ok=True, records=count, head=head.hex())


def _check(link: Link, head: bytes, expected_seq: int, table_id: str | None) -> str | None:
    if link.seq != expected_seq:
        return f"seq {link.seq} where {expected_seq} was expected (a gap or a reorder)"
    if not hmac.compare_digest(link.prev_hash, head):
        return f"seq {link.seq}: prev_hash does not match the previous record's hash"
    if not hmac.compare_digest(link_hash(head, link.body), link.hash):
        return f"seq {link.seq}: hash does not match the record's bytes"
    try:
        record = envelope(link.body)
    except msgspec.DecodeError as exc:
        return f"seq {link.seq}: body does not decode: {exc}"
    if record.seq != link.seq or (table_id is not None and record.table_id != table_id):
        return f"seq {link.seq}: the body names seq {record.seq} of table {record.table_id}"
    return None
