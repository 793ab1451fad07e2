"""Headless Chromium for tests that look at a page: Debian's /usr/bin/chromium driven by Playwright (never a browser
Playwright downloads). `chromium()` skips the test when Chromium is absent, and fails it under CI=true."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path

from playwright.sync_api import Browser, sync_playwright

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


@contextlib.contextmanager
def chromium() -> Iterator[Browser]:
    """A running headless Chromium; close pages yourself, the browser closes on exit."""
    if not CHROMIUM.exists() and shutil.which("chromium") is None:
        missing("Chromium is not installed (apt-get install chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser
        finally:
            browser.close()
