"""Each worker's own probe of its database: a real PostgreSQL answers, a closed port and a silent one do not, and the
background loop exports the answer with no request at all."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Iterator

import asyncpg
import pytest
from prometheus_client import REGISTRY

from service.db.unit_of_work import Runner
from service.observability import metrics
from service.runtime import database_probe
from service.settings import Settings
from tests.support.clock import ManualClock


@contextlib.asynccontextmanager
async def pool_to(url: str) -> AsyncIterator[asyncpg.Pool]:
    """A pool that opens no connection until asked: one to a server that is not there can still be made."""
    pool = await asyncpg.create_pool(url, min_size=0, max_size=1)
    try:
        yield pool
    finally:
        pool.terminate()


@contextlib.contextmanager
def listening_socket() -> Iterator[int]:
    """A port that accepts connections and never says a word: a database host gone quiet, not one that refuses."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield sock.getsockname()[1]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port  # closed again: nothing listens there now


async def test_a_database_that_answers_is_reachable(database_url: str) -> None:
    async with pool_to(database_url) as pool:
        assert await database_probe.probe(pool) is None


async def test_a_refused_connection_is_unreachable_and_says_why() -> None:
    async with pool_to(f"postgresql://nobody@127.0.0.1:{closed_port()}/none") as pool:
        assert await database_probe.probe(pool) in {"ConnectionRefusedError", "OSError"}


async def test_a_database_host_that_never_answers_is_unreachable_after_the_probe_s_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(database_probe, "PROBE_TIMEOUT_SECONDS", 0.3)  # 3 s in service: a test need not wait so long
    with listening_socket() as port:
        async with pool_to(f"postgresql://nobody@127.0.0.1:{port}/none") as pool:
            assert await database_probe.probe(pool) == "TimeoutError"


async def test_the_loop_exports_the_answer_and_when_it_was_asked_without_any_request(settings: Settings) -> None:
    clock = ManualClock()
    async with pool_to(f"postgresql://nobody@127.0.0.1:{closed_port()}/none") as pool:
        metrics.observe_database(True, 0.0)  # as a worker starts: reachable, the pool just connected
        loop = asyncio.create_task(database_probe.run_forever(Runner(pool, settings, clock)))
        try:
            async with asyncio.timeout(10):
                while REGISTRY.get_sample_value("reddog_database_reachable") != 0:  # noqa: ASYNC110 - no event to wait on
                    await asyncio.sleep(0.01)
        finally:
            loop.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await loop
    assert REGISTRY.get_sample_value("reddog_database_probe_timestamp_seconds") == clock.now.timestamp()  # its reading
