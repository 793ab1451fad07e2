"""Log lines written whole: one write() of at most ATOMIC_BYTES each, so several workers sharing a stream never merge
their lines.

print() (structlog's PrintLogger) writes a line in two write() calls when Python runs unbuffered, as the image runs
it (the line, then its newline), and a long one in a single write a pipe does not keep whole: with two workers 5 of
about 9,500 lines held two JSON objects (issue 21). Here every line goes out in one write() of at most ATOMIC_BYTES,
which POSIX keeps whole on a pipe (PIPE_BUF) and Linux on a file. A traceback is shortened to fit its line
(`shortened`); a line still too long goes out as several whole JSON lines, each carrying the line's event, level,
timestamp and request id, `line` (an id), `part` (from 1), `parts` and `text`: the texts joined in part order are the
line.
"""

from __future__ import annotations

import os
import secrets
import threading
from typing import Any, TextIO

import msgspec

ATOMIC_BYTES = 4096  # PIPE_BUF: the most POSIX writes to a pipe in one piece, whatever else writes to it
_KEPT = ("event", "level", "timestamp", "request_id")  # what each part of a split line repeats, to find it by
_NOTE_BYTES = 64  # room for shortened()'s note of what it left out
encoder = msgspec.json.Encoder()
_decode = msgspec.json.Decoder().decode


def whole_lines(message: str) -> list[bytes]:
    """The line as bytes to write, newline included: itself when it fits ATOMIC_BYTES, else whole JSON lines that
    each fit and hold a piece of its text in order."""
    line = message.encode() + b"\n"
    if len(line) <= ATOMIC_BYTES:
        return [line]
    kept = {k: v for k, v in _fields(message).items() if k in _KEPT and isinstance(v, str) and len(v) <= 128}
    part = {**kept, "line": secrets.token_hex(4), "part": 0, "parts": 0, "text": ""}
    room = ATOMIC_BYTES - len(encoder.encode({**part, "part": 10**6, "parts": 10**6})) - 1
    pieces = _pieces(message, room)
    return [
        encoder.encode({**part, "part": i, "parts": len(pieces), "text": p}) + b"\n" for i, p in enumerate(pieces, 1)
    ]


def fitted(fields: dict[str, Any], key: str = "exception") -> dict[str, Any]:
    """`fields` with its `key` text (a traceback) shortened so the whole line fits ATOMIC_BYTES, where it can."""
    text = fields.get(key)
    if not isinstance(text, str):
        return fields
    rest = len(encoder.encode({k: v for k, v in fields.items() if k != key}))
    room = ATOMIC_BYTES - rest - len(f',"{key}":""') - 1  # and the newline
    return {**fields, key: shortened(text, room)} if room > _NOTE_BYTES else fields


def shortened(text: str, room: int) -> str:
    """`text` itself when its JSON string body fits `room` bytes; else its start and its longer end (where a
    traceback names the innermost frames and the exception) around a note of how much was left out."""
    sizes = [_escaped_size(char) for char in text]
    if sum(sizes) <= room:
        return text
    budget = room - _NOTE_BYTES
    head = _fitting(sizes, budget // 4)
    tail = _fitting(sizes[::-1], budget - budget // 4)
    return f"{text[:head]}\n[... {len(text) - head - tail} characters left out ...]\n{text[len(text) - tail :]}"


def _fitting(sizes: list[int], room: int) -> int:
    """How many of the first characters take at most `room` bytes."""
    used = 0
    for count, size in enumerate(sizes):
        used += size
        if used > room:
            return count
    return len(sizes)


def _fields(message: str) -> dict[str, Any]:
    """The line's fields, or none when it is not a JSON object (a split line then carries its text alone)."""
    try:
        fields = _decode(message)
    except msgspec.DecodeError:
        return {}
    return fields if isinstance(fields, dict) else {}


def _pieces(text: str, room: int) -> list[str]:
    """`text` cut into pieces whose JSON string bodies (escapes and UTF-8 counted) each take at most `room` bytes."""
    pieces: list[str] = []
    start = used = 0
    for i, char in enumerate(text):
        size = _escaped_size(char)
        if used + size > room:
            pieces.append(text[start:i])
            start, used = i, 0
        used += size
    pieces.append(text[start:])
    return pieces


def _escaped_size(char: str) -> int:
    """The bytes msgspec writes for one character inside a JSON string."""
    if char in '"\\':
        return 2
    if char < " ":
        return 2 if char in "\b\f\n\r\t" else 6
    return len(char.encode("utf-8", "surrogatepass"))


class WholeLines:
    """structlog's PrintLogger, but each line is written by one write() (see the module's docstring)."""

    _lock = threading.Lock()  # keeps a split line's parts together among this process's threads

    def __init__(self, file: TextIO) -> None:
        self._file = file
        try:
            self._fd: int | None = file.fileno()
        except (AttributeError, OSError, ValueError):  # a stream with no descriptor (a test's capture): its write()
            self._fd = None

    def msg(self, message: str) -> None:
        with self._lock:
            for line in whole_lines(message):
                self._write(line)

    log = debug = info = warn = warning = err = error = critical = exception = fatal = failure = msg

    def _write(self, line: bytes) -> None:
        if self._fd is None:
            self._file.write(line.decode())
            self._file.flush()
            return
        self._file.flush()  # what others printed goes first, in its order
        view = memoryview(line)
        while view:  # a short write happens only on a full disk or a signal; the rest follows
            view = view[os.write(self._fd, view) :]
