"""Drive bench/generator.mjs (Node + undici): start it, open and close the measured window, read its figures."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any, ClassVar, Self

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


class NodeProcess:
    """A Node script of bench/ run with its config as JSON: its events as JSON lines on stdout, commands on stdin;
    its pid is what the CPU accounting follows."""

    script: ClassVar[str]
    line_limit: ClassVar[int]  # the longest line it prints (latencies arrive as one line)
    event_seconds: ClassVar[float | None]  # the longest wait for an event (None: as long as it takes)
    finish_seconds: ClassVar[float]  # the wait for it to exit before it is killed

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.pid = process.pid

    @classmethod
    async def launch(cls, config: dict[str, Any]) -> Self:
        process = await asyncio.create_subprocess_exec(
            node(),
            str(HERE / cls.script),
            json.dumps(config),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            limit=cls.line_limit,
        )
        return cls(process)

    async def event(self, name: str) -> dict[str, Any]:
        assert self.process.stdout is not None
        while True:
            line = await asyncio.wait_for(self.process.stdout.readline(), self.event_seconds)
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

    async def finish(self) -> None:
        try:
            await asyncio.wait_for(self.process.wait(), timeout=self.finish_seconds)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()


class Generator(NodeProcess):
    """The round generator (bench/generator.mjs)."""

    script, line_limit, event_seconds, finish_seconds = "generator.mjs", 64 * 1024 * 1024, None, 15

    @classmethod
    async def start(cls, config: dict[str, Any]) -> Generator:
        return await cls.launch({"paytable": PAYTABLE, "ante": ANTE, **config})

    async def window(self) -> Window:
        return msgspec.convert(await self.event("window"), Window)
