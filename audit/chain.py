"""Canonical record bytes and the per-table sha256 hash chain over them."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable
from typing import Any

import msgspec

GENESIS = bytes(32)  # the prev_hash of a chain's first record


class Record(msgspec.Struct, frozen=True, kw_only=True):
    """One audit record exactly as hashed. New fields must get defaults so old records still decode."""

    table_id: str
    seq: int
    recorded_at: str  # ISO 8601 UTC
    kind: str
    round_id: str | None = None
    bet_id: str | None = None
    test: bool = False
    payload: dict[str, Any] = {}


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


# Sorted keys and no whitespace: the same record always gives the same bytes.
_encoder = msgspec.json.Encoder(order="sorted")
_decoder = msgspec.json.Decoder(Record)


def canonical(record: Record) -> bytes:
    return _encoder.encode(record)


def decode(body: bytes) -> Record:
    return _decoder.decode(body)


def link_hash(prev_hash: bytes, body: bytes) -> bytes:
    """hash = sha256(prev_hash || canonical record bytes)."""
    return hashlib.sha256(prev_hash + body).digest()


def extend(head: bytes, records: Iterable[Record]) -> list[Link]:
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
        record = decode(link.body)
    except msgspec.DecodeError as exc:
        return f"seq {link.seq}: body does not decode: {exc}"
    if record.seq != link.seq or (table_id is not None and record.table_id != table_id):
        return f"seq {link.seq}: the body names seq {record.seq} of table {record.table_id}"
    return None
