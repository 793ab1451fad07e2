"""`make run` (development, RD_METRICS_PORT unset) starts when something else holds the default metrics port, and
prints the free port it took instead; a metrics port that was asked for is that port or nothing."""

from __future__ import annotations

import contextlib
import errno
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from service.settings import from_env
from tests.support.served import served

DEFAULT = from_env({}).metrics_port


@contextlib.contextmanager
def held(port: int) -> Iterator[None]:
    """`port` on the loopback interface taken for the duration (already taken by another process does as well)."""
    with socket.socket() as other:
        try:
            other.bind(("127.0.0.1", port))
            other.listen()
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE:
                raise
        yield


def test_a_taken_default_metrics_port_gives_way_to_a_free_one_that_is_printed(
    served_database: str, tmp_path: Path
) -> None:
    with held(DEFAULT), served(served_database, tmp_path, env={"RD_METRICS_PORT": ""}) as server:
        printed = re.search(r"metrics on http://127\.0\.0\.1:(\d+)/metrics", server.log.read_text())
        assert printed is not None, server.log.read_text()
        assert "try: .venv/bin/reddog play" in server.log.read_text()  # development's banner: text, with its hint
        port = int(printed.group(1))
        assert port != DEFAULT
        assert "reddog_db_pool_size" in httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).text


def test_a_taken_metrics_port_that_was_asked_for_stops_the_server_naming_the_variable(
    served_database: str, tmp_path: Path
) -> None:
    asked = {"RD_METRICS_PORT": str(DEFAULT)}
    with (
        held(DEFAULT),
        pytest.raises(RuntimeError, match="exited with 1") as stopped,
        served(served_database, tmp_path, env=asked),
    ):
        pass
    assert "RD_METRICS_PORT" in str(stopped.value)
