"""Headless Chromium for tests that look at a page: Debian's `chromium`, driven by Playwright's Python package (never
a browser Playwright downloads).

`browser()` launches it (skipping the test when Chromium is absent, failing it under CI=true); `serve(page, client)`
answers the page's requests to `ORIGIN` from an in-process app (an httpx client, such as the tests' `http`) and
refuses every other request, so a page that works proves it needs no other origin.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
from playwright.async_api import Browser, Page, Route, async_playwright

from tests.support.tools import missing

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ORIGIN = "http://127.0.0.1:8000"  # loopback: a secure context, so WebCrypto is there as on an https site


def require_chromium() -> None:
    """Skip when Debian's chromium is not installed, with the reason; under CI=true its absence is a failure."""
    if not CHROMIUM.exists():
        missing(f"{CHROMIUM} is not installed (apt-get install -y chromium; .ci/run does)")


@contextlib.asynccontextmanager
async def browser() -> AsyncIterator[Browser]:
    """A running headless Chromium; it closes, with its pages, when the block ends."""
    require_chromium()
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield launched
        finally:
            await launched.close()


async def serve(
    page: Page, client: httpx.AsyncClient, *, rewrite: dict[bytes, bytes] | None = None, forward: bool = False
) -> list[str]:
    """Route the page's requests: ORIGIN's go to `client`, the rest are aborted. Returns the list of every URL the
    page asked for (to prove what it did not fetch). `rewrite` replaces bytes in the responses (a tampered page);
    `forward` passes on the page's request headers and body too (a page that signs its requests)."""
    asked: list[str] = []

    async def handle(route: Route) -> None:
        url = route.request.url
        asked.append(url)
        if not url.startswith(ORIGIN + "/"):
            await route.abort()
            return
        sent: dict[str, Any] = {}
        if forward:
            sent = {"headers": await route.request.all_headers(), "content": route.request.post_data_buffer}
        response = await client.request(route.request.method, url.removeprefix(ORIGIN), **sent)
        content = response.content
        for old, new in (rewrite or {}).items():
            content = content.replace(old, new)
        headers = {k: v for k, v in response.headers.items() if k.lower() not in ("content-length", "content-encoding")}
        await route.fulfill(status=response.status_code, headers=headers, body=content)

    await page.route("**/*", handle)
    return asked
