"""The friends' In Between page in Debian's Chromium: phones (a browser context each) that open a table, join it
by its code and by its link, watch it, play it to the end with a computer seat and start a rematch."""

from __future__ import annotations

import re

from playwright.async_api import Browser, ViewportSize

from tests.browser.phones import COUNT_AUDIO, Phone, phone, play_to_the_end, settle
from tests.support.clock import ManualClock
from tests.support.page_checks import axe_violations, keep_shot, matches_baseline
from tests.support.play_server import PlayServer

HOST_NAME = "<b>Sita</b>"  # markup typed as a name is shown as the text it is
MASKED = ["#table-code", "#share-link", ".qr", "#watch-link"]  # the table's code differs every run


async def open_table(host: Phone, **terms: str) -> str:
    await host.open("/play/inbetween")
    await host.page.fill("#create-name", HOST_NAME)
    for name, value in terms.items():
        await host.page.select_option(f"#create-{name}", value)
    await host.page.click("#create-form button[type=submit]")
    await host.page.wait_for_selector("#table-code")
    return (await host.page.text_content("#table-code") or "").replace("-", "")


async def no_serious_violations(p: Phone) -> None:
    assert await axe_violations(p.page) == []


async def test_three_phones_join_by_code_and_by_link_play_a_whole_game_with_a_computer_and_start_a_rematch(
    chromium: Browser, server: PlayServer, clock: ManualClock
) -> None:
    host, by_code, by_link, watcher = [await phone(chromium, server.origin, clock) for _ in range(4)]
    for p in (host, by_code, by_link):
        await p.page.context.add_init_script(COUNT_AUDIO)
    code = await open_table(host, rounds="5", seats="4")
    assert await host.page.get_attribute("#share-link", "value") == f"{server.origin}/play/inbetween?code={code}"

    await by_code.open("/play/inbetween")
    await by_code.page.fill("#join-code", f"{code[:4].lower()}-{code[4:].lower()}")  # typed as read aloud
    await by_code.page.fill("#join-name", "राम")
    await by_code.page.click("#join-form button[type=submit]")
    await by_code.page.wait_for_selector("#table-code")
    await by_link.open(f"/play/inbetween?code={code}")
    assert await by_link.page.input_value("#join-code") == code  # the link fills the code in
    await by_link.page.fill("#join-name", "Gita")
    await by_link.page.click("#join-form button[type=submit]")
    await by_link.page.wait_for_selector("#table-code")
    await watcher.open(f"/play/inbetween?watch={code}")
    await settle([host, by_code, by_link, watcher])
    names = await host.page.locator("#players .player-name").all_text_contents()
    assert names == [HOST_NAME, "राम", "Gita"]  # the host's name is text: no <b> element was made of it
    assert await host.page.locator("#players b").count() == 0
    await keep_shot(host.page, "lobby-390x844")
    await no_serious_violations(host)
    assert await by_code.page.locator("#start").count() == 0  # only the host starts
    assert await watcher.page.locator("#spectating").count() == 1

    await host.tap("#start")
    phones = [host, by_code, by_link, watcher]
    await settle(phones)
    names = await watcher.page.locator("#players .player-name").all_text_contents()
    assert names == [HOST_NAME, "राम", "Gita", "Computer 4"]  # the empty seat is the computer's
    await no_serious_violations(host)

    async def between(made: int) -> None:
        if made == 2:
            for p in phones:
                if await p.page.locator("[data-move]").count():
                    await keep_shot(p.page, "table-to-act-390x844")
            await keep_shot(watcher.page, "table-watching-390x844")
        if made == 3:  # a refresh mid-game keeps the seat: the cookie finds it again
            await by_code.page.reload()
            await by_code.page.wait_for_selector("#players")
            you = by_code.page.locator("#players [data-seat='1'] .marks")
            assert "you" in (await you.text_content() or "")
            assert await by_code.page.locator("#spectating").count() == 0
        assert await watcher.page.locator("[data-move]").count() == 0  # a spectator never gets a move

    made = await play_to_the_end(phones, 3, between)
    assert made >= 10  # five rounds of three people's turns, less any turn an ending cut short
    for p in phones:
        assert await p.page.locator("#ending").count() == 1
        assert (await p.page.text_content("#winners") or "").startswith(("Winner: ", "Winners: "))
    await keep_shot(host.page, "ending-390x844")
    replay = await phone(chromium, server.origin, clock)
    await replay.open(f"/play/inbetween/replay?code={code}")
    await replay.page.wait_for_selector("#pack-check")
    assert await replay.page.get_attribute("#pack-check", "data-state") == "verified"  # SHA-256(salt || order)
    assert await replay.page.get_attribute("#chain-check", "data-state") == "verified"
    assert await replay.page.locator("#replay-turns li").count() >= made
    await keep_shot(replay.page, "replay-390x844")
    await replay.page.click("#colours")  # four colours: every suit its own
    assert await replay.page.get_attribute("#colours", "aria-pressed") == "true"
    fills = await replay.page.eval_on_selector_all(
        "svg.card[data-card]",
        "cards => cards.map(c => [c.dataset.card[1], c.querySelector('path').getAttribute('fill')])",
    )
    assert {(suit, fill) for suit, fill in fills} == {
        ("S", "#1a1a1a"),
        ("H", "#c8102e"),
        ("D", "#0b57d0"),
        ("C", "#137333"),
    }
    labels = await replay.page.eval_on_selector_all("svg.card[data-card]", "cards => cards.map(c => c.ariaLabel)")
    assert all(re.fullmatch(r"(Ace|Jack|Queen|King|[2-9]|10) of (spades|hearts|diamonds|clubs)", x) for x in labels)
    await no_serious_violations(replay)
    assert await host.page.get_attribute("#replay-link", "href") == f"/play/inbetween/replay?code={code}"
    await no_serious_violations(host)

    await host.tap("#rematch")  # the same seats, a new game
    await settle(phones)
    for p in phones:
        assert await p.page.get_attribute("#main", "data-status") == "playing"
    assert await watcher.page.locator("#players .player-name").all_text_contents() == names

    for p in phones:
        assert p.errors == []
        assert [u for u in p.asked if not u.startswith(server.origin + "/") and not u.startswith("data:")] == []
    for p in (host, by_code, by_link):  # sound is off until asked for: no audio was ever made
        assert await p.page.evaluate("window.__audioContexts") == 0
        assert await p.page.get_attribute("#sound", "aria-pressed") == "false"


