"""The friends' page beyond the plain turn: the reactions drawn as pictures that fit a row on every screen, the host's
hand-over of a seat to the computer and back, the split and keep-pair choices of pagat-split/v1, the agreement to
stop of pagat-ante/v2 and the face-down posts of pagat-down/v1. The cards are forced through the API (`forced_cards`
on start: the test server allows test tables), on the host's own cookie, so no walk waits for a pair by chance."""

from __future__ import annotations

from typing import Any

from playwright.async_api import Browser, TimeoutError, ViewportSize

from tests.browser.phones import Phone, phone, settle
from tests.support.clock import ManualClock
from tests.support.page_checks import axe_violations, keep_shot
from tests.support.play_server import PlayServer

REACTIONS = ["clap", "laugh", "wow", "sad", "fire", "namaste"]  # docs/friends-api.md, "Reactions"
SCREENS = [(320, 568), (390, 844), (1200, 675)]
# "2H" is place 1 of the canonical deck (2S 2H 2D 2C 3S ...): at two seats, 1 mod 2 is seat 1, which deals, so the
# host in seat 0 plays first, on the pair of eights. A split's first hand takes the 2D, its second the KD.
# the dealer card, Hari's pair, the split hands' second posts, then Gita's posts: a spread, so her turn waits for her
# (random posts side by side passed it, and the next round's, pushing "Hari passes." out of the log's last 8 lines)
PAIR_FIRST = ["2H", "8S", "8H", "2D", "KD", "3C", "QC"]


async def host_a_table(p: Phone, name: str, ruleset: str, seats: int) -> str:
    await p.open("/play/inbetween")
    await p.page.fill("#create-name", name)
    await p.page.select_option("#create-ruleset", ruleset)
    await p.page.select_option("#create-seats", str(seats))
    await p.page.click("#create-form button[type=submit]")
    await p.page.wait_for_selector("#start")
    return (await p.page.text_content("#table-code") or "").replace("-", "")


async def join_table(p: Phone, code: str, name: str) -> None:
    await p.open(f"/play/inbetween?code={code}")
    await p.page.fill("#join-name", name)
    await p.page.click("#join-form button[type=submit]")
    await p.page.wait_for_selector("#table-code")


async def seat_a_guest_without_a_page(chromium: Browser, origin: str, code: str) -> None:
    """A second person at the table (by the API alone): after the host's turn the game waits for Gita, so the log
    ends with what the host did."""
    context = await chromium.new_context()
    reply = await context.request.post(f"{origin}/v1/friends/tables/{code}/join", data={"name": "Gita", "bearer": True})
    assert reply.status == 201, await reply.text()


async def start_with(host: Phone, origin: str, code: str, cards: list[str]) -> None:
    """Start the game with the pack's first cards chosen, as the host (the page's own context: its seat cookie)."""
    before = await host.version()
    reply = await host.page.request.post(f"{origin}/v1/friends/tables/{code}/start", data={"forced_cards": cards})
    assert reply.status == 200, await reply.text()
    await host.reach(before + 1)


async def start_against_a_guest(
    chromium: Browser, server: PlayServer, clock: ManualClock, name: str, ruleset: str, cards: list[str], **kw: Any
) -> tuple[Phone, str]:
    """A two-seat table: the host's phone (`kw` for `phone`), Gita seated by the API alone, the game started on
    `cards`; the host's phone and the table's code."""
    host = await phone(chromium, server.origin, clock, **kw)
    code = await host_a_table(host, name, ruleset, 2)
    await seat_a_guest_without_a_page(chromium, server.origin, code)
    await start_with(host, server.origin, code, cards)
    return host, code


async def log_lines(p: Phone) -> list[str]:
    return await p.page.locator("#log li").all_text_contents()


async def logged(p: Phone, line: str) -> None:
    """Wait until the move log tells `line` (a move's reply shows at once, its records a read later)."""
    try:
        await p.page.wait_for_function(
            "line => [...document.querySelectorAll('#log li')].some(li => li.textContent === line)",
            arg=line,
            timeout=10_000,
        )
    except TimeoutError:
        raise AssertionError(f"{line!r} is not in the log: {await log_lines(p)}") from None


async def offered(p: Phone) -> list[str]:
    moves = p.page.locator("[data-move]")
    return [await moves.nth(i).get_attribute("data-move") or "" for i in range(await moves.count())]


async def no_serious_violations(p: Phone) -> None:
    assert await axe_violations(p.page) == []
    # A panel with nothing to show was once appended as null, which the DOM writes as the word.
    assert "null" not in (await p.page.text_content("#main") or "")


