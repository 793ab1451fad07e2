"""Where the process's log lines go and in what form: structlog's JSON lines on stdout, everything else on stderr.

In production (`take_over`) every line on stderr is one JSON object too: Python logging's records (uvicorn's,
asyncio's, asyncpg's) with any traceback inside one field, warnings, an exception no code caught (in any thread),
what a command tells the operator (`say`), and, as a last net, any other text written to sys.stderr, one JSON object
a line. Elsewhere stderr stays text for people: Python logging in the format Litestar gave it, `say`'s message as is.
"""

from __future__ import annotations

import atexit
import io
import logging
import sys
import threading
import time
from collections.abc import MutableMapping
from datetime import UTC, datetime
from types import TracebackType
from typing import Any, TextIO

import msgspec
import structlog

from service.observability.log_lines import WholeLines, encoder, fitted

_json_stderr = False  # whether take_over() made this process's stderr JSON: it holds for the process's life
_second: tuple[int, str] = (-1, "")  # the last whole second seen and its ISO text, replaced as one value
_formatter = logging.Formatter()
_decode = msgspec.json.Decoder().decode
PLAIN_FORMAT = "%(levelname)s - %(asctime)s - %(name)s - %(module)s - %(message)s"  # Litestar's, as it was


def configure(level: str) -> None:
    """JSON lines on stdout with ISO UTC timestamps (request and round ids from contextvars); Python logging's
    records at `level` and above (warnings at least) on stderr, as JSON once the process is taken over, else as text."""
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            timestamp,
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
    _route_records(level)


def take_over(level: str = "INFO") -> None:
    """Make every line this process writes to stderr one JSON object: production's `reddog serve` and its workers."""
    global _json_stderr
    _json_stderr = True
    _route_records(level)
    logging.captureWarnings(True)  # warnings become records of the py.warnings logger
    sys.excepthook = _uncaught
    threading.excepthook = _uncaught_in_thread
    sys.unraisablehook = _unraisable
    if not isinstance(sys.stderr, JsonText):
        sys.stderr = net = JsonText(sys.stderr)
        atexit.register(net.close)


def json_stderr() -> bool:
    """Whether this process's stderr is JSON (a worker takes its supervisor's answer)."""
    return _json_stderr


def say(event: str, message: str, *, level: str = "info", **fields: Any) -> None:
    """Tell the operator something on stderr: `message` as it is, or, once taken over, one JSON object holding
    `event`, `level`, `message` and `fields`."""
    if not _json_stderr:
        print(message, file=sys.stderr)
        return
    line: dict[str, Any] = {"event": event, "level": level, "message": message, **fields}
    WholeLines(sys.stderr).msg(_dumps(timestamp(None, "", line)))


def timestamp(_: Any, __: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
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
    """structlog's format_exc_info, called only for the rare line that carries exc_info; its traceback is then
    shortened to fit the line."""
    if "exc_info" not in event_dict:
        return event_dict
    return fitted(dict(structlog.processors.format_exc_info(logger, name, event_dict)))


def _dumps(obj: Any, **_: Any) -> str:
    return encoder.encode(obj).decode()


def _route_records(level: str) -> None:
    """The root logger's one handler of ours, JSON or text as the process's stderr is."""
    root = logging.getLogger()
    for handler in [h for h in root.handlers if isinstance(h, JsonRecords | PlainRecords)]:
        root.removeHandler(handler)
    root.addHandler(JsonRecords() if _json_stderr else PlainRecords())
    # The libraries' info records (a pool's, an embedded server's) are not an operator's business: WARNING at least.
    root.setLevel(max(getattr(logging, level), logging.WARNING))


class JsonRecords(logging.Handler):
    """Python logging's records as JSON lines on stderr: `event` (the message), `level`, `logger`, `timestamp`, and
    `exception` with the traceback, shortened to fit the line."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            fields: dict[str, Any] = {"event": record.getMessage(), "level": record.levelname.lower()}
            fields["logger"] = record.name
            timestamp(None, "", fields)
            if record.exc_info:
                fields["exception"] = _formatter.formatException(record.exc_info)
            if record.stack_info:
                fields["stack"] = record.stack_info
            WholeLines(sys.stderr).msg(_dumps(fitted(fitted(fields), "stack")))
        except Exception:  # logging's own rule: a record that cannot be written never breaks the caller
            self.handleError(record)


class PlainRecords(logging.Handler):
    """Python logging's records as text on the stderr of the moment (a test's capture too)."""

    def __init__(self) -> None:
        super().__init__()
        self.setFormatter(logging.Formatter(PLAIN_FORMAT))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
        except Exception:  # as logging.StreamHandler does
            self.handleError(record)


class JsonText(io.TextIOBase):
    """sys.stderr once taken over: each line of text written to it goes out as one JSON object (`event` "stderr", the
    line in `text`), a line that is a JSON object already as it is; blank lines carry nothing and are dropped."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._pending = ""
        self._lock = threading.Lock()

    encoding = "utf-8"  # TextIOBase's is None: some writers ask what to encode with

    def writable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._stream.fileno()

    def write(self, text: str) -> int:
        with self._lock:
            *lines, self._pending = (self._pending + text).split("\n")
        for line in lines:
            self._emit(line)
        return len(text)

    def close(self) -> None:
        """At exit: what was written without its newline still goes out."""
        with self._lock:
            rest, self._pending = self._pending, ""
        self._emit(rest)

    def _emit(self, line: str) -> None:
        if not line.strip():
            return
        if not _is_object(line):
            line = _dumps(timestamp(None, "", {"event": "stderr", "level": "warning", "text": line}))
        WholeLines(self._stream).msg(line)


def _is_object(line: str) -> bool:
    if not (line.startswith("{") and line.endswith("}")):
        return False
    try:
        return isinstance(_decode(line), dict)
    except msgspec.DecodeError:
        return False


def _uncaught(kind: type[BaseException], value: BaseException, trace: TracebackType | None) -> None:
    logging.getLogger("reddog").critical("uncaught exception", exc_info=(kind, value, trace))


def _uncaught_in_thread(args: threading.ExceptHookArgs) -> None:
    if args.exc_type is SystemExit:
        return  # as threading's own hook: a thread that exits is no error
    thread = args.thread.name if args.thread is not None else "?"
    exc_info = (args.exc_type, args.exc_value or args.exc_type(), args.exc_traceback)
    logging.getLogger("reddog").critical("uncaught exception in thread %s", thread, exc_info=exc_info)


def _unraisable(unraisable: Any) -> None:
    value = unraisable.exc_value or unraisable.exc_type()
    exc_info = (unraisable.exc_type, value, unraisable.exc_traceback)
    where = unraisable.err_msg or "Exception ignored in"
    logging.getLogger("reddog").error("%s: %.200r", where, unraisable.object, exc_info=exc_info)
