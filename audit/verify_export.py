"""Verify an audit export offline: every chain from seq 1, every hash, the columns against the body, every checkpoint.

Each table's chain is checked as its lines stream past (`audit/chain_check.py`), so memory stays small whatever the
export's size. The first broken record of each chain is named with what broke it (changed, missing, reordered,
inserted, truncated); checks that do not depend on the order (columns, checkpoints, the head) go on after a break.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import NamedTuple

import msgspec

from audit.chain import Envelope, Link, envelope
from audit.chain_check import ChainCheck, Fault, FaultKind
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
    decode_line,
)
from audit.export_order import ExportOrder
from audit.signed_note import NoteError, Verifier, open_note, parse_note

__all__ = ["ExportVerifier", "Fault", "FaultKind", "TableSummary", "VerifyReport", "verify_lines", "verify_links"]


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


class _EnvelopeLine(msgspec.Struct, frozen=True, kw_only=True, tag="record", tag_field="type"):
    """A record line read in one pass with its body as an envelope; the body's bytes are cut from the line."""

    table_id: str
    seq: int
    prev_hash: str
    hash: str
    recorded_at: datetime
    kind: str
    round_id: str | None
    bet_id: str | None
    test: bool
    encoding: str
    body: Envelope


class _LinkColumns(msgspec.Struct, frozen=True, kw_only=True):
    """A link read as a record line: a link has no columns, so each is its body's own and only the chain is checked."""

    seq: int
    prev_hash: str
    hash: str
    recorded_at: datetime
    kind: str = ""
    round_id: str | None = None
    bet_id: str | None = None
    test: bool = False


_NO_TIME = datetime.min.replace(tzinfo=UTC)  # a body without a readable time: the chain check names it


def _link_columns(link: Link) -> tuple[_LinkColumns, Envelope | None]:
    """The link as a record line, and its body read as an envelope (None: it is no record; the check says so)."""
    try:
        body: Envelope | None = envelope(link.body)
    except (msgspec.DecodeError, UnicodeDecodeError):
        body = None
    columns = _LinkColumns(seq=link.seq, prev_hash=link.prev_hash.hex(), hash=link.hash.hex(), recorded_at=_NO_TIME)
    if body is None:
        return columns, None
    keys = body.keys
    columns = msgspec.structs.replace(
        columns, recorded_at=_time_of(body), kind=keys.kind, round_id=keys.round_id, bet_id=keys.bet_id, test=body.test
    )
    return columns, body


def _time_of(body: Envelope) -> datetime:
    try:
        return datetime.fromisoformat(body.recorded_at)
    except ValueError:
        return _NO_TIME


class VerifySection(NamedTuple):
    """What a verifier found in one section of a file (`audit/parallel.py`), to be merged in file order."""

    chains: dict[str, ChainCheck]
    heads: dict[str, TableHead]
    bad: list[tuple[int, str]]  # (line number within the section, why) of each line that is no export line
    header: ExportHeader | None
    end: ExportEnd | None
    lines: int
    order: ExportOrder  # the section's chains in the order it met them, and any line out of the export's order


_envelope_line = msgspec.json.Decoder(_EnvelopeLine)
_RECORD = b'{"type":"record"'
_BODY = b',"body":'


