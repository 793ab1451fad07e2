"""What the browser tests check of any page: axe-core in the page, and screenshots against committed baselines.

axe-core is pinned in tools/node (package.json and its lock) and evaluated into the page by the DevTools protocol,
which the page's Content-Security-Policy does not govern: the page itself still loads nothing but its own files.

A screenshot matches its baseline when at most `TOLERANCE` of its pixels differ by more than `CHANNEL` in some
colour channel: the font ships with the service and animations are off (reduced motion), so what remains is
anti-aliasing that moves between Chromium builds. `make screenshots` rewrites the baselines.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from playwright.async_api import Page

from tests.support.png import pixels
from tests.support.tools import missing

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "tools" / "node" / "node_modules" / "axe-core" / "axe.min.js"
BASELINES = ROOT / "tests" / "browser" / "baselines"
CHANNEL = 48  # a pixel differs when one of its channels moves by more than this (anti-aliasing moves less)
TOLERANCE = 0.02  # the share of pixels that may differ: a changed word or card moves far more


async def axe_violations(page: Page, impacts: tuple[str, ...] = ("serious", "critical")) -> list[Any]:
    """axe-core's violations of these impacts on the page as it is now (rule id, impact, the nodes' targets)."""
    if not AXE.exists():
        missing(f"{AXE} is not installed (cd tools/node && npm ci; `make test` does)")
    await page.evaluate(AXE.read_text(encoding="utf-8"))
    found: list[Any] = await page.evaluate(
        """async () => (await axe.run(document, { resultTypes: ["violations"] })).violations.map(
            v => ({ id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(" ")) }))"""
    )
    return [v for v in found if v["impact"] in impacts]


def differing_share(shot: bytes, baseline: bytes) -> float:
    """The share of pixels that differ beyond CHANNEL (1.0 when the sizes differ)."""
    a, b = pixels(shot), pixels(baseline)
    if len(a) != len(b) or len(a[0]) != len(b[0]):
        return 1.0
    differ = sum(
        1
        for row_a, row_b in zip(a, b, strict=True)
        for p, q in zip(row_a, row_b, strict=True)
        if max(abs(p[0] - q[0]), abs(p[1] - q[1]), abs(p[2] - q[2])) > CHANNEL
    )
    return differ / (len(a) * len(a[0]))


async def matches_baseline(page: Page, name: str) -> None:
    """The page's screenshot matches tests/browser/baselines/<name>.png; RD_UPDATE_BASELINES=1 writes it instead.
    The shot is also kept under RD_SCREENSHOTS (or the baselines' folder's `latest/`) to look at by eye."""
    shot = await page.screenshot(full_page=True, animations="disabled", caret="hide")
    compare(shot, name)


def latest_folder() -> Path:
    latest = Path(os.environ.get("RD_SCREENSHOTS", BASELINES.parent / "latest"))
    latest.mkdir(parents=True, exist_ok=True)
    return latest


def compare(shot: bytes, name: str) -> None:
    """The comparison itself (plain file work, out of the event loop's async functions)."""
    baseline, kept = BASELINES / f"{name}.png", latest_folder() / f"{name}.png"
    kept.write_bytes(shot)
    # A baseline is written when asked, or when missing outside CI (a new screen); under CI a missing one fails.
    if os.environ.get("RD_UPDATE_BASELINES") == "1" or (not baseline.exists() and not os.environ.get("CI")):
        baseline.parent.mkdir(parents=True, exist_ok=True)
        baseline.write_bytes(shot)
        return
    assert baseline.exists(), f"{baseline} is missing: `make screenshots` writes it"
    share = differing_share(shot, baseline.read_bytes())
    assert share <= TOLERANCE, f"{name}: {share:.2%} of pixels differ from {baseline} (see {kept})"


async def keep_shot(page: Page, name: str) -> Path:
    """A screenshot to look at by eye, not compared (a dealt table differs every run): under RD_SCREENSHOTS or
    tests/browser/latest/."""
    path = latest_folder() / f"{name}.png"
    await page.screenshot(path=path, full_page=True, animations="disabled", caret="hide")
    return path
