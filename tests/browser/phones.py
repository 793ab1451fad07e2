"""Phones for the browser tests: a browser context each (its own cookies, language and screen), pointed at one app
instance, with the page's clock fixed to the app's ManualClock and every request it makes recorded."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from playwright.async_api import Browser, ConsoleMessage, Page, ViewportSize

from tests.support.clock import ManualClock

PHONE: ViewportSize = {"width": 390, "height": 844}


@dataclass
class Phone:
    page: Page
    origin: str
    asked: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    async def open(self, path: str) -> None:
        await self.page.goto(f"{self.origin}{path}")
        await self.page.wait_for_selector("#main:not(:has(#loading))")

    async def tap(self, selector: str) -> None:
        """Tap something that changes the table, and wait for the reply to show."""
        before = await self.version()
        await self.page.click(selector)
        await self.reach(before + 1)

    async def version(self) -> int:
        return int(await self.page.get_attribute("#main", "data-version") or -1)

    async def reach(self, version: int) -> None:
        """Wait until the page shows the table at `version` or later (pushed to it, or read by it)."""
        await self.page.wait_for_function(
            "v => Number(document.getElementById('main').dataset.version ?? -1) >= v", arg=version, timeout=30_000
        )


async def phone(
    chromium: Browser,
    origin: str,
    clock: ManualClock,
    *,
    viewport: ViewportSize = PHONE,
    locale: str = "en-GB",
) -> Phone:
    context = await chromium.new_context(
        viewport=viewport, locale=locale, reduced_motion="reduce", service_workers="block", has_touch=True
    )
    page = await context.new_page()
    await page.clock.set_fixed_time(clock.now)
    made = Phone(page=page, origin=origin)
    page.on("request", lambda request: made.asked.append(request.url))
    page.on("pageerror", lambda error: made.errors.append(str(error)))

    def console(message: ConsoleMessage) -> None:
        if message.type == "error":
            made.errors.append(message.text)

    page.on("console", console)
    return made


# Counts the AudioContexts the page makes: none until the player turns sound on.
COUNT_AUDIO = """
window.__audioContexts = 0;
if (window.AudioContext) {
  const Real = window.AudioContext;
  window.AudioContext = class extends Real { constructor(...args) { super(...args); window.__audioContexts += 1; } };
}
"""


async def settle(phones: list[Phone]) -> int:
    """Wait until every phone shows the newest version any of them shows (a move's reply reaches its own phone at
    once, the others by the push stream); that version."""
    newest = max([await p.version() for p in phones])
    for p in phones:
        await p.reach(newest)
    return newest


async def tap_a_move(p: Phone, bet: bool) -> str | None:
    """Make the move the page offers, by tapping: an ace high, the first pair call, the least bet (when `bet`) or a
    pass; the move made, or None if the page offers none."""
    moves = p.page.locator("[data-move]")
    offered = [await moves.nth(i).get_attribute("data-move") or "" for i in range(await moves.count())]
    if not offered:
        return None
    if "call_ace:high" in offered:
        choice = "call_ace:high"
    elif offered[0].startswith("call_pair"):
        choice = offered[0]
    else:
        choice = "bet" if bet else "pass"
    await p.tap(f"[data-move='{choice}']")
    return choice


async def play_to_the_end(phones: list[Phone], seated: int, between: Callable[[int], Awaitable[None]]) -> int:
    """The first `seated` phones tap their moves until the game is over (each bets the least on its first bet and
    passes after); `between(moves made)` runs after every move. How many moves the people made."""
    made, betted = 0, set()
    for _ in range(400):
        await settle(phones)
        if await phones[0].page.get_attribute("#main", "data-status") == "over":
            return made
        for index, p in enumerate(phones[:seated]):
            choice = await tap_a_move(p, index not in betted)
            if choice is not None:
                made += 1
                if choice == "bet":
                    betted.add(index)
                await between(made)
                break
        else:
            raise AssertionError("no phone offers a move and the game is not over")
    raise AssertionError("the game did not end in 400 moves")
