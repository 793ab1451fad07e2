"""A clock the test moves: deadlines pass when the test says so, not after a sleep."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

TICK = timedelta(microseconds=1)


class ManualClock:
    """Starts at the real time (signatures are checked against it); each reading is a microsecond after the last,
    as on a real clock, so things done in order get times in order; it jumps only when the test says so."""

    def __init__(self, start: datetime | None = None) -> None:
        self.now = start or datetime.now(UTC)

    def __call__(self) -> datetime:
        self.now += TICK
        return self.now

    def advance(self, seconds: float) -> datetime:
        self.now += timedelta(seconds=seconds)
        return self.now

    def timestamp(self) -> int:
        """Unix seconds, for signing requests the server checks against this clock."""
        return int(self.now.timestamp())
