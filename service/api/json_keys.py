"""Find a key given twice in one JSON object: msgspec keeps the last silently, so `"mode":"live","mode":"test"`
would mean whatever the last copy says, and two readers of the same signed bytes could disagree.

The standard library's C parser reads the body a second time and hands each object's pairs to a hook. Measured
(tests/benchmarks/bench_json_keys.py) it costs a few microseconds a body, less than a regular-expression scan of
the keys that tried to avoid a second parse (see the report of issue 7).
"""

from __future__ import annotations

import json
from typing import Any


class _Repeated(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _pairs(pairs: list[tuple[str, Any]]) -> None:
    if len(pairs) > 1:
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _Repeated(key)
            seen.add(key)


def repeated_key(raw: bytes) -> str | None:
    """The first key found twice in one object of `raw`, or None (also for anything that is not JSON)."""
    try:
        json.loads(raw, object_pairs_hook=_pairs)
    except _Repeated as repeated:
        return repeated.key
    except (ValueError, RecursionError):  # not JSON: msgspec says what is wrong with it
        return None
    return None
