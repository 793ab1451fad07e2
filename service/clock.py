"""The one source of the time: the system clock in production, a clock the test moves in tests."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]  # an aware UTC datetime


def system_clock() -> datetime:
    return datetime.now(UTC)