async def test_the_reactions_are_pictures_of_the_page_s_own_that_fit_one_row_at_every_screen(
    chromium: Browser, server: PlayServer, clock: ManualClock
) -> None:
    host = await phone(chromium, server.origin, clock)
    await host_a_table(host, "Asha", "inbetween/nepal/v2", 2)
    await host.tap("#start")
    await host.page.wait_for_selector("[data-move]")  # the computer has played: the table waits for the host
    assert await host.page.locator("#stop").count() == 0  # the Nepali table ends by its rules, never by agreement
    for width, height in SCREENS:
        await host.page.set_viewport_size(ViewportSize(width=width, height=height))
        for name in REACTIONS:
            button = host.page.locator(f"#reactions button[data-reaction={name}]")
            assert (await button.text_content() or "") == ""  # no glyph to fall back to a box: a drawing
            assert await button.locator(f"svg.reaction-icon[data-icon={name}][aria-hidden=true]").count() == 1
        boxes: list[Any] = await host.page.eval_on_selector_all(  # in one go: a redraw cannot fall between
            "#reactions button",
            "bs => bs.map(b => { const r = b.getBoundingClientRect(); "
            "return { x: r.x, y: r.y, width: r.width, height: r.height }; })",
        )
        assert len(boxes) == len(REACTIONS)
        assert all(b["width"] >= 44 and b["height"] >= 48 for b in boxes), (width, boxes)  # a thumb's target
        assert len({round(b["y"]) for b in boxes}) == 1, (width, boxes)  # one row: no sixth button on its own
        assert max(b["x"] + b["width"] for b in boxes) <= width
        assert await host.page.evaluate("document.documentElement.scrollWidth") <= width
        icon = await host.page.locator("#reaction-fire svg").bounding_box()
        assert icon is not None
        assert icon["width"] == icon["height"] == 28
        await keep_shot(host.page, f"table-reactions-{width}x{height}")
        if width == 320:
            await no_serious_violations(host)
    fire = host.page.locator("#reaction-fire")
    assert await fire.get_attribute("aria-label") == "On fire"  # named in words for a screen reader
    await fire.click()
    shown = host.page.locator("#reactions-shown .reaction-shown[data-reaction=fire]")
    await shown.wait_for(timeout=10_000)  # the push brings it back to the sender's phone too
    assert await shown.locator("svg[data-icon=fire]").count() == 1
    assert await shown.text_content() == "Asha"
    await host.page.wait_for_function("() => document.getElementById('live').textContent === 'Asha: On fire'")
    assert host.errors == []
    assert [u for u in host.asked if not u.startswith(server.origin + "/") and not u.startswith("data:")] == []


async def test_a_forced_pair_offers_the_split_which_plays_two_hands_or_keeps_it_each_told_in_both_languages(
    chromium: Browser, server: PlayServer, clock: ManualClock
) -> None:
    host, _ = await start_against_a_guest(chromium, server, clock, "Hari", "inbetween/pagat-split/v1", PAIR_FIRST)
    await host.page.wait_for_selector("[data-move=split]")
    assert await offered(host) == ["split", "keep_pair"]  # awaiting the split: nothing else
    assert await host.page.text_content("#moves-title") == "A pair: split it into two hands, or keep it?"
    # pagat: "pay an extra ante ... to split them"; the table's ante is 10.
    assert await host.page.text_content("#split-cost") == "Splitting puts 10 more chips in the pot."
    assert await host.page.locator("#stop").count() == 0  # pagat-split has no stopping by agreement
    await keep_shot(host.page, "table-split-390x844")
    await no_serious_violations(host)
    await host.page.set_viewport_size(ViewportSize(width=320, height=568))
    await keep_shot(host.page, "table-split-320x568")
    assert await host.page.evaluate("document.documentElement.scrollWidth") <= 320
    await host.page.set_viewport_size(ViewportSize(width=390, height=844))

    await host.tap("[data-move=split]")
    await host.page.wait_for_selector("#hand")
    assert await host.page.text_content("#hand") == "Hand 1 of 2"
    assert await offered(host) == ["bet", "pass"]  # a split hand is not split again
    posts = await host.page.eval_on_selector_all("#posts svg.card[data-card]", "cs => cs.map(c => c.dataset.card)")
    assert posts == ["8S", "2D"]  # the first eight and the next card; the other eight waits for hand 2
    await logged(host, "Hari splits the pair into two hands for 10 chips.")
    assert await host.page.text_content("#players [data-seat='0'] .chips") == "980 chips"  # 1000 - ante - split
    await host.tap("[data-move=pass]")
    await host.page.wait_for_function("() => document.getElementById('hand')?.textContent === 'Hand 2 of 2'")
    posts = await host.page.eval_on_selector_all("#posts svg.card[data-card]", "cs => cs.map(c => c.dataset.card)")
    assert posts == ["8H", "KD"]
    await logged(host, "First hand: Hari passes.")
    await host.tap("[data-move=pass]")  # the turn ends: Gita's begins
    await host.page.wait_for_function("() => !document.getElementById('hand')")
    await logged(host, "Hari passes.")
    assert await host.page.text_content("#turn") == "Gita's turn. 30 s left"
    assert host.errors == []

    # The same pair kept, on a Nepali phone at another table.
    host, _ = await start_against_a_guest(
        chromium, server, clock, "हरि", "inbetween/pagat-split/v1", PAIR_FIRST, locale="ne-NP"
    )
    keep = host.page.locator("[data-move=keep_pair]")
    await keep.wait_for()
    assert await keep.text_content() == "जोडी राख्नुहोस्"
    assert await host.page.text_content("[data-move=split]") == "दुई हातमा छुट्याउनुहोस्"
    assert await host.page.text_content("#split-cost") == "छुट्याउँदा पोटमा १० चिप थपिन्छ।"  # Devanagari digits
    await no_serious_violations(host)
    await host.tap("[data-move=keep_pair]")
    await host.page.wait_for_function("() => !document.querySelector('[data-move=keep_pair]')")
    # pagat-split keeps a pair as pagat-ante does: "a pair the player keeps pays nothing" (nothing moves).
    await logged(host, "हरि ले जोडी राख्नुभयो।")
    await logged(host, "जोडी: हरि न जित्नुभयो न हार्नुभयो।")
    assert await host.page.text_content("#players [data-seat='0'] .chips") == "९९० चिप"  # 1000 less the ante
    assert host.errors == []


