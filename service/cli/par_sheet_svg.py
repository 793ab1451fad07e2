"""The PAR sheet's plots as inline SVG: presentation attributes only, no style, no script, no link, no namespace URL.

A page under `Content-Security-Policy: default-src 'none'` may show them (a style element or attribute would be
refused); colours from the Okabe-Ito palette, which survives colour blindness, and every plot has a title for a
screen reader.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

BLUE, ORANGE, GREEN, VERMILION, PURPLE, GREY = "#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#999999"
FONT = 'font-family="sans-serif" font-size="12"'
WIDTH = 720
LABELS = 190  # room for the row labels of a bar chart
ROW = 20


def _open(title: str, height: int, chart_id: str) -> str:
    return (
        f'<svg id="{chart_id}" width="{WIDTH}" height="{height}" viewBox="0 0 {WIDTH} {height}" role="img" '
        f'aria-labelledby="{chart_id}-title"><title id="{chart_id}-title">{escape(title)}</title>'
        f'<rect x="0" y="0" width="{WIDTH}" height="{height}" fill="#ffffff"/>'
    )


def _text(x: float, y: float, text: str, anchor: str = "start", fill: str = "#000000") -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" {FONT} text-anchor="{anchor}" fill="{fill}">{escape(text)}</text>'


def bars(chart_id: str, title: str, rows: Sequence[tuple[str, float, str]]) -> str:
    """Horizontal bars, one per (label, value, value as text), scaled to the largest value."""
    top = max((v for _, v, _ in rows), default=0.0) or 1.0
    span = WIDTH - LABELS - 110
    height = 30 + ROW * len(rows)
    parts = [_open(title, height, chart_id), _text(4, 16, title)]
    for i, (label, value, shown) in enumerate(rows):
        y = 26 + ROW * i
        length = span * max(value, 0.0) / top
        parts += [
            _text(LABELS - 6, y + 13, label, "end"),
            f'<rect x="{LABELS}" y="{y + 2}" width="{length:.2f}" height="{ROW - 5}" fill="{BLUE}"/>',
            _text(LABELS + length + 4, y + 13, shown),
        ]
    return "".join(parts) + "</svg>"


def stacked_bars(
    chart_id: str, title: str, legend: Sequence[tuple[str, str]], rows: Sequence[tuple[str, Sequence[float]]]
) -> str:
    """Horizontal bars split into parts, one colour each as `legend` (name, colour) says."""
    top = max((sum(parts) for _, parts in rows), default=0.0) or 1.0
    span = WIDTH - LABELS - 20
    height = 50 + ROW * len(rows)
    out = [_open(title, height, chart_id), _text(4, 16, title)]
    x = 4.0
    for name, colour in legend:
        out += [f'<rect x="{x:.1f}" y="24" width="12" height="12" fill="{colour}"/>', _text(x + 16, 34, name)]
        x += 22 + 7 * len(name)
    for i, (label, parts) in enumerate(rows):
        y, left = 46 + ROW * i, float(LABELS)
        out.append(_text(LABELS - 6, y + 13, label, "end"))
        for value, (_, colour) in zip(parts, legend, strict=True):
            length = span * value / top
            out.append(f'<rect x="{left:.2f}" y="{y + 2}" width="{length:.2f}" height="{ROW - 5}" fill="{colour}"/>')
            left += length
    return "".join(out) + "</svg>"


def columns(chart_id: str, title: str, points: Sequence[tuple[str, float, str]]) -> str:
    """Vertical columns, one per (label under it, value, value as text over it)."""
    top = max((v for _, v, _ in points), default=0.0) or 1.0
    height, base, room = 260, 220, 170
    step = (WIDTH - 40) / max(len(points), 1)
    out = [_open(title, height, chart_id), _text(4, 16, title)]
    for i, (label, value, shown) in enumerate(points):
        x = 20 + step * i
        tall = room * value / top
        out += [
            f'<rect x="{x + 4:.1f}" y="{base - tall:.1f}" width="{step - 8:.1f}" height="{tall:.1f}" fill="{GREEN}"/>',
            _text(x + step / 2, base - tall - 4, shown, "middle"),
            _text(x + step / 2, base + 16, label, "middle"),
        ]
    out.append(f'<line x1="20" y1="{base}" x2="{WIDTH - 20}" y2="{base}" stroke="#000000"/>')
    return "".join(out) + "</svg>"


def convergence(chart_id: str, title: str, sigma: float, curves: Sequence[tuple[str, float, str]]) -> str:
    """How far from the exact RTP the observed one may lie after n rounds, z * sigma / sqrt(n), for each (name, z,
    colour), on log axes from 10^2 to 10^9 rounds, with the 0.5% and 0.1% tolerances drawn across."""
    height, left, right, top, bottom = 320, 60, WIDTH - 20, 30, 280
    low_n, high_n, low_w, high_w = 2.0, 9.0, -4.0, 0.0  # log10 of rounds, log10 of the half-width

    def at(n_log: float, w_log: float) -> tuple[float, float]:
        x = left + (right - left) * (n_log - low_n) / (high_n - low_n)
        y = top + (bottom - top) * (high_w - w_log) / (high_w - low_w)
        return x, y

    out = [_open(title, height, chart_id), _text(4, 16, title)]
    out.append(f'<rect x="{left}" y="{top}" width="{right - left}" height="{bottom - top}" fill="none" stroke="#000"/>')
    for n_log in range(2, 10):
        x, _ = at(n_log, low_w)
        out += [
            f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" stroke="#dddddd"/>',
            _text(x, bottom + 16, f"10^{n_log}", "middle"),
        ]
    for w_log in range(-4, 1):
        _, y = at(low_n, w_log)
        out.append(_text(left - 4, y + 4, f"{100 * 10**w_log:g}%", "end"))
    for tolerance in (0.005, 0.001):
        _, y = at(low_n, math.log10(tolerance))
        out += [
            f'<line x1="{left}" y1="{y:.1f}" x2="{right}" y2="{y:.1f}" stroke="{GREY}" stroke-dasharray="4 3"/>',
            _text(right - 4, y - 4, f"±{100 * tolerance:g}%", "end"),
        ]
    for i, (name, z, colour) in enumerate(curves):
        points = [at(n / 10, math.log10(z * sigma / 10 ** (n / 20))) for n in range(20, 91)]
        path = " ".join(f"{x:.1f},{y:.1f}" for x, y in points if top <= y <= bottom)
        out += [
            f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>',
            _text(
                left + 10,
                top + 16 + 16 * i,
                f"{name}: z \N{MIDDLE DOT} \N{GREEK SMALL LETTER SIGMA} / \N{SQUARE ROOT}n",
                fill=colour,
            ),
        ]
    out.append(_text((left + right) / 2, height - 4, "rounds of one bet (n)", "middle"))
    return "".join(out) + "</svg>"
