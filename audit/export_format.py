"""The audit export: JSON Lines, one tagged object a line, every record's body carried byte for byte (base64).

A file is a header line, then per table a `table` line (its chain head), its `checkpoint` lines (smallest first),
its `hash` lines (records before `--since`, hash only) and its `record` lines (seq order), and an `end` line. The
`GET /v1/audit/records` pages are the same lines without the header and the end. `docs/audit.md` has the details.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import BinaryIO

import msgspec

FORMAT = "reddog-audit-export"
VERSION = 1


class _Line(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    """Base of every line; the subclass's tag is its `type`."""


class ExportHeader(_Line, frozen=True, tag="export"):
    exported_at: datetime
    format: str = FORMAT
    version: int = VERSION
    table_id: str | None = None  # `--table`: only this table
    since: datetime | None = None  # `--since`: full records from this time on, hashes only before it


class TableHead(_Line, frozen=True, tag="table"):
    """A table's chain head as its row held it when exported: the last seq and hash (hex)."""

    table_id: str
    operator_id: str
    seq: int
    hash: str


class CheckpointLine(_Line, frozen=True, tag="checkpoint"):
    """A signed checkpoint of the table's log: a C2SP signed note of its origin, size and Merkle root."""

    table_id: str
    size: int
    note: str


class HashLine(_Line, frozen=True, tag="hash"):
    """A record before `--since`: only its seq and chain hash, enough to link the next record and to check
    checkpoints over it."""

    table_id: str
    seq: int
    hash: str


class RecordLine(_Line, frozen=True, tag="record"):
    """One audit_log row: the columns as stored, then `body`, the exact bytes the hash covers, always last.

    The body is canonical JSON already, so it is written as it is: the bytes after `"body":` up to the line's final
    `}` are the record's bytes. A stored body that is not one line of UTF-8 JSON (only a damaged or forged row can be
    that) is written as a base64 string instead, with `encoding` "base64", so that every row can be exported.
    """

    table_id: str
    seq: int
    prev_hash: str  # hex
    hash: str  # hex
    recorded_at: datetime  # the column; the body holds its own
    kind: str
    round_id: str | None
    bet_id: str | None
    test: bool
    encoding: str  # "json", or "base64" for a body that is not one line of UTF-8 JSON
    body: msgspec.Raw


class ExportEnd(_Line, frozen=True, tag="end"):
    """The last line of a complete file: a file cut short has none."""

    tables: int
    records: int  # record lines
    hashes: int = 0  # hash lines (records before `--since`)


Progress = Callable[[int], None]  # told how many bytes have been read so far
Line = ExportHeader | TableHead | CheckpointLine | HashLine | RecordLine | ExportEnd


class BadLine(msgspec.Struct, frozen=True, kw_only=True):
    """A line that is not an export line, kept so the reader can say which and why."""

    number: int
    error: str


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(Line)
_any = msgspec.json.Decoder()
_string = msgspec.json.Decoder(bytes)


def raw_body(body: bytes) -> tuple[str, msgspec.Raw]:
    """How a stored body is written: as itself when it is one line of UTF-8 JSON without surrounding whitespace
    (msgspec would not give the whitespace back), else as base64."""
    if body.strip() == body and b"\n" not in body and b"\r" not in body:
        try:
            body.decode("utf-8")
            _any.decode(body)
        except (UnicodeDecodeError, msgspec.DecodeError):
            pass
        else:
            return "json", msgspec.Raw(body)
    return "base64", msgspec.Raw(_encoder.encode(body))


def record_line(
    *,
    table_id: str,
    seq: int,
    prev_hash: bytes,
    hash: bytes,
    recorded_at: datetime,
    kind: str,
    round_id: str | None,
    bet_id: str | None,
    test: bool,
    body: bytes,
) -> RecordLine:
    """The line of one stored record, its body carried byte for byte."""
    encoding, raw = raw_body(body)
    return RecordLine(
        table_id=table_id,
        seq=seq,
        prev_hash=prev_hash.hex(),
        hash=hash.hex(),
        recorded_at=recorded_at,
        kind=kind,
        round_id=round_id,
        bet_id=bet_id,
        test=test,
        encoding=encoding,
        body=raw,
    )


def body_bytes(line: RecordLine) -> bytes:
    """The record's exact bytes, whichever way the line carries them."""
    if line.encoding == "json":
        return bytes(line.body)
    try:
        return _string.decode(line.body)
    except msgspec.DecodeError:
        return b""  # not base64 either: it cannot hash to anything, and verify says so


def encode_line(line: Line) -> bytes:
    """One line's bytes, newline included."""
    return _encoder.encode(line) + b"\n"


def encode_lines(lines: Iterable[Line]) -> bytes:
    buffer = bytearray()
    for line in lines:
        _encoder.encode_into(line, buffer, len(buffer))
        buffer.extend(b"\n")
    return bytes(buffer)


def decode_line(data: bytes) -> Line:
    return _decoder.decode(data)


def read_raw_lines(stream: BinaryIO, progress: Progress | None = None) -> Iterator[bytes]:
    """Every line's bytes, with the bytes read so far told to `progress` now and then."""
    if progress is None:
        yield from stream
        return
    done = 0
    for number, data in enumerate(stream, start=1):
        done += len(data)
        if number % 4096 == 0:
            progress(done)
        yield data
    progress(done)


def read_lines(stream: BinaryIO, progress: Progress | None = None) -> Iterator[Line | BadLine]:
    """Every line of an export, decoded; a line that does not decode comes back as a BadLine."""
    done = 0
    decode = _decoder.decode
    for number, data in enumerate(stream, start=1):
        try:
            yield decode(data)
        except msgspec.DecodeError as exc:
            if data.strip():
                yield BadLine(number=number, error=str(exc))
        if progress is not None:
            done += len(data)
            if number % 4096 == 0:
                progress(done)
    if progress is not None:
        progress(done)
