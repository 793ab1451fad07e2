"""SQL for the audit log: append events to a table's chain under its row lock, read chains back.

A chain's head carries its Merkle tree head (`CompactRange`), extended with every append, so the signed checkpoints
of `service/chains/checkpoints.py` never re-hash history.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence
from datetime import datetime
from typing import TypeAlias
from uuid import UUID

import asyncpg
import msgspec

from audit.chain import GENESIS, SCHEMA, Link, Record, extend
from audit.merkle import HASH_SIZE, CompactRange
from audit.system_events import SYSTEM_CHAIN_ID, SYSTEM_SCHEMA, SystemEvent
from paytables.inbetween.inbetween_events import InBetweenEvent
from paytables.red_dog.events import Event
from service.db import Conn, Statement

# What a chain's records hold: a Red Dog table's events, an In Between game's, or the system chain's.
AnyEvent: TypeAlias = Event | InBetweenEvent | SystemEvent


class AuditHead(msgspec.Struct, frozen=True, kw_only=True):
    """The last record of a table's chain, read under the table row's lock."""

    seq: int
    hash: bytes
    recorded_at: datetime | None  # None before the first record written with this column
    # The Merkle tree head over records 1..seq: every chain is checkpointed (the tables', the games' since migration
    # 023, the system's), and every append extends it.
    tree: CompactRange = CompactRange()

    def merkle(self) -> CompactRange:
        """The chain's tree head, what its checkpoints sign."""
        return self.tree


GENESIS_HEAD = AuditHead(seq=0, hash=GENESIS, recorded_at=None)  # a new table's chain, before its first record


class TableLock(msgspec.Struct, frozen=True, kw_only=True):
    """What a transaction holding a table row's lock knows of it: the chain head and whether it has closed."""

    head: AuditHead
    closed: bool
    checkpoint_size: int = 0  # the tree size of the table's latest signed checkpoint (0: none yet)


_HEAD_COLUMNS = ("audit_seq", "audit_hash", "audit_at", "audit_tree", "status")


def head_columns(prefix: str = "") -> str:
    """The game_tables columns a TableLock is read from, for a SELECT list (`prefix` an alias such as "t.")."""
    table = prefix or "game_tables."
    latest = (
        "(SELECT coalesce(max(c.tree_size), 0) FROM audit_checkpoints c"  # noqa: S608 - our own alias
        f" WHERE c.table_id = {table}table_id) AS checkpoint_size"
    )
    return ", ".join([*(prefix + column for column in _HEAD_COLUMNS), latest])


def table_lock_of(record: asyncpg.Record) -> TableLock:
    """The lock's view from a row selected with head_columns()."""
    return TableLock(
        head=head_of(record), closed=record["status"] == "closed", checkpoint_size=record["checkpoint_size"]
    )


def head_of(record: asyncpg.Record) -> AuditHead:
    """A chain's head from its row's audit_seq, audit_hash, audit_at and audit_tree columns."""
    tree = tree_of(record["audit_seq"], record["audit_tree"])
    return AuditHead(seq=record["audit_seq"], hash=record["audit_hash"], recorded_at=record["audit_at"], tree=tree)


def tree_of(size: int, data: bytes) -> CompactRange:
    """A stored tree head back: its hashes are stored concatenated, largest subtree first."""
    hashes = tuple(data[i : i + HASH_SIZE] for i in range(0, len(data), HASH_SIZE))
    return CompactRange(size=size, hashes=hashes)


def tree_bytes(tree: CompactRange) -> bytes:
    return b"".join(tree.hashes)


def append(
    chain_id: UUID, head: AuditHead, events: Sequence[AnyEvent], *, test: bool, now: datetime
) -> tuple[list[Statement], AuditHead]:
    """The one write that appends events to an audit chain (a table's, an In Between game's or the system's), and the
    head after them. The caller holds the row the chain's head lives in, which keeps seq gap-free until commit."""
    if not events:
        return [], head
    # Never before the previous record: clocks of two replicas (or one clock read before a lock wait) may disagree.
    stamp = now if head.recorded_at is None else max(now, head.recorded_at)
    chain = str(chain_id)
    schema = SYSTEM_SCHEMA if chain == SYSTEM_CHAIN_ID else SCHEMA
    records = [
        Record(schema=schema, table_id=chain, seq=head.seq + i + 1, recorded_at=stamp, test=test, event=event)
        for i, event in enumerate(events)
    ]
    links = extend(head.hash, records)
    round_ids = [_uuid(getattr(e, "round_id", None)) for e in events]  # Red Dog's records name their round and bet
    firsts = batch_starts(round_ids)
    records_of = (
        [kind_of(e) for e in events],
        [getattr(e, "bet_id", None) for e in events],
        [link.hash for link in links],
        [link.body for link in links],
    )
    if len(firsts) == 1:  # most appends: one round's records, one row
        first = links[0]
        insert = Statement(
            sql=_INSERT_ONE, args=(chain_id, stamp, test, first.seq, round_ids[0], first.prev_hash, *records_of)
        )
    else:
        batches = (
            [links[i].seq for i in firsts],
            [i + 1 for i in firsts],
            [end - start for start, end in itertools.pairwise([*firsts, len(links)])],
            [round_ids[i] for i in firsts],
            [links[i].prev_hash for i in firsts],
        )
        insert = Statement(sql=_INSERT_MANY, args=(chain_id, stamp, test, *batches, *records_of))
    tree = head.tree.extend(link.hash for link in links)
    new_head = AuditHead(seq=links[-1].seq, hash=links[-1].hash, recorded_at=stamp, tree=tree)
    return [insert], new_head


