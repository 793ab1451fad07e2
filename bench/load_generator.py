"""Drive bench/generator.mjs (Node + undici): start it, open and close the measured window, read its figures."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import msgspec

HERE = Path(__file__).resolve().parent
ANTE = 500
PAYTABLE = "standard/v1"


class Window(msgspec.Struct, frozen=True, kw_only=True):
    """What the generator saw inside the measured window."""

    seconds: float
    rounds: dict[str, int]  # settled_at_open, raise, call
    requests: dict[str, int]  # successful requests by endpoint: open, decide, health
    latencies_us: dict[str, list[int]]
    errors: dict[str, int]  # "endpoint status CODE" or "endpoint network ECONNRESET"

    @property
    def complete_rounds(self) -> int:
        return sum(self.rounds.values())


def node() -> str:
    found = shutil.which("node")
    if found is None:
        raise RuntimeError("bench needs Node 20 (node on PATH)")
    return found


class Generator:
    """One generator process; its pid is what the CPU accounting follows."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.pid = process.pid

    @classmethod
    async def start(cls, config: dict[str, Any]) -> Generator:
        config = {"paytable": PAYTABLE, "ante": ANTE, **config}
        process = await asyncio.create_subprocess_exec(
            node(),
            str(HERE / "generator.mjs"),
            json.dumps(config),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=64 * 1024 * 1024,  # the window's latencies arrive as one line
        )
        return cls(process)

    async def event(self, name: str) -> dict[str, Any]:
        assert self.process.stdout is not None
        while True:
            line = await self.process.stdout.readline()
            if not line:
                code = await self.process.wait()
                raise RuntimeError(f"the generator exited ({code}) before sending {name!r}")
            event: dict[str, Any] = json.loads(line)
            if event.get("event") == name:
                return event

    async def send(self, command: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(f"{command}\n".encode())
        await self.process.stdin.drain()

    async def window(self) -> Window:
        return msgspec.convert(await self.event("window"), Window)

    async def finish(self) -> None:
        try:
            await asyncio.wait_for(self.process.wait(), timeout=15)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()
