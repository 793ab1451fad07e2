"""An aggregator's notification receiver, for real: an HTTP server on a local port that checks each POST's signature
the way docs/api.md tells an aggregator to (written here from that text, not from the service's code), applies each
event id once, and can be made to fail, time out, or go away."""

from __future__ import annotations

import hashlib
import hmac
import json
import random
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

PATH = "/hooks/reddog?source=test"


class _Server(ThreadingHTTPServer):
    request_queue_size = 256  # the standard library's 5 refuses a delivery worker's batch sent side by side

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A sender that gave up on a late answer closed its end: expected here, not worth a traceback."""
        del request, client_address


class Receiver:
    def __init__(
        self, secrets: tuple[str, ...], *, fail_rate: float = 0.0, timeout_rate: float = 0.0, seed: int = 7
    ) -> None:
        self.secrets = secrets
        self.fail_rate = fail_rate
        self.timeout_rate = timeout_rate
        self.stall_seconds = 1.0  # a "timed out" reply comes this late: past the sender's timeout in the tests
        self.random = random.Random(seed)
        self.lock = threading.Lock()
        self.attempts = 0
        self.failed = 0
        self.stalled = 0
        self.bad_signatures = 0
        self.cut_short = 0  # requests whose body never arrived whole
        self.applied: dict[str, dict[str, Any]] = {}  # event id -> its notification, applied once
        self.order: list[str] = []  # event ids in the order they were first applied
        self.applied_from: Counter[str] = Counter()  # events first applied, by the `source` their URL named
        self.server: ThreadingHTTPServer | None = None
        self.port = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}{PATH}"

    def url_for(self, source: str) -> str:
        """A URL of its own for one sender (an app instance), so the receiver can tell who delivered what."""
        return f"http://127.0.0.1:{self.port}/hooks/reddog?source={source}"

    def verified(self, headers: Any, body: bytes, path: str = PATH) -> bool:
        """docs/api.md: HMAC-SHA256 under the secret of `timestamp \\n POST \\n path?query \\n event id \\n` + body,
        lowercase hex; X-Signature holds one per secret in force, comma separated."""
        timestamp, event_id = headers.get("X-Timestamp", ""), headers.get("Idempotency-Key", "")
        if abs(time.time() - int(timestamp or 0)) > 300:
            return False
        message = f"{timestamp}\nPOST\n{path}\n{event_id}\n".encode() + body  # the path?query called
        sent = headers.get("X-Signature", "").split(",")
        expected = [hmac.new(s.encode(), message, hashlib.sha256).hexdigest() for s in self.secrets]
        return any(hmac.compare_digest(e, s.strip()) for e in expected for s in sent)

    def handle(self, headers: Any, body: bytes, path: str = PATH) -> tuple[int, float]:
        """The reply's status, and how long to wait before sending it."""
        with self.lock:
            self.attempts += 1
            if not self.verified(headers, body, path):
                self.bad_signatures += 1
                return 401, 0.0
            draw = self.random.random()
            if draw < self.fail_rate:
                self.failed += 1
                return 500, 0.0
            event = json.loads(body)
            assert event["id"] == headers["Idempotency-Key"] == headers["X-Reddog-Event-Id"]
            if event["id"] not in self.applied:  # seen before: applied once, acknowledged again
                self.applied[event["id"]] = event
                self.order.append(event["id"])
                self.applied_from[parse_qs(urlsplit(path).query).get("source", [""])[0]] += 1
            if draw < self.fail_rate + self.timeout_rate:  # applied, but the acknowledgement comes too late
                self.stalled += 1
                return 200, self.stall_seconds
            return 200, 0.0

    def start(self) -> None:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as an aggregator's server would

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                if len(body) < length:  # the sender died mid-send (kill -9): a broken request, not a bad signature
                    with receiver.lock:
                        receiver.cut_short += 1
                    self.close_connection = True
                    return
                status, delay = receiver.handle(self.headers, body, self.path)
                time.sleep(delay)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                del format, args

        self.server = _Server(("127.0.0.1", self.port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        """Away: connections to its port are refused until `start` again (on the same port)."""
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None

    def applied_of(self, kind: str) -> list[dict[str, Any]]:
        with self.lock:
            return [self.applied[i] for i in self.order if self.applied[i]["type"] == kind]


@contextmanager
def running(secrets: tuple[str, ...], **options: Any) -> Iterator[Receiver]:
    receiver = Receiver(secrets, **options)
    receiver.start()
    try:
        yield receiver
    finally:
        receiver.stop()
