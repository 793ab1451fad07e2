"""Find a key given twice in one JSON object: msgspec keeps the last silently, so `"mode":"live","mode":"test"`
would mean whatever the last copy says, and two readers of the same signed bytes could disagree.

The standard library's C parser reads the body a second time and hands each object's pairs to a hook. Measured
(tests/benchmarks/bench_json_keys.py) it costs a few microseconds a body, less than a regular-expression scan of
the keys that tried to avoid a second parse (see the report of issue 7). A compact body, as clients send, needs no
second parse at all: if msgspec's own decoding, encoded again, gives back the very bytes, no object in them holds a
key twice (a dict cannot, and equal bytes are equal pairs); anything else takes the standard library's way.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec


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


_decode = msgspec.json.Decoder().decode
_encode = msgspec.json.Encoder().encode


def repeated_key(raw: bytes) -> str | None:
    """The first key found twice in one object of `raw`, or None (also for anything that is not JSON)."""
    try:
        if _encode(_decode(raw)) == raw:
            return None
    except (msgspec.DecodeError, msgspec.EncodeError, RecursionError):
        pass  # the standard library's parser has the last word
    try:
        json.loads(raw, object_pairs_hook=_pairs)
    except _Repeated as repeated:
        return repeated.key
    except (ValueError, RecursionError):  # not JSON: msgspec says what is wrong with it
        return None
    return None