class ExportVerifier:
    """Feed it an export's lines (and any kept checkpoints first); `report()` says what holds and what broke."""

    # Every attribute `merge` takes from a section or has no need to (`verifier`, `kept`: the same in each worker;
    # `faults`: rebuilt from `bad`). A new attribute must be added here and merged, or the parallel report would
    # differ from one pass without anyone noticing: tests/unit/test_audit_parallel.py holds the list to the class.
    MERGED = frozenset({"verifier", "chains", "heads", "faults", "header", "end", "lines", "bad", "kept", "order"})

    def __init__(self, verifier: Verifier | None = None) -> None:
        self.verifier = verifier
        self.chains: dict[str, ChainCheck] = {}
        self.heads: dict[str, TableHead] = {}
        self.faults: list[Fault] = []
        self.header: ExportHeader | None = None
        self.end: ExportEnd | None = None
        self.lines = 0
        self.bad: list[tuple[int, str]] = []  # (line number, why) of every BadLine, as also in `faults`
        # A worker's kept checkpoints by table (`audit/parallel.py`): each is applied when its chain is first met,
        # which leaves the chain as `keep` before any line would have.
        self.kept: dict[str, list[tuple[int, str, str]]] | None = None
        self.order = ExportOrder()  # the chains' sections, in table_id order

    def chain(self, table_id: str) -> ChainCheck:
        found = self.chains.get(table_id)
        if found is None:
            found = self.chains[table_id] = ChainCheck(table_id)
            if self.kept is not None:
                for size, note, source in self.kept.get(table_id, ()):
                    self.checkpoint(table_id, size, note, source)
        return found

    def feed(self, lines: Iterable[Line | BadLine]) -> None:
        """Lines already decoded (from the database, say)."""
        for line in lines:
            if type(line) is RecordLine:
                if line.table_id != self.order.current:
                    self.order.line(line.table_id, line.seq)
                data = body_bytes(line)
                self.chain(line.table_id).record(line, data, None)
            else:
                self.other(line)

    def feed_bytes(self, raw_lines: Iterable[bytes]) -> None:
        """An export's lines as bytes: a record line is decoded once, its body's exact bytes cut from the line."""
        decode = _envelope_line.decode
        for data in raw_lines:
            self.lines += 1
            if data.startswith(_RECORD):
                try:
                    line = decode(data)
                except msgspec.DecodeError:
                    pass  # a body that is no envelope, or base64: the general path says what is wrong
                else:
                    if line.encoding == "json":
                        if line.table_id != self.order.current:
                            self.order.line(line.table_id, line.seq)
                        body = data[data.rindex(_BODY) + 8 : data.rindex(b"}")]
                        chain = self.chains.get(line.table_id) or self.chain(line.table_id)
                        chain.record(line, body, line.body)
                        continue
            self._decode_other(data)

    def feed_links(self, table_id: str, links: Iterable[Link]) -> None:
        """A chain known only by its links (no head, no columns): its seqs, links, hashes, bodies and times."""
        chain = self.chain(table_id)
        for link in links:
            columns, body = _link_columns(link)
            chain.record(columns, link.body, body)

    def _decode_other(self, data: bytes) -> None:
        try:
            line: Line | BadLine = decode_line(data)
        except msgspec.DecodeError as exc:
            if not data.strip():
                return
            line = BadLine(number=self.lines, error=str(exc))
        self.feed([line])

    def other(self, line: Line | BadLine) -> None:
        match line:
            case HashLine():
                self.order.line(line.table_id, line.seq)
                self.chain(line.table_id).hash_only(line.seq, line.hash)
            case TableHead():
                self.order.head(line.table_id)
                self.chain(line.table_id)
                self.heads[line.table_id] = line
            case CheckpointLine():
                self.order.line(line.table_id, None)
                self.checkpoint(line.table_id, line.size, line.note, "export")
            case ExportHeader():
                self.header = line
            case ExportEnd():
                self.end = line
            case BadLine(number=number, error=error):
                self.faults.append(_file_fault(f"line {number}: {error}"))
                self.bad.append((number, error))

    def section(self) -> VerifySection:
        """What this verifier found, fed one section of a file, for `merge`."""
        return VerifySection(self.chains, self.heads, self.bad, self.header, self.end, self.lines, self.order)

    def merge(self, sections: Sequence[VerifySection]) -> bool:
        """Take in the sections of a file, in file order, as if their lines had been fed here one after another
        (after `keep` of any kept checkpoints); False when a table is in more than one section, which only one
        pass over the file can check."""
        seen: set[str] = set()
        last: str | None = None
        for found in sections:
            # Order: a section out of order inside, or starting before the previous one ended, is left to one pass,
            # which names the very lines (a section starts at a table line, so its first chain is the least).
            met = [*sorted(found.order.finished), *([] if found.order.current is None else [found.order.current])]
            if found.order.faults or (last is not None and met and met[0] <= last):
                return False
            if met:
                last = met[-1]
            for table_id, chain in found.chains.items():
                if table_id in seen:
                    return False
                seen.add(table_id)
                self.chains[table_id] = chain  # a kept table's chain keeps the place `keep` gave it, as in one pass
            self.heads.update(found.heads)
            for number, error in found.bad:
                self.other(BadLine(number=self.lines + number, error=error))
            if found.header is not None:
                self.header = found.header
            if found.end is not None:
                self.end = found.end
            self.lines += found.lines
        return True

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
            chain.expect(opened.size, opened.root, source)

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

    def report(self) -> VerifyReport:
        """Close every chain (its head, checkpoints it never reached, the file's end) and say what was found."""
        tables = [self._close(chain) for chain in self.chains.values()]
        faults = [
            *self.faults,
            *self.order.faults,
            *(f for chain in self.chains.values() for f in chain.faults),
            *self._file_faults(),
        ]
        return VerifyReport(
            ok=not faults,
            records=sum(c.records for c in self.chains.values()),
            tables=tables,
            faults=faults,
            checkpoints=sum(c.checkpoints for c in self.chains.values()),
            checkpoints_matched=sum(c.matched for c in self.chains.values()),
            signatures_checked=self.verifier is not None,
        )

    def _close(self, chain: ChainCheck) -> TableSummary:
        head = self.heads.get(chain.table_id)
        first = chain.close(None if head is None else head.seq, None if head is None else head.hash)
        return TableSummary(
            table_id=chain.table_id,
            records=chain.records,
            hashes_only=chain.hashes_only,
            last_seq=chain.count,
            head_seq=None if head is None else head.seq,
            checkpoints=chain.checkpoints,
            checkpoints_matched=chain.matched,
            first_broken=first,
        )

    def _file_faults(self) -> list[Fault]:
        if self.header is None:
            return []  # API pages carry no header and no end
        if self.end is None:
            return [_file_fault("the file has no end line: it was cut short")]
        chains = self.chains.values()
        found = (len(self.chains), sum(c.records for c in chains), sum(c.hashes_only for c in chains))
        if (self.end.tables, self.end.records, self.end.hashes) != found:
            return [
                _file_fault(
                    f"the end line counts {self.end.tables} tables, {self.end.records} records and "
                    f"{self.end.hashes} hashes; the file holds {found[0]}, {found[1]} and {found[2]}"
                )
            ]
        return []


def _file_fault(detail: str) -> Fault:
    return Fault(kind=FaultKind.MALFORMED, table_id=None, seq=None, detail=detail)


def verify_lines(lines: Iterable[Line | BadLine], verifier: Verifier | None = None) -> VerifyReport:
    """The whole check over an export's lines."""
    checker = ExportVerifier(verifier)
    checker.feed(lines)
    return checker.report()


def verify_links(table_id: str, links: Iterable[Link]) -> VerifyReport:
    """The same check over one chain's links, as the service and the tests hold them in memory."""
    checker = ExportVerifier()
    checker.feed_links(table_id, links)
    return checker.report()
