"""The browser tests' fixtures: one Chromium for the module, and the app served over real HTTP."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Browser

from service.settings import Settings
from tests.support.browser import browser
from tests.support.clock import ManualClock
from tests.support.play_server import PlayServer, play_server


@pytest.fixture
async def server(settings: Settings, clock: ManualClock) -> AsyncIterator[PlayServer]:
    async with play_server(settings, clock) as served:
        yield served


@pytest.fixture
async def chromium(server: PlayServer) -> AsyncIterator[Browser]:
    """Closed before the server stops, so no page's push stream holds the server's shutdown open."""
    async with browser() as launched:
        yield launched
