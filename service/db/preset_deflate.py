"""Bytes stored deflated with a preset dictionary: the dictionary's number (one byte), then raw deflate at level 1
primed with it. Used where the service stores JSON whose keys and shape repeat from one row to the next (a key's
reply, migration 019; a round's state, migration 026), which PostgreSQL itself compresses only past about 2 KB a
row. A number's dictionary never changes: a better one is added under a new number, and old rows still inflate."""

from __future__ import annotations

import zlib
from collections.abc import Mapping


def deflate(data: bytes, number: int, dictionaries: Mapping[int, bytes]) -> bytes:
    """`data` as stored: the number of its dictionary, then raw deflate primed with that dictionary."""
    deflater = zlib.compressobj(1, zlib.DEFLATED, -15, 8, zlib.Z_DEFAULT_STRATEGY, dictionaries[number])
    return bytes((number,)) + deflater.compress(data) + deflater.flush()


def inflate(stored: bytes, dictionaries: Mapping[int, bytes]) -> bytes:
    """The exact bytes back from `deflate`'s, whichever dictionary they name."""
    inflater = zlib.decompressobj(-15, zdict=dictionaries[stored[0]])
    return inflater.decompress(stored[1:]) + inflater.flush()