async def test_the_start_page_fits_every_screen_without_scrolling_sideways_and_matches_its_baseline(
    chromium: Browser, server: PlayServer, clock: ManualClock
) -> None:
    for width, height in [(390, 844), (320, 568), (1200, 675)]:
        await fits(chromium, server, clock, width, height)


async def fits(chromium: Browser, server: PlayServer, clock: ManualClock, width: int, height: int) -> None:
    p = await phone(chromium, server.origin, clock, viewport=ViewportSize(width=width, height=height))
    await p.open("/play/inbetween")
    assert await p.page.evaluate("document.documentElement.scrollWidth") <= width
    await matches_baseline(p.page, f"start-{width}x{height}")
    await no_serious_violations(p)
    # By keyboard alone: the name field, typed, and Enter opens the table.
    await p.page.focus("#create-name")
    await p.page.keyboard.type("Asha")
    await p.page.keyboard.press("Enter")
    await p.page.wait_for_selector("#table-code")
    assert await p.page.evaluate("document.documentElement.scrollWidth") <= width
    await keep_shot(p.page, f"lobby-{width}x{height}")
    await no_serious_violations(p)


async def test_a_nepali_phone_opens_the_page_in_nepali_with_its_own_font_and_switches_to_english_for_good(
    chromium: Browser, server: PlayServer, clock: ManualClock
) -> None:
    p = await phone(chromium, server.origin, clock, locale="ne-NP")
    await p.open("/play/inbetween")
    assert await p.page.get_attribute("html", "lang") == "ne"
    assert await p.page.text_content("h1") == "इन बिटविन"
    assert await p.page.text_content("#create-form button[type=submit]") == "टेबल खोल्नुहोस्"
    assert await p.page.text_content("#create-rounds option[value='10']") == "१०"  # Devanagari digits
    # The Devanagari is drawn by the font the service ships (loaded from its own origin), not a system fallback.
    assert await p.page.evaluate("document.fonts.check('16px \"RD Sans\"', 'इन बिटविन')")
    assert any(u.endswith("noto-sans-devanagari-devanagari-400-normal.woff2") for u in p.asked)
    assert await p.page.evaluate("document.documentElement.scrollWidth") <= 390
    assert await p.page.evaluate("[...document.querySelectorAll('button')].every(b => b.scrollWidth <= b.clientWidth)")
    await matches_baseline(p.page, "start-ne-390x844")
    await no_serious_violations(p)
    await p.page.click("#lang")
    # A function, not a bare expression: Playwright evals an expression each time it polls, which the CSP refuses.
    await p.page.wait_for_function("() => document.documentElement.lang === 'en'")
    assert await p.page.text_content("h1") == "In Between"
    await p.page.reload()
    await p.page.wait_for_selector("#create-form")
    assert await p.page.text_content("h1") == "In Between"  # the choice is remembered
    assert p.errors == []
