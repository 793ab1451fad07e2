"""A stopping server ends its friends' push streams at once instead of holding its shutdown for as long as a stream
may last (RD_FRIENDS_STREAM_SECONDS): the phone's EventSource reconnects to another replica and catches up by the
version it last saw."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import httpx
import pytest

from tests.support.served import served

TABLES = "/v1/friends/tables"
PROMPT = 3.0  # seconds a stopping server may take with a stream open (the stream itself is set to last an hour)


async def _stream_until_it_ends(api_url: str, started: asyncio.Event) -> float:
    """Open a phone's stream, say when its first event came, read it to its end; when it ended."""
    async with httpx.AsyncClient(base_url=api_url, timeout=30) as client:
        created = await client.post(TABLES, json={"name": "Host", "bearer": True, "seats": 2})
        assert created.status_code == 201, created.text
        body = created.json()
        headers = {"authorization": f"Bearer {body['token']}"}
        async with client.stream("GET", f"{TABLES}/{body['table']['code']}/events", headers=headers) as events:
            assert events.status_code == 200
            async for line in events.aiter_lines():
                if line.startswith("event: table"):
                    started.set()
        return time.monotonic()


@pytest.mark.parametrize("workers", [1, 2])
async def test_a_server_with_an_open_push_stream_stops_within_seconds(
    served_database: str, tmp_path: Path, workers: int
) -> None:
    env = {"RD_FRIENDS": "true", "RD_FRIENDS_STREAM_SECONDS": "3600"}
    with served(served_database, tmp_path, workers=workers, env=env) as server:
        started = asyncio.Event()
        reader = asyncio.create_task(_stream_until_it_ends(server.api_url, started))
        await asyncio.wait_for(started.wait(), 10)
        asked = time.monotonic()
        os.kill(server.pid, signal.SIGTERM)
        stopped = await asyncio.to_thread(_exit_time, server.pid)
        ended = await asyncio.wait_for(reader, 5)  # the stream ended cleanly: its reply was whole
        assert stopped - asked < PROMPT, f"the server took {stopped - asked:.1f} s to stop with a stream open"
        assert ended - asked < PROMPT


def _exit_time(pid: int, most: float = 20.0) -> float:
    """When the process is gone (it is served()'s child: poll it without reaping, served() reaps it)."""
    deadline = time.monotonic() + most
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1][0]
        except FileNotFoundError:
            return time.monotonic()
        if state == "Z":
            return time.monotonic()
        time.sleep(0.05)
    return time.monotonic()
