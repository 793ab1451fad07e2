"""The friends' page as `make run` serves it: a real `reddog serve` process, and three phones (browser contexts in
Debian's Chromium) that open a table, join it by its code and its link, and play it to the end together."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.browser.phones import phone, play_to_the_end, settle
from tests.support.browser import browser
from tests.support.clock import ManualClock
from tests.support.scratch import Database, verified_scratch_database
from tests.support.served import served


@pytest.fixture
async def database(database_server: str) -> AsyncIterator[Database]:
    async with verified_scratch_database(database_server) as database:
        yield database


async def test_three_phones_play_a_whole_game_on_a_served_page(database: Database, tmp_path: Path) -> None:
    with served(database.app_url, tmp_path / "serve") as server:
        async with browser() as chromium:
            clock = ManualClock()  # the pages' own clocks only: the server keeps real time
            host, guest, linked = [await phone(chromium, server.api_url, clock) for _ in range(3)]
            await host.open("/play/inbetween")
            await host.page.fill("#create-name", "Sita")
            await host.page.select_option("#create-rounds", "5")
            await host.page.select_option("#create-seats", "3")
            await host.page.click("#create-form button[type=submit]")
            await host.page.wait_for_selector("#table-code")
            code = (await host.page.text_content("#table-code") or "").replace("-", "")
            link = await host.page.get_attribute("#share-link", "value")
            assert link == f"{server.api_url}/play/inbetween?code={code}"  # RD_PUBLIC_URL unset: the server's own
            await guest.open("/play/inbetween")
            await guest.page.fill("#join-code", code)
            await guest.page.fill("#join-name", "राम")
            await guest.page.click("#join-form button[type=submit]")
            await guest.page.wait_for_selector("#table-code")
            await linked.open(link.removeprefix(server.api_url))
            await linked.page.fill("#join-name", "Gita")
            await linked.page.click("#join-form button[type=submit]")
            await linked.page.wait_for_selector("#table-code")
            phones = [host, guest, linked]
            await settle(phones)
            await host.tap("#start")

            async def between(_: int) -> None:
                return None

            made = await play_to_the_end(phones, 3, between)
            await settle(phones)
            for p in phones:
                assert await p.page.get_attribute("#main", "data-status") == "over"
                assert p.errors == []
                assert all(url.startswith(server.api_url) for url in p.asked)  # nothing from another origin
            # No bound of a move a round: a player whose posts are side by side makes none (the turn passes).
            assert made > 0
