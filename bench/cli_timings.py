"""How long the command-line tools take: exact RTP, simulation, and the auditor's verify and replay of the bench's own
records (`reddog audit verify|replay --db`, reading them straight from the database as an auditor with access would)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec

SIMULATED_ROUNDS = 300_000


class Timing(msgspec.Struct, frozen=True, kw_only=True):
    command: str
    seconds: float
    exit_code: int
    per_second: float | None = None  # the work unit the command reports: rounds, audit records
    unit: str | None = None


class Timed(msgspec.Struct, frozen=True, kw_only=True):
    """A command to time: its arguments to `reddog`, and how many work units it did (for a rate)."""

    name: str
    args: tuple[str, ...]
    needs_database: bool = False
    unit: str | None = None
    units: Callable[[str, int], int] | None = None  # (stdout, audit records in the database) -> units done


def _simulated(_: str, __: int) -> int:
    return SIMULATED_ROUNDS


def _reported(field: str) -> Callable[[str, int], int]:
    """The count a `--json` report gives for `field` (records verified, rounds re-run); 0 if there is none."""

    def units(stdout: str, _: int) -> int:
        lines = [line for line in stdout.splitlines() if line.startswith("{")]
        try:
            value = msgspec.json.decode(lines[0]).get(field, 0) if lines else 0
        except (msgspec.DecodeError, AttributeError):
            return 0
        return value if isinstance(value, int) else 0

    return units


# A command the CLI does not offer is skipped, so the list may name tools ahead of their arrival.
COMMANDS = (
    Timed(name="rtp standard/v1 --decks 6", args=("rtp", "standard/v1", "--decks", "6")),
    Timed(
        name=f"simulate standard/v1 --rounds {SIMULATED_ROUNDS}",
        args=("simulate", "standard/v1", "--decks", "6", "--rounds", str(SIMULATED_ROUNDS)),
        unit="rounds",
        units=_simulated,
    ),
    Timed(
        name="audit verify --db",
        args=("audit", "verify", "--db", "--json"),
        needs_database=True,
        unit="records",
        units=_reported("records"),
    ),
    Timed(
        name="audit replay --db",
        args=("audit", "replay", "--db", "--json"),
        needs_database=True,
        unit="rounds",
        units=_reported("rounds"),
    ),
)


def reddog() -> str:
    return str(Path(sys.executable).with_name("reddog"))


def offered(args: Sequence[str]) -> bool:
    """True when `reddog` lists the command (the first word of its arguments)."""
    listing = subprocess.run([reddog(), "--help"], capture_output=True, text=True, check=False).stdout
    return re.search(rf"^\s+{re.escape(args[0])}\b", listing, re.MULTILINE) is not None


def time_commands(database_url: str, audit_records: int, commands: Sequence[Timed] = COMMANDS) -> list[Timing]:
    timings = []
    for timed in commands:
        if not offered(timed.args):
            continue
        env = {**os.environ, "DATABASE_URL": database_url} if timed.needs_database else dict(os.environ)
        started = time.monotonic()
        done = subprocess.run([reddog(), *timed.args], capture_output=True, text=True, env=env, check=False)
        seconds = time.monotonic() - started
        units = timed.units(done.stdout, audit_records) if timed.units is not None else None
        timings.append(
            Timing(
                command=f"reddog {timed.name}",
                seconds=round(seconds, 3),
                exit_code=done.returncode,
                per_second=round(units / seconds, 1) if units else None,
                unit=timed.unit,
            )
        )
    return timings
