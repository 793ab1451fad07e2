"""Verify an audit export offline: every chain from seq 1, every hash, the columns against the body, every checkpoint.

Each table's chain is checked as its lines stream past, so memory stays small whatever the export's size. The first
broken record of each chain is named with what broke it (changed, missing, reordered, inserted, truncated); checks
that do not depend on the order (columns, checkpoints, the head) go on after a break.
"""

from __future__ import annotations

import enum
import hashlib
import re
from collections.abc import Iterable
from datetime import datetime

import msgspec

from audit.chain import GENESIS, Envelope, envelope
from audit.checkpoint import Checkpoint, parse_checkpoint_text
from audit.export_format import (
    BadLine,
    CheckpointLine,
    ExportEnd,
    ExportHeader,
    HashLine,
    Line,
    RecordLine,
    TableHead,
    body_bytes,
)
from audit.merkle import CompactRange
from audit.signed_note import NoteError, Verifier, open_note, parse_note

GENESIS_HEX = GENESIS.hex()
# The one timestamp spelling of a schema-2 body: UTC, `Z`, six fractional digits only when they are not all zero.
TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.(?!0{6})\d{6})?Z")
_sha256 = hashlib.sha256


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


class TableSummary(msgspec.Struct, frozen=True, kw_only=True):
    table_id: str
    records: int  # full records checked
    hashes_only: int  # records before `--since`, present as their hash
    last_seq: int
    head_seq: int | None
    checkpoints: int
    checkpoints_matched: int
    first_broken: Fault | None


class VerifyReport(msgspec.Struct, frozen=True, kw_only=True):
    ok: bool
    records: int
    tables: list[TableSummary]
    faults: list[Fault]
    checkpoints: int
    checkpoints_matched: int
    signatures_checked: bool  # False: no public key was given, so signatures were not checked


class _Pending(msgspec.Struct, frozen=True, kw_only=True):
    size: int
    root: bytes
    source: str  # "export" or the kept file it came from


class _Chain:
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
        "head_line",
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
        self.count = 0  # lines of the chain seen (records and hashes): the next seq is count + 1
        self.head, self.head_bytes, self.back = GENESIS_HEX, GENESIS, ""
        self.broken: Fault | None = None
        self.after_break: set[int] = set()  # seqs seen after the break: tells missing from reordered
        self.faults: list[Fault] = []
        self.records = self.hashes_only = 0
        self.last_time: datetime | None = None
        self.head_line: TableHead | None = None
        self.pending: list[_Pending] = []  # checkpoints not yet reached, smallest size first
        self.batch: list[bytes] = []  # leaves since the compact range was last extended
        self.range = CompactRange()
        self.checkpoints = self.matched = self.matched_size = 0

    def fault(self, kind: FaultKind, seq: int | None, detail: str) -> None:
        self.faults.append(Fault(kind=kind, table_id=self.table_id, seq=seq, detail=detail))

    def break_at(self, kind: FaultKind, seq: int, detail: str) -> None:
        self.broken = Fault(kind=kind, table_id=self.table_id, seq=seq, detail=detail)
        self.faults.append(self.broken)

    def add_leaf(self, digest: bytes) -> None:
        self.count += 1
        if self.pending:
            self.batch.append(digest)
            if self.count == self.pending[0].size:
                self.range = self.range.extend(self.batch)
                self.batch = []
                while self.pending and self.pending[0].size == self.count:
                    self.check_root(self.pending.pop(0))

    def check_root(self, checkpoint: _Pending) -> None:
        if self.range.root() == checkpoint.root:
            self.matched += 1
            self.matched_size = max(self.matched_size, checkpoint.size)
            return
        low = self.matched_size + 1
        self.fault(
            FaultKind.CHANGED,
            low,
            f"records 1..{checkpoint.size} differ from what the checkpoint of size {checkpoint.size} signed "
            f"({checkpoint.source}): the first changed record is among seq {low}..{checkpoint.size}",
        )

    def expect_checkpoint(self, checkpoint: Checkpoint, source: str) -> None:
        self.checkpoints += 1
        pending = _Pending(size=checkpoint.size, root=checkpoint.root, source=source)
        if 0 < checkpoint.size <= self.count:
            self.fault(
                FaultKind.MALFORMED,
                None,
                f"the checkpoint of size {checkpoint.size} comes after the records it covers; it was not checked",
            )
            return
        if checkpoint.size == 0:
            self.check_root(pending)
            return
        self.pending.append(pending)
        self.pending.sort(key=lambda p: p.size)