async def test_the_host_hands_a_stalled_seat_over_and_back_and_every_seat_with_chips_may_agree_to_stop(
    chromium: Browser, server: PlayServer, clock: ManualClock
) -> None:
    """One table for both (a browser and a table less to start): pagat-ante/v2, Sita hosting on the smallest phone,
    Maya and a computer."""
    host = await phone(chromium, server.origin, clock, viewport=ViewportSize(width=320, height=568))
    guest = await phone(chromium, server.origin, clock)
    code = await host_a_table(host, "Sita", "inbetween/pagat-ante/v2", 3)
    await join_table(guest, code, "Maya")
    await settle([host, guest])
    await host.tap("#start")
    await settle([host, guest])
    hand = host.page.locator("#hand-1")
    assert await hand.get_attribute("aria-label") == "Give to the computer: Maya's seat"  # the words shown, first
    assert await host.page.locator("#hand-0").count() == 0  # not the host's own seat
    assert await guest.page.locator(".seat-control").count() == 0  # only the host hands seats over
    await keep_shot(host.page, "table-host-controls-320x568")
    await no_serious_violations(host)

    await host.tap("#hand-1")  # Maya stalled: the computer plays her seat
    await settle([host, guest])
    assert "computer plays" in (await host.page.text_content("#players [data-seat='1'] .marks") or "")
    assert await host.page.get_attribute("#give-1", "aria-label") == "Give back: Maya's seat"
    assert await guest.page.text_content("#held") == "The host gave your seat to the computer. Take my seat back"
    await keep_shot(guest.page, "table-seat-held-390x844")
    await no_serious_violations(guest)
    await guest.tap("#back")  # Maya is back and takes her seat herself
    await settle([host, guest])
    assert await guest.page.locator("#held").count() == 0
    assert await host.page.locator("#hand-1").count() == 1
    assert "computer plays" not in (await host.page.text_content("#players [data-seat='1'] .marks") or "")

    await host.tap("#hand-1")
    await settle([host, guest])
    await guest.page.wait_for_selector("#held")
    await host.tap("#give-1")  # and the host gives it back
    await settle([host, guest])
    assert await guest.page.locator("#held").count() == 0
    assert await host.page.locator("#hand-1").count() == 1

    # Stopping by agreement: each seat with chips agrees once, whoever's turn it is; the last person ends the game.
    phones = [host, guest]
    for p in phones:  # whoever's turn it is: an agreement is no turn's move
        assert await p.page.locator("#agree-stop").count() == 1
        assert await p.page.text_content("#stop-count") == "0 of 3 players with chips have agreed to stop."
    assert await host.page.get_attribute("#agree-stop", "data-move") is None  # not one of the turn's moves
    await keep_shot(host.page, "table-agree-stop-320x568")
    await keep_shot(guest.page, "table-agree-stop-390x844")
    assert await host.page.evaluate("document.documentElement.scrollWidth") <= 320
    await no_serious_violations(host)

    await host.tap("#agree-stop")
    await settle(phones)
    assert await host.page.locator("#agree-stop").count() == 0  # once each
    assert (await host.page.text_content("#stop-mine") or "").startswith("You agreed to stop")
    assert await guest.page.text_content("#stop-count") == "1 of 3 players with chips have agreed to stop."
    assert "agreed to stop" in (await guest.page.text_content("#players [data-seat='0'] .marks") or "")
    await logged(guest, "Sita agrees to stop.")
    await guest.tap("#agree-stop")  # the last person: the computer agrees once every person has, and it ends
    await settle(phones)
    for p in phones:
        assert await p.page.get_attribute("#main", "data-status") == "over"
        assert await p.page.locator("#stop").count() == 0
        ending = await p.page.text_content("#ending") or ""
        assert "Everyone with chips agreed to stop; the pot was shared." in ending
    await logged(guest, "Maya agrees to stop.")
    await logged(guest, "Computer 3 agrees to stop.")
    await keep_shot(guest.page, "ending-agreed-390x844")
    await no_serious_violations(guest)
    assert host.errors == guest.errors == []


