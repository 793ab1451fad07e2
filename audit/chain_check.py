"""One table's chain checked as its records stream past: which record broke it first and how, its columns, and the
Merkle roots its checkpoints signed (a compact range, so memory stays flat however long the chain).

Generic over the game, like `audit/chain.py`: a record is read through its envelope only.
"""

from __future__ import annotations

import enum
import hashlib
import re
from datetime import datetime
from typing import Protocol

import msgspec

from audit.chain import GENESIS, Envelope
from audit.merkle import CompactRange

GENESIS_HEX = GENESIS.hex()
# The one timestamp spelling of a schema-2 body: UTC, `Z`, six fractional digits only when they are not all zero.
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.(?!0{6})\d{6})?Z")
_sha256 = hashlib.sha256


FLUSH_EVERY = 4096  # leaves hashed into the tree together: few calls, bounded memory


class FaultKind(enum.StrEnum):
    CHANGED = "changed"  # a record's bytes, hash or link differ from what was chained (or signed)
    MISSING = "missing"  # a record is absent
    REORDERED = "reordered"  # records are out of seq order
    INSERTED = "inserted"  # a record that was never chained sits in the chain
    TRUNCATED = "truncated"  # the chain ends before its head or a checkpoint says it does
    COLUMN = "column"  # a stored column (kind, round_id, bet_id, recorded_at, test) disagrees with the body
    CHECKPOINT = "checkpoint"  # a checkpoint that is malformed, of another log, or whose signature does not verify
    MALFORMED = "malformed"  # the file itself: a line that is not an export line, a missing end


class Fault(msgspec.Struct, frozen=True, kw_only=True):
    kind: FaultKind
    table_id: str | None
    seq: int | None
    detail: str


class Columns(Protocol):
    """What a record line holds beside its body: the audit_log columns."""

    @property
    def seq(self) -> int: ...
    @property
    def prev_hash(self) -> str: ...
    @property
    def hash(self) -> str: ...
    @property
    def recorded_at(self) -> datetime: ...
    @property
    def kind(self) -> str: ...
    @property
    def round_id(self) -> str | None: ...
    @property
    def bet_id(self) -> str | None: ...
    @property
    def test(self) -> bool: ...


class Pending(msgspec.Struct, frozen=True, kw_only=True):
    size: int
    root: bytes
    source: str  # "export", or the kept file it came from