class ExportVerifier:
    """Feed it an export's lines (and any kept checkpoints first); `report()` says what holds and what broke."""

    def __init__(self, verifier: Verifier | None = None) -> None:
        self.verifier = verifier
        self.chains: dict[str, _Chain] = {}
        self.faults: list[Fault] = []
        self.header: ExportHeader | None = None
        self.end: ExportEnd | None = None
        self.records = 0

    def chain(self, table_id: str) -> _Chain:
        found = self.chains.get(table_id)
        if found is None:
            found = self.chains[table_id] = _Chain(table_id)
        return found

    def feed(self, lines: Iterable[Line | BadLine]) -> None:
        record = self.record
        for line in lines:
            if type(line) is RecordLine:  # by far the most lines: checked first, without a match
                record(line)
            else:
                self.other(line)

    def other(self, line: Line | BadLine) -> None:
        match line:
            case HashLine():
                self.hash_line(line)
            case TableHead():
                self.chain(line.table_id).head_line = line
            case CheckpointLine():
                self.checkpoint(line.table_id, line.size, line.note, "export")
            case ExportHeader():
                self.header = line
            case ExportEnd():
                self.end = line
            case BadLine(number=number, error=error):
                self.faults.append(
                    Fault(kind=FaultKind.MALFORMED, table_id=None, seq=None, detail=f"line {number}: {error}")
                )
            case RecordLine():
                self.record(line)

    def keep(self, table_id: str, size: int, note: str, source: str) -> None:
        """A checkpoint the auditor kept from before (an earlier export): the chain must still match it."""
        self.checkpoint(table_id, size, note, source)

    def checkpoint(self, table_id: str, size: int, note: str, source: str) -> None:
        chain = self.chain(table_id)
        opened = self._open(note, table_id)
        if isinstance(opened, str):
            chain.fault(FaultKind.CHECKPOINT, None, f"the checkpoint of size {size} ({source}): {opened}")
        elif opened.size != size:
            chain.fault(FaultKind.CHECKPOINT, None, f"a checkpoint line says size {size}, its note {opened.size}")
        else:
            chain.expect_checkpoint(opened, source)

    def _open(self, note: str, table_id: str) -> Checkpoint | str:
        """The checkpoint in a note, its signature checked when there is a key; else why it was refused."""
        try:
            text = parse_note(note)[0] if self.verifier is None else open_note(note, self.verifier)
            checkpoint = parse_checkpoint_text(text)
        except NoteError as exc:
            return f"{type(exc).__name__}: {exc}"
        if not checkpoint.origin.endswith("/" + table_id):
            return f"it is of the log {checkpoint.origin!r}, not of table {table_id}"
        return checkpoint

    def hash_line(self, line: HashLine) -> None:
        chain = self.chain(line.table_id)
        chain.hashes_only += 1
        if chain.broken is None and line.seq != chain.count + 1:
            self._seq_fault(chain, line.seq)
        elif chain.broken is not None:
            chain.after_break.add(line.seq)
        try:
            digest = bytes.fromhex(line.hash)
        except ValueError:
            digest = b""
        chain.back, chain.head, chain.head_bytes = chain.head, line.hash, digest
        chain.add_leaf(digest)

    def record(self, line: RecordLine) -> None:
        self.records += 1
        chain = self.chains.get(line.table_id) or self.chain(line.table_id)
        chain.records += 1
        seq = line.seq
        if chain.broken is not None or seq != chain.count + 1:
            if chain.broken is None:
                self._seq_fault(chain, seq)
            chain.after_break.add(seq)
            chain.add_leaf(_bytes_of(line.hash) or b"")  # what the log claims, for the checkpoints
            self._columns(chain, line, body_bytes(line), None)
            return
        data = bytes(line.body) if line.encoding == "json" else body_bytes(line)
        prev = line.prev_hash
        if prev == chain.head:
            digest = _sha256(chain.head_bytes + data).digest()
        else:
            digest = _sha256((_bytes_of(prev) or b"") + data).digest()
        if digest.hex() != line.hash:
            chain.break_at(FaultKind.CHANGED, seq, f"seq {seq}: its body no longer hashes to its hash (changed)")
        else:
            body = self._body(chain, line, data)
            if body is not None and prev != chain.head:
                self._link_fault(chain, line)
        chain.back, chain.head, chain.head_bytes = chain.head, line.hash, digest
        chain.add_leaf(digest)

    def _body(self, chain: _Chain, line: RecordLine, data: bytes) -> Envelope | None:
        """The body's envelope, its seq and table checked against the line; None once that broke the chain."""
        seq = line.seq
        try:
            body = envelope(data)
        except (msgspec.DecodeError, UnicodeDecodeError) as exc:
            chain.break_at(FaultKind.CHANGED, seq, f"seq {seq}: the body is not an audit record ({exc})")
            return None
        if body.seq != seq:
            kind, what = (
                (FaultKind.MISSING, "records before it were removed and the rest renumbered")
                if body.seq > seq
                else (FaultKind.INSERTED, "records were inserted before it and the rest renumbered")
            )
            chain.break_at(kind, seq, f"seq {seq}: the body says seq {body.seq}: {what}")
            return None
        if body.table_id != chain.table_id:
            chain.break_at(FaultKind.INSERTED, seq, f"seq {seq}: the body is a record of table {body.table_id}")
            return None
        self._columns(chain, line, data, body)
        return body

    def _link_fault(self, chain: _Chain, line: RecordLine) -> None:
        seq = line.seq
        if line.prev_hash == chain.back:
            chain.break_at(FaultKind.INSERTED, seq - 1, f"seq {seq} links to seq {seq - 2}: seq {seq - 1} was inserted")
        elif seq == 1:
            chain.break_at(FaultKind.CHANGED, 1, "seq 1 does not start from the genesis hash (32 zero bytes)")
        else:
            chain.break_at(
                FaultKind.CHANGED,
                seq - 1,
                f"seq {seq} links to another record than seq {seq - 1}: seq {seq - 1} was changed and re-hashed",
            )

    def _seq_fault(self, chain: _Chain, seq: int) -> None:
        expected = chain.count + 1
        if seq > expected:
            chain.break_at(
                FaultKind.MISSING, expected, f"seq {expected} is missing: seq {seq} follows seq {expected - 1}"
            )
        else:
            chain.break_at(
                FaultKind.INSERTED if seq == expected - 1 else FaultKind.REORDERED,
                seq,
                f"seq {seq} comes again after seq {expected - 1}",
            )

    def _columns(self, chain: _Chain, line: RecordLine, data: bytes, body: Envelope | None) -> None:
        """The stored columns against the body: an index that lies about a record is a fault of its own."""
        if body is None:
            try:
                body = envelope(data)
            except (msgspec.DecodeError, UnicodeDecodeError):
                return
        keys = body.keys
        if keys.kind != line.kind or keys.round_id != line.round_id or keys.bet_id != line.bet_id:
            for name, column, value in (
                ("kind", line.kind, keys.kind),
                ("round_id", line.round_id, keys.round_id),
                ("bet_id", line.bet_id, keys.bet_id),
            ):
                if column != value:
                    chain.fault(
                        FaultKind.COLUMN,
                        line.seq,
                        f"seq {line.seq}: column {name} is {column!r}, the body says {value!r}",
                    )
        if body.test != line.test:
            chain.fault(
                FaultKind.COLUMN, line.seq, f"seq {line.seq}: column test is {line.test}, the body says {body.test}"
            )
        self._time(chain, line, body)

    def _time(self, chain: _Chain, line: RecordLine, body: Envelope) -> None:
        seq = line.seq
        try:
            stamp = datetime.fromisoformat(body.recorded_at)
        except ValueError:
            chain.fault(FaultKind.CHANGED, seq, f"seq {seq}: recorded_at {body.recorded_at!r} is not a time")
            return
        if stamp != line.recorded_at:
            chain.fault(
                FaultKind.COLUMN,
                seq,
                f"seq {seq}: column recorded_at is {line.recorded_at.isoformat()}, the body says {body.recorded_at}",
            )
        if body.schema >= 2:
            if TIMESTAMP.fullmatch(body.recorded_at) is None:
                chain.fault(FaultKind.CHANGED, seq, f"seq {seq}: recorded_at {body.recorded_at!r} is not canonical")
            if chain.last_time is not None and stamp < chain.last_time:
                chain.fault(FaultKind.CHANGED, seq, f"seq {seq}: recorded_at goes backwards along the chain")
            chain.last_time = stamp

    def report(self) -> VerifyReport:
        """Close every chain (the head, checkpoints not reached, the file's end) and say what was found."""
        faults = list(self.faults)
        tables = [self._close(chain) for chain in self.chains.values()]
        for chain in self.chains.values():
            faults.extend(chain.faults)
        faults.extend(self._file_faults())
        checkpoints = sum(c.checkpoints for c in self.chains.values())
        matched = sum(c.matched for c in self.chains.values())
        return VerifyReport(
            ok=not faults,
            records=self.records,
            tables=tables,
            faults=faults,
            checkpoints=checkpoints,
            checkpoints_matched=matched,
            signatures_checked=self.verifier is not None,
        )

    def _close(self, chain: _Chain) -> TableSummary:
        _reclassify(chain)
        last = chain.count
        head = chain.head_line
        if head is not None:
            if last < head.seq:
                chain.fault(
                    FaultKind.TRUNCATED, last + 1, f"the chain ends at seq {last}; the table's head is seq {head.seq}"
                )
            elif last > head.seq:
                chain.fault(
                    FaultKind.INSERTED, head.seq + 1, f"the chain runs to seq {last}, past its head seq {head.seq}"
                )
            elif chain.head != head.hash:
                chain.fault(FaultKind.CHANGED, last, f"seq {last}'s hash is not the table's head hash")
        for pending in chain.pending:
            chain.fault(
                FaultKind.TRUNCATED,
                last + 1,
                f"the checkpoint of size {pending.size} ({pending.source}) signed {pending.size} records; "
                f"the chain holds {last}",
            )
        chain.pending = []
        first = chain.broken or min(chain.faults, key=lambda f: f.seq or 0, default=None)
        return TableSummary(
            table_id=chain.table_id,
            records=chain.records,
            hashes_only=chain.hashes_only,
            last_seq=last,
            head_seq=None if head is None else head.seq,
            checkpoints=chain.checkpoints,
            checkpoints_matched=chain.matched,
            first_broken=first,
        )

    def _file_faults(self) -> list[Fault]:
        if self.header is None:
            return []  # API pages carry no header and no end
        if self.end is None:
            return [
                Fault(kind=FaultKind.MALFORMED, table_id=None, seq=None, detail="the file has no end line: cut short")
            ]
        found = (len(self.chains), self.records, sum(c.hashes_only for c in self.chains.values()))
        if (self.end.tables, self.end.records, self.end.hashes) != found:
            detail = (
                f"the end line counts {self.end.tables} tables, {self.end.records} records and {self.end.hashes} "
                f"hashes; the file holds {found[0]}, {found[1]} and {found[2]}"
            )
            return [Fault(kind=FaultKind.MALFORMED, table_id=None, seq=None, detail=detail)]
        return []


def _reclassify(chain: _Chain) -> None:
    """A seq that seemed missing but came later in the export was reordered, not missing."""
    broken = chain.broken
    if broken is None or broken.kind is not FaultKind.MISSING or broken.seq is None:
        return
    if broken.seq in chain.after_break and "follows" in broken.detail:
        moved = msgspec.structs.replace(
            broken, kind=FaultKind.REORDERED, detail=f"seq {broken.seq} comes later in the export: {broken.detail}"
        )
        chain.faults[chain.faults.index(broken)] = moved
        chain.broken = moved


def _bytes_of(text: str) -> bytes | None:
    try:
        return bytes.fromhex(text)
    except ValueError:
        return None


def verify_lines(lines: Iterable[Line | BadLine], verifier: Verifier | None = None) -> VerifyReport:
    """The whole check over an export's lines."""
    checker = ExportVerifier(verifier)
    checker.feed(lines)
    return checker.report()