# pagat-down/v1 deals the posts face down: "2H" again picks the dealer (seat 1), so the host plays first, on a
# five and a jack it alone sees; the nine after them falls between.
DOWN_FIRST = ["2H", "5S", "JH", "9D"]


async def test_face_down_posts_show_only_to_their_seat_which_shows_them_or_folds_unseen_in_both_languages(
    chromium: Browser, server: PlayServer, clock: ManualClock
) -> None:
    host = await phone(chromium, server.origin, clock)
    code = await host_a_table(host, "Hari", "inbetween/pagat-down/v1", 2)
    await seat_a_guest_without_a_page(chromium, server.origin, code)
    watcher = await phone(chromium, server.origin, clock)  # watching before the game begins: told it from its start
    await watcher.open(f"/play/inbetween?watch={code}")
    await start_with(host, server.origin, code, DOWN_FIRST)
    await host.page.wait_for_selector("[data-move=show]")
    assert await offered(host) == ["show", "pass"]
    assert await host.page.text_content("#moves-title") == "Your posts are face down: show them and bet, or fold unseen"
    assert await host.page.text_content("[data-move=pass]") == "Fold unseen"
    # The seat's own phone sees its posts (from `own_cards`), and is told nobody else does.
    faces = await host.page.eval_on_selector_all("#posts svg.card[data-card]", "cs => cs.map(c => c.dataset.card)")
    assert faces == ["5S", "JH"]
    assert await host.page.text_content("#own-cards") == "Only you can see your posts until you show them."
    await logged(host, "Hari's posts are dealt face down.")
    # Someone watching sees two backs and no card at all.
    await watcher.page.wait_for_selector("#posts svg.card.back")
    assert await watcher.page.locator("#posts svg.card.back").count() == 2
    assert await watcher.page.locator("#posts svg.card[data-card]").count() == 0
    assert await watcher.page.locator("#own-cards").count() == 0
    await logged(watcher, "Hari's posts are dealt face down.")  # told, not shown
    await keep_shot(watcher.page, "table-down-watcher-390x844")
    await keep_shot(host.page, "table-down-390x844")
    await no_serious_violations(host)
    await host.page.set_viewport_size(ViewportSize(width=320, height=568))
    await keep_shot(host.page, "table-down-320x568")
    assert await host.page.evaluate("document.documentElement.scrollWidth") <= 320
    await host.page.set_viewport_size(ViewportSize(width=390, height=844))

    await host.tap("[data-move=show]")
    await host.page.wait_for_selector("[data-move=bet]")
    assert await offered(host) == ["bet", "pass"]  # a bet follows; the server refuses the pass (PASS_NOT_ALLOWED)
    await logged(host, "Hari shows 5 of spades and Jack of hearts.")  # the page's card names
    await watcher.page.wait_for_function("() => document.querySelectorAll('#posts svg.card[data-card]').length === 2")
    assert await watcher.page.locator("#posts svg.card.back").count() == 0
    assert host.errors == []
    assert watcher.errors == []

    # Folded unseen, on a Nepali phone at another table: the posts were never shown to anyone.
    host, _ = await start_against_a_guest(
        chromium, server, clock, "हरि", "inbetween/pagat-down/v1", DOWN_FIRST, locale="ne-NP"
    )
    fold = host.page.locator("[data-move=pass]")
    await fold.wait_for()
    assert await fold.text_content() == "नदेखाई छोड्नुहोस्"
    assert await host.page.text_content("[data-move=show]") == "देखाउनुहोस्"
    await no_serious_violations(host)
    await host.tap("[data-move=pass]")
    await logged(host, "हरि ले नदेखाई छोड्नुभयो।")
    assert host.errors == []
