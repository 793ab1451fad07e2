"""The PAR sheet `reddog report par` writes renders in headless Chromium under `Content-Security-Policy: default-src
'none'`: nothing refused, nothing fetched, every section and plot on the page."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from playwright.async_api import ConsoleMessage, Page, Route

from tests.support.browser import ORIGIN, browser

POLICY = "default-src 'none'"
SECTIONS = [
    "The game and its paytable",
    "Key figures",
    "The optimal raise strategy",
    "Every outcome, under optimal play",
    "Distribution of the net per initial ante",
    "Rounds until the observed RTP settles",
    "A hand per seat: the counting player (2 seats)",
    "How the figures are made",
]


@dataclass
class Seen:
    """What the page did: every request it made, every console line, every script error."""

    requests: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


async def open_under_policy(page: Page, document: bytes) -> Seen:
    """Serve `document` at ORIGIN/par.html with the policy header; refuse (and record) every other request."""
    seen = Seen()

    async def handle(route: Route) -> None:
        if route.request.url == f"{ORIGIN}/par.html":
            headers = {"content-type": "text/html; charset=utf-8", "content-security-policy": POLICY}
            await route.fulfill(status=200, headers=headers, body=document)
        else:
            await route.abort()

    def console(message: ConsoleMessage) -> None:
        seen.console.append(f"{message.type}: {message.text}")

    page.on("request", lambda request: seen.requests.append(request.url))
    page.on("console", console)
    page.on("pageerror", lambda error: seen.errors.append(str(error)))
    await page.route("**/*", handle)
    await page.goto(f"{ORIGIN}/par.html", wait_until="load")
    await page.wait_for_timeout(200)  # a refusal is reported to the console just after the load
    return seen


def write_sheet(tmp_path: Path) -> bytes:
    """The real command in its own process, as a lab would run it."""
    out = tmp_path / "par.html"
    command = ["report", "par", "post-double/v1", "--decks", "1", "--deal", "per_seat", "--seats", "2"]
    argv = [sys.executable, "-m", "service.cli.cli", *command, "--out", str(out)]
    subprocess.run(argv, check=True, timeout=120)  # noqa: S603 - our own interpreter and fixed arguments
    return out.read_bytes()


async def test_the_sheet_renders_under_default_src_none_with_nothing_refused_or_fetched(tmp_path: Path) -> None:
    document = write_sheet(tmp_path)
    async with browser() as chromium:
        page = await chromium.new_page(viewport={"width": 1000, "height": 800})
        seen = await open_under_policy(page, document)
        text = await page.inner_text("body")
        plots = [await svg.bounding_box() for svg in await page.locator("svg").all()]
        title = await page.title()
    assert seen.requests == [f"{ORIGIN}/par.html"]
    assert seen.console == []
    assert seen.errors == []
    assert title == "Red Dog PAR sheet: post-double/v1, 1 deck(s), a hand per seat, 2 seats"
    for section in SECTIONS:
        assert section in text
    assert "2031c10314b67826535293ee2863679a9d7d346d8b6bcb211c0dd22fefca989c" in text  # post-double/v1's sha256
    assert "Where the RTP comes from" in text  # an SVG plot's own text, drawn
    assert len(plots) == 4
    assert all(box is not None and box["width"] > 600 and box["height"] > 100 for box in plots)


async def test_the_same_watch_sees_a_page_the_policy_refuses() -> None:
    # The check above could pass by hearing nothing: the same listeners hear an inline style and an image refused.
    document = b'<!DOCTYPE html><html><head><style>p { color: red }</style></head><body><img src="/x.png"><p>x</p>'
    async with browser() as chromium:
        page = await chromium.new_page()
        seen = await open_under_policy(page, document)
    refused = [line for line in seen.console if "Content Security Policy" in line]
    assert any("style" in line for line in refused), seen.console
    assert any("image" in line.lower() or "img-src" in line for line in refused), seen.console
