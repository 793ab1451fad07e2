"""Round ids are RFC 9562 UUIDv7: the opening millisecond first, so ids sort by time; the rest random."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from service.time_ordered_ids import uuid7

AT = datetime(2026, 11, 30, 9, 30, 0, 123456, tzinfo=UTC)


def test_the_id_is_a_version_7_rfc_9562_uuid_whose_first_48_bits_are_the_unix_milliseconds() -> None:
    made = uuid7(AT)
    assert made.version == 7
    assert made.variant == "specified in RFC 4122"
    days = (date(2026, 11, 30) - date(1970, 1, 1)).days  # the calendar, not datetime.timestamp()
    assert made.int >> 80 == days * 86_400_000 + (9 * 3600 + 30 * 60) * 1000 + 123


def test_ids_made_later_sort_after_and_ids_made_in_one_millisecond_differ() -> None:
    times = [AT + timedelta(milliseconds=m) for m in (0, 1, 2, 1000, 86_400_000)]
    made = [uuid7(t) for t in times]
    assert made == sorted(made)
    assert len({uuid7(AT) for _ in range(1000)}) == 1000