class ChainCheck:
    """One table's chain while its lines stream past."""

    __slots__ = (
        "after_break",
        "back",
        "batch",
        "broken",
        "checkpoints",
        "count",
        "faults",
        "hashes_only",
        "head",
        "head_bytes",
        "last_text",
        "last_time",
        "matched",
        "matched_size",
        "pending",
        "range",
        "records",
        "table_id",
    )

    def __init__(self, table_id: str) -> None:
        self.table_id = table_id
        self.count = 0  # records and hashes seen: the next seq is count + 1
        self.head, self.head_bytes, self.back = GENESIS_HEX, GENESIS, ""  # the last two hashes (hex), the last raw
        self.broken: Fault | None = None
        self.after_break: set[int] = set()  # seqs seen after the break: tells missing from reordered
        self.faults: list[Fault] = []
        self.records = self.hashes_only = 0
        self.last_time: datetime | None = None
        self.last_text = ""  # the last body's recorded_at, as written: most records share their neighbour's
        self.pending: list[Pending] = []  # checkpoints not yet reached, smallest size first
        self.batch: list[bytes] = []  # leaves since the compact range was last extended
        self.range = CompactRange()
        self.checkpoints = self.matched = self.matched_size = 0

    def fault(self, kind: FaultKind, seq: int | None, detail: str) -> None:
        self.faults.append(Fault(kind=kind, table_id=self.table_id, seq=seq, detail=detail))

    def break_at(self, kind: FaultKind, seq: int, detail: str) -> None:
        self.broken = Fault(kind=kind, table_id=self.table_id, seq=seq, detail=detail)
        self.faults.append(self.broken)

    def record(self, line: Columns, body: bytes, env: Envelope | None) -> None:
        """One record: its seq, its link, its hash, its body and columns (`env` is the body decoded, if it was)."""
        self.records += 1
        seq = line.seq
        if self.broken is not None or seq != self.count + 1:
            if self.broken is None:
                self._seq_fault(seq)
            self.after_break.add(seq)
            self._leaf(_raw(line.hash))  # what the log claims, for the checkpoints
            self.columns(line, env or _envelope(body))
            return
        prev = line.prev_hash
        linked = prev == self.head
        digest = _sha256((self.head_bytes if linked else _raw(prev)) + body).digest()
        if digest.hex() != line.hash:
            self.break_at(FaultKind.CHANGED, seq, f"seq {seq}: its body no longer hashes to its hash (changed)")
        elif linked and env is not None and self._usual(line, env):
            pass  # the usual record: every check of `_body` passed at once
        elif self._body(line, env or _envelope(body)) and not linked:  # anything else goes the whole way
            self._link_fault(line)
        self.back, self.head, self.head_bytes = self.head, line.hash, digest
        # `_leaf`, inlined for the usual leaf: one that neither reaches a waiting checkpoint nor fills the batch
        count, batch, pending = self.count + 1, self.batch, self.pending
        if (pending and count == pending[0].size) or len(batch) + 1 >= FLUSH_EVERY:
            self._leaf(digest)
        else:
            self.count = count
            batch.append(digest)

    def _usual(self, line: Columns, env: Envelope) -> bool:
        """A schema-2 record of this chain at this seq whose columns repeat its body and whose time is its
        predecessor's (one transaction's records): what `_body` finds without a fault, checked in one expression.
        False says only "not the usual case", never "a fault": the caller then runs the whole check."""
        event = env.event
        return (
            event is not None
            and env.schema >= 2
            and env.seq == line.seq
            and env.table_id == self.table_id
            and env.recorded_at == self.last_text
            and line.recorded_at == self.last_time
            and event.kind == line.kind
            and event.round_id == line.round_id
            and event.bet_id == line.bet_id
            and env.test == line.test
        )

    def hash_only(self, seq: int, digest_hex: str) -> None:
        """A record present as its hash alone (before an export's `--since`)."""
        self.hashes_only += 1
        if self.broken is None and seq != self.count + 1:
            self._seq_fault(seq)
        elif self.broken is not None:
            self.after_break.add(seq)
        digest = _raw(digest_hex)
        self.back, self.head, self.head_bytes = self.head, digest_hex, digest
        self._leaf(digest)

    def _body(self, line: Columns, body: Envelope | None) -> bool:
        """The body is a record of this chain at this seq (else the chain breaks here); its columns are checked."""
        seq = line.seq
        if body is None:
            self.break_at(FaultKind.CHANGED, seq, f"seq {seq}: the body is not an audit record")
            return False
        if body.seq != seq:
            kind, what = (
                (FaultKind.MISSING, "records before it were removed and the rest renumbered")
                if body.seq > seq
                else (FaultKind.INSERTED, "records were inserted before it and the rest renumbered")
            )
            self.break_at(kind, seq, f"seq {seq}: the body says seq {body.seq}: {what}")
            return False
        if body.table_id != self.table_id:
            self.break_at(FaultKind.INSERTED, seq, f"seq {seq}: the body is a record of table {body.table_id}")
            return False
        self.columns(line, body)
        return True

    def _link_fault(self, line: Columns) -> None:
        seq = line.seq
        if line.prev_hash == self.back:
            self.break_at(FaultKind.INSERTED, seq - 1, f"seq {seq} links to seq {seq - 2}: seq {seq - 1} was inserted")
        elif seq == 1:
            self.break_at(FaultKind.CHANGED, 1, "seq 1 does not start from the genesis hash (32 zero bytes)")
        else:
            detail = f"seq {seq} links to another record than seq {seq - 1}: seq {seq - 1} was changed and re-hashed"
            self.break_at(FaultKind.CHANGED, seq - 1, detail)

    def _seq_fault(self, seq: int) -> None:
        expected = self.count + 1
        if seq > expected:
            self.break_at(FaultKind.MISSING, expected, f"seq {expected} is missing: seq {seq} follows {expected - 1}")
        else:
            kind = FaultKind.INSERTED if seq == expected - 1 else FaultKind.REORDERED
            self.break_at(kind, seq, f"seq {seq} comes again after seq {expected - 1}")

    def columns(self, line: Columns, body: Envelope | None) -> None:
        """The stored columns against the body: an index that lies about a record is a fault of its own."""
        if body is None:
            return
        keys = body.keys
        seq = line.seq
        if keys.kind != line.kind or keys.round_id != line.round_id or keys.bet_id != line.bet_id:
            for name, column, value in (
                ("kind", line.kind, keys.kind),
                ("round_id", line.round_id, keys.round_id),
                ("bet_id", line.bet_id, keys.bet_id),
            ):
                if column != value:
                    self.fault(
                        FaultKind.COLUMN, seq, f"seq {seq}: column {name} is {column!r}, the body says {value!r}"
                    )
        if body.test != line.test:
            self.fault(FaultKind.COLUMN, seq, f"seq {seq}: column test is {line.test}, the body says {body.test}")
        self._time(line, body)

    def _time(self, line: Columns, body: Envelope) -> None:
        seq, text = line.seq, body.recorded_at
        if text == self.last_text and body.schema >= 2:  # one transaction's records: checked once already
            if line.recorded_at != self.last_time:
                self.fault(
                    FaultKind.COLUMN, seq, f"seq {seq}: column recorded_at is {line.recorded_at}, the body says {text}"
                )
            return
        try:
            stamp = datetime.fromisoformat(text)
        except ValueError:
            self.fault(FaultKind.CHANGED, seq, f"seq {seq}: recorded_at {text!r} is not a time")
            return
        if stamp != line.recorded_at:
            column = line.recorded_at.isoformat()
            self.fault(FaultKind.COLUMN, seq, f"seq {seq}: column recorded_at is {column}, the body says {text}")
        if body.schema >= 2:
            if TIMESTAMP.fullmatch(text) is None:
                self.fault(FaultKind.CHANGED, seq, f"seq {seq}: recorded_at {text!r} is not canonical")
            if self.last_time is not None and stamp < self.last_time:
                self.fault(FaultKind.CHANGED, seq, f"seq {seq}: recorded_at goes backwards along the chain")
            self.last_time, self.last_text = stamp, text

    def _leaf(self, digest: bytes) -> None:
        # Every leaf goes into the tree, whether or not a checkpoint is waiting yet: a paged read (the API) brings a
        # table's later checkpoints only with later pages, after records they cover have gone by.
        self.count += 1
        self.batch.append(digest)
        if self.pending and self.count == self.pending[0].size:
            self._flush()
            while self.pending and self.pending[0].size == self.count:
                self._check_root(self.pending.pop(0))
        elif len(self.batch) >= FLUSH_EVERY:
            self._flush()

    def _flush(self) -> None:
        self.range = extend(self.range, self.batch)
        self.batch = []

    def expect(self, size: int, root: bytes, source: str) -> None:
        """A checkpoint the chain must match at `size`: checked when the chain gets there."""
        self.checkpoints += 1
        pending = Pending(size=size, root=root, source=source)
        if 0 < size <= self.count:
            detail = f"the checkpoint of size {size} comes after the records it covers; it was not checked"
            self.fault(FaultKind.MALFORMED, None, detail)
        elif size == 0:
            self._check_root(pending)
        else:
            self.pending.append(pending)
            self.pending.sort(key=lambda p: p.size)

    def _check_root(self, checkpoint: Pending) -> None:
        if self.range.root() == checkpoint.root:
            self.matched += 1
            self.matched_size = max(self.matched_size, checkpoint.size)
            return
        low, size = self.matched_size + 1, checkpoint.size
        self.fault(
            FaultKind.CHANGED,
            low,
            f"records 1..{size} differ from what the checkpoint of size {size} signed ({checkpoint.source}): "
            f"the first changed record is among seq {low}..{size}",
        )

    def close(self, head_seq: int | None, head_hash: str | None) -> Fault | None:
        """The chain's end against its head and the checkpoints it never reached; its first broken record."""
        self._reclassify()
        last = self.count
        if head_seq is not None:
            if last < head_seq:
                self.fault(FaultKind.TRUNCATED, last + 1, f"the chain ends at seq {last}; its head is seq {head_seq}")
            elif last > head_seq:
                self.fault(FaultKind.INSERTED, head_seq + 1, f"the chain runs to seq {last}, past its head {head_seq}")
            elif self.head != head_hash:
                self.fault(FaultKind.CHANGED, last, f"seq {last}'s hash is not the table's head hash")
        if self.pending:
            # Missing, not changed: the records it holds matched every checkpoint they reached (a restore to an
            # earlier time, or a failover that lost a tail, leaves exactly this). One fault names the whole tail.
            sizes, sources = [p.size for p in self.pending], sorted({p.source for p in self.pending})
            signed = (
                f"the checkpoint of size {sizes[0]}"
                if len(sizes) == 1
                else f"{len(sizes)} checkpoints of sizes {sizes[0]}..{sizes[-1]}"
            )
            self.fault(
                FaultKind.TRUNCATED,
                last + 1,
                f"records {last + 1}..{sizes[-1]} are missing: {signed} ({', '.join(sources)}) signed them; "
                f"the chain holds {last}",
            )
        self.pending = []
        return self.broken or min(self.faults, key=lambda f: f.seq or 0, default=None)

    def _reclassify(self) -> None:
        """A seq that seemed missing but came later in the export was reordered, not missing."""
        broken = self.broken
        if broken is None or broken.kind is not FaultKind.MISSING or broken.seq is None:
            return
        if broken.seq in self.after_break and "follows" in broken.detail:
            moved = msgspec.structs.replace(
                broken, kind=FaultKind.REORDERED, detail=f"seq {broken.seq} comes later in the export: {broken.detail}"
            )
            self.faults[self.faults.index(broken)] = moved
            self.broken = moved


def extend(head: CompactRange, leaves: list[bytes]) -> CompactRange:
    """`head.extend(leaves)` (RFC 6962 leaf and node hashes, merging equal neighbours like a binary counter's
    carries) with the hash calls inlined: a third of what verify spends per record otherwise."""
    hashes, size, sha = list(head.hashes), head.size, _sha256
    for data in leaves:
        digest, carry = sha(b"\x00" + data).digest(), size
        while carry & 1:
            digest = sha(b"\x01" + hashes.pop() + digest).digest()
            carry >>= 1
        hashes.append(digest)
        size += 1
    return CompactRange(size=size, hashes=tuple(hashes))


def _raw(text: str) -> bytes:
    """A hex hash's bytes; an unreadable one as no bytes (it then matches nothing)."""
    try:
        return bytes.fromhex(text)
    except ValueError:
        return b""


_decode_envelope = msgspec.json.Decoder(Envelope).decode


def _envelope(body: bytes) -> Envelope | None:
    try:
        return _decode_envelope(body)
    except (msgspec.DecodeError, UnicodeDecodeError):
        return None
