"""`reddog` run as an operator runs it, in a process of its own: against a database, and with the fork guard's
checkpoint store in its environment (as the service's own: the command keeps the decision in the same store)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path


async def reddog(database_url: str, *args: str, **env_vars: str) -> tuple[int, str, str]:
    """The installed command's exit status, stdout and stderr."""
    command = Path(sys.executable).with_name("reddog")
    env = {**os.environ, "DATABASE_URL": database_url, **env_vars}
    process = await asyncio.create_subprocess_exec(
        str(command), *args, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def reddog_with_store(database_url: str, store: Path, *args: str) -> tuple[int, str, str]:
    return await reddog(database_url, *args, RD_CHECKPOINT_STORE=str(store))
