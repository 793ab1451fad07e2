"""Read the pixels of a PNG screenshot (8-bit RGB or RGBA, not interlaced) with the standard library alone."""

from __future__ import annotations

import struct
import zlib

Pixel = tuple[int, int, int]


def pixels(png: bytes) -> list[list[Pixel]]:
    """Rows of (r, g, b); alpha is dropped."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    at, idat, header = 8, b"", b""
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind, data = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        if kind == b"IHDR":
            header = data
        elif kind == b"IDAT":
            idat += data
        at += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert (depth, colour in (2, 6), interlace) == (8, True, 0), "an 8-bit RGB or RGBA PNG, not interlaced"
    channels = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(idat), width * channels
    rows: list[bytearray] = []
    previous = bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        row = _unfilter(raw[start], bytearray(raw[start + 1 : start + 1 + stride]), previous, channels)
        rows.append(row)
        previous = row
    return [[(r[i], r[i + 1], r[i + 2]) for i in range(0, stride, channels)] for r in rows]


def _unfilter(kind: int, row: bytearray, above: bytearray, bpp: int) -> bytearray:
    for i in range(len(row)):
        left = row[i - bpp] if i >= bpp else 0
        up, corner = above[i], above[i - bpp] if i >= bpp else 0
        if kind == 1:
            row[i] = (row[i] + left) & 0xFF
        elif kind == 2:
            row[i] = (row[i] + up) & 0xFF
        elif kind == 3:
            row[i] = (row[i] + (left + up) // 2) & 0xFF
        elif kind == 4:
            row[i] = (row[i] + _paeth(left, up, corner)) & 0xFF
    return row


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c