BATCH_MOST = 64  # records in one audit_batches row (its CHECK): a record's row starts within 64 seqs before it
_COLUMNS = "table_id, first_seq, prev_hash, recorded_at, round_id, test, kinds, bet_ids, hashes, bodies"
_INSERT = f"INSERT INTO audit_batches ({_COLUMNS}) "
# One batch's values as scalars: asyncpg encodes an array argument at about 18,000 instructions however short it
# is (make bench-instructions), and the batches' five arrays of one element were 2.7% of a request's.
_INSERT_ONE = _INSERT + "VALUES ($1, $4, $6, $2, $5, $3, $7::text[], $8::text[], $9::bytea[], $10::bytea[])"
# Each batch a slice of the records' arrays: `at` the position (from 1) of its first record, `count` its records
# (migration 024).
_INSERT_MANY = (
    _INSERT + "SELECT $1, b.first_seq, b.prev_hash, $2, b.round_id, $3,"  # noqa: S608 - our own constants
    " ($9::text[])[b.at : b.at + b.count - 1], ($10::text[])[b.at : b.at + b.count - 1],"
    " ($11::bytea[])[b.at : b.at + b.count - 1], ($12::bytea[])[b.at : b.at + b.count - 1]"
    " FROM unnest($4::bigint[], $5::integer[], $6::integer[], $7::uuid[], $8::bytea[])"
    "  AS b(first_seq, at, count, round_id, prev_hash)"
)


def seqs_between(after: str, *, below: str | None = None, upto: str | None = None) -> str:
    """The audit_log condition that bounds the stored rows of the records after seq `after` (and below `below` or up
    to `upto`), SQL expressions all: a record's batch_seq is at most its seq and within BATCH_MOST of it, which lets
    PostgreSQL find the rows by their primary keys instead of unpacking every row of the chain."""
    bounds = [f"batch_seq > {after} - {BATCH_MOST}"]
    bounds += [] if below is None else [f"batch_seq < {below}"]
    bounds += [] if upto is None else [f"batch_seq <= {upto}"]
    return " AND ".join(bounds)


def batch_starts(round_ids: Sequence[UUID | None]) -> list[int]:
    """Where each batch of an append begins: a batch is a run of records naming the same round (or none), at most
    BATCH_MOST long, so a batch's round is one column and a reader can bound the row of any seq."""
    starts: list[int] = []
    for i, round_id in enumerate(round_ids):
        if not starts or round_id != round_ids[i - 1] or i - starts[-1] == BATCH_MOST:
            starts.append(i)
    return starts


def kind_of(event: AnyEvent) -> str:
    """The event's tag: its record kind (every game's and the system's events are tagged alike)."""
    tag = type(event).__struct_config__.tag
    assert isinstance(tag, str)
    return tag


@functools.lru_cache(maxsize=256)
def _uuid(value: str | None) -> UUID | None:
    """Parsed once per id: an append names its round in most of its records."""
    return None if value is None else UUID(value)


async def select_chain(conn: Conn, table_id: UUID) -> list[Link]:
    records = await conn.fetch(
        "SELECT seq, prev_hash, hash, body FROM audit_log WHERE table_id = $1 ORDER BY seq", table_id
    )
    return [Link(seq=r["seq"], prev_hash=r["prev_hash"], hash=r["hash"], body=r["body"]) for r in records]


async def select_round_records(conn: Conn, round_id: UUID) -> list[bytes]:
    records = await conn.fetch("SELECT body FROM audit_log WHERE round_id = $1 ORDER BY table_id, seq", round_id)
    return [r["body"] for r in records]
