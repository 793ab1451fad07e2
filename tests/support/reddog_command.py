"""`reddog` run as an operator runs it, in a process of its own, with the fork guard's checkpoint store in its
environment (as the service's own: the command keeps the decision in the same store)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path


async def reddog_with_store(database_url: str, store: Path, *args: str) -> tuple[int, str, str]:
    command = Path(sys.executable).with_name("reddog")
    env = {**os.environ, "DATABASE_URL": database_url, "RD_CHECKPOINT_STORE": str(store)}
    process = await asyncio.create_subprocess_exec(
        str(command), *args, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()
