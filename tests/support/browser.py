"""Headless Chromium for the tests: Debian's `chromium`, driven by Playwright's Python package (no browser download).

`browser()` launches it; `serve(page, client)` answers the page's requests to `ORIGIN` from an in-process app (an
httpx client, such as the tests' signed one) and refuses every other request, counting what was asked for.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from playwright.async_api import Browser, Page, Route, async_playwright

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
    if CHROMIUM.exists():
        return
    reason = f"{CHROMIUM} is not installed (apt-get install -y chromium; .ci/run does)"
    if os.environ.get("CI") == "true":
        pytest.fail(reason)
    pytest.skip(reason)


@contextlib.asynccontextmanager
async def browser() -> AsyncIterator[Browser]:
    require_chromium()
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield launched
        finally:
            await launched.close()


async def serve(page: Page, client: httpx.AsyncClient, *, rewrite: dict[bytes, bytes] | None = None) -> list[str]:
    """Route the page's requests: ORIGIN's go to `client`, the rest are aborted. Returns the list of every URL the
    page asked for (to prove what it did not fetch). `rewrite` replaces bytes in the responses (a tampered page)."""
    asked: list[str] = []

    async def handle(route: Route) -> None:
        url = route.request.url
        asked.append(url)
        if not url.startswith(ORIGIN + "/"):
            await route.abort()
            return
        response = await client.request(route.request.method, url.removeprefix(ORIGIN))
        content = response.content
        for old, new in (rewrite or {}).items():
            content = content.replace(old, new)
        headers = {k: v for k, v in response.headers.items() if k.lower() not in ("content-length", "content-encoding")}
        await route.fulfill(status=response.status_code, headers=headers, body=content)

    await page.route("**/*", handle)
    return asked
