"""Query values every layer below can hold: a time that stays in the calendar once in UTC, a seq within a bigint.

A value past these is refused here as a 400, not left for the driver to fail on as a 500 (issue 21, item 5).
"""

from __future__ import annotations

from datetime import UTC, datetime

from service.errors import ApiError

MAX_SEQ = 2**63 - 1  # seq and tree sizes are PostgreSQL bigints: one more does not fit the driver's int8
WITH_OFFSET = "ISO 8601; one without a zone is read as UTC; between 0001-01-01 and 9999-12-31 in UTC"


def query_time(name: str, value: datetime | None) -> datetime | None:
    """A time to compare in SQL, in UTC: one without a zone is read as UTC (as documented), and it must lie in the
    range every layer can hold once in UTC (0001-01-01T00:00:00+14:00 is the year 0 there)."""
    if value is None:
        return None
    if value.utcoffset() is None:
        value = value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except OverflowError:
        raise ApiError(400, "VALIDATION_ERROR", f"{name}: outside 0001-01-01..9999-12-31 in UTC") from None
