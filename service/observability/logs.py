"""structlog JSON on stdout, one summary line per request, metrics per route; every line written whole.

Several workers share one stdout. print() (structlog's PrintLogger) writes a line in two write() calls when Python
runs unbuffered, as the image runs it (the line, then its newline), and a long one in a single write a pipe does not
keep whole: with two workers 5 of about 9,500 lines held two JSON objects (issue 21). Here every line goes out in
one write() of at most ATOMIC_BYTES, which POSIX keeps whole on a pipe (PIPE_BUF) and Linux on a file; a longer
line (a traceback) goes out as several whole JSON lines, each carrying the line's event, level, timestamp and
request id, `line` (an id), `part` (from 1), `parts` and `text`: the texts joined in part order are the line.
"""

from __future__ import annotations

import logging
import os
import secrets
import sys
import threading
import time
from collections.abc import MutableMapping
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any, TextIO

import msgspec
import structlog
from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, ReceiveMessage, Scope, Send

from service.observability import metrics

log = structlog.get_logger("reddog.http")
# Whether the client of the request this task answers has closed its connection: the server said http.disconnect.
_client_gone: ContextVar[bool] = ContextVar("client_gone", default=False)


def client_gone() -> bool:
    """Whether the request being answered lost its client: what it failed on then was the client's going, no bug."""
    return _client_gone.get()


def configure(level: str) -> None:
    """JSON lines on stdout with ISO UTC timestamps; request and round ids come from contextvars."""
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            _timestamp,
            _format_exc_info,
            structlog.processors.JSONRenderer(serializer=_dumps),
        ],
        wrapper_class=structlog.make_filtering_bound_logger(getattr(logging, level)),
        # No fixed stream: each logger takes sys.stdout when it is made, so a replaced stdout (tests) is followed.
        logger_factory=lambda *_: WholeLines(sys.stdout),
        # Not cached: a cached logger keeps the first create_app's level and stream for the whole process, so a
        # second app (tests, another set of settings) would silently log at the first one's level.
        cache_logger_on_first_use=False,
    )


_encoder = msgspec.json.Encoder()
_second: tuple[int, str] = (-1, "")  # the last whole second seen and its ISO text, replaced as one value


def _timestamp(_: Any, __: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """structlog's TimeStamper(fmt="iso", utc=True), to the byte ("2026-11-30T09:24:35.473217Z", no fraction on a
    whole second), with the date and time formatted once a second rather than on every line."""
    global _second
    now = time.time()
    second = int(now)
    cached = _second
    if cached[0] != second:
        cached = _second = (second, datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S"))
    micros = int((now - second) * 1_000_000)
    event_dict["timestamp"] = f"{cached[1]}.{micros:06d}Z" if micros else f"{cached[1]}Z"
    return event_dict


def _format_exc_info(logger: Any, name: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """structlog's format_exc_info, called only for the rare line that carries exc_info."""
    if "exc_info" not in event_dict:
        return event_dict
    return structlog.processors.format_exc_info(logger, name, event_dict)


def _dumps(obj: Any, **_: Any) -> str:
    return _encoder.encode(obj).decode()


ATOMIC_BYTES = 4096  # PIPE_BUF: the most POSIX writes to a pipe in one piece, whatever else writes to it
_KEPT = ("event", "level", "timestamp", "request_id")  # what each part of a split line repeats, to find it by
_decode = msgspec.json.Decoder().decode


def whole_lines(message: str) -> list[bytes]:
    """The line as bytes to write, newline included: itself when it fits ATOMIC_BYTES, else whole JSON lines that
    each fit and hold a piece of its text in order."""
    line = message.encode() + b"\n"
    if len(line) <= ATOMIC_BYTES:
        return [line]
    kept = {k: v for k, v in _fields(message).items() if k in _KEPT and isinstance(v, str) and len(v) <= 128}
    part = {**kept, "line": secrets.token_hex(4), "part": 0, "parts": 0, "text": ""}
    room = ATOMIC_BYTES - len(_encoder.encode({**part, "part": 10**6, "parts": 10**6})) - 1
    pieces = _pieces(message, room)
    return [
        _encoder.encode({**part, "part": i, "parts": len(pieces), "text": p}) + b"\n" for i, p in enumerate(pieces, 1)
    ]


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


def request_logging(app: ASGIApp) -> ASGIApp:
    """ASGI middleware: a request id, one log line and the HTTP metrics for every request."""
    # Bound once, when create_app builds the app (after logs.configure): the module's lazy logger would build a
    # logger from the configuration again for every line. It writes to the stdout of that moment, as before.
    request_log = log.bind()

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != ScopeType.HTTP:
            await app(scope, receive, send)
            return
        method = scope["method"]
        structlog.contextvars.clear_contextvars()
        request_id = _request_id(scope)
        structlog.contextvars.bind_contextvars(request_id=request_id)
        started = time.perf_counter()
        status = 500
        gone = _client_gone.set(False)

        async def receive_wrapper() -> ReceiveMessage:
            message = await receive()
            if message["type"] == "http.disconnect":
                _client_gone.set(True)
            return message

        async def send_wrapper(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", []), (b"x-request-id", request_id.encode())]
            await send(message)

        try:
            await app(scope, receive_wrapper, send_wrapper)
        finally:
            elapsed = time.perf_counter() - started
            route = scope.get("path_template") or "unmatched"
            metrics.observe_request(method, route, status, elapsed)
            request_log.info(
                "request",
                method=scope["method"],
                path=scope["path"],
                status=status,
                duration_ms=round(elapsed * 1000, 2),
            )
            structlog.contextvars.clear_contextvars()
            _client_gone.reset(gone)

    return middleware


def _request_id(scope: Scope) -> str:
    for name, value in scope["headers"]:
        if name == b"x-request-id" and 0 < len(value) <= 64 and value.isascii():
            return value.decode()
    return secrets.token_hex(16)  # 32 hex digits like uuid4().hex, a quarter of its cost
