"""Time-ordered ids (RFC 9562 UUIDv7) for rows inserted all the time, so their index entries land together at the
right edge of each index instead of on a random page (random ids dirty a different leaf page per insert)."""

from __future__ import annotations

import secrets
from datetime import datetime
from uuid import UUID

_RAND_BITS = 74  # 12 + 62 random bits around the version and variant fields


def uuid7(at: datetime) -> UUID:
    """A UUIDv7: the Unix time of `at` in milliseconds, then 74 random bits from the OS CSPRNG."""
    millis = int(at.timestamp() * 1000) & (1 << 48) - 1
    rand = secrets.randbits(_RAND_BITS)
    value = millis << 80 | 0x7 << 76 | (rand >> 62) << 64 | 0b10 << 62 | rand & (1 << 62) - 1
    return UUID(int=value)
