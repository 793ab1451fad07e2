"""The friends' page where time and replicas matter: a turn its player lets run out is played by the sweeper and
reaches the phone, and a move (and an emoji reaction) made through one app instance reaches a phone that follows
another."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import timedelta

import asyncpg
import pytest
from playwright.async_api import Browser

from service.runtime.sweeper import sweep_friends
from service.settings import Settings
from tests.browser.phones import Phone, phone, settle, tap_a_move
from tests.support.clock import ManualClock
from tests.support.play_server import PlayServer, play_server
from tests.support.scratch import Database, verified_scratch_database

TURN = 15  # the shortest turn a table takes


@pytest.fixture(scope="module")
async def database(database_server: str) -> AsyncIterator[Database]:
    """A database of this module's own: a sweep plays every table's timers, and other modules' tables keep theirs."""
    async with verified_scratch_database(database_server) as database:
        yield database


async def swept(database: Database, kind: str, clock: ManualClock) -> list[bytes]:
    """The bodies of the records of this kind the last sweep wrote (the turn's own are TURN seconds older)."""
    conn = await asyncpg.connect(database.owner_url)
    try:
        rows = await conn.fetch(
            "SELECT body FROM audit_log WHERE kind = $1 AND recorded_at > $2", kind, clock.now - timedelta(seconds=1)
        )
    finally:
        await conn.close()
    return [bytes(r["body"]) for r in rows]


async def host_a_table(p: Phone, seats: str) -> None:
    await p.open("/play/inbetween")
    await p.page.fill("#create-name", "Hari")
    await p.page.select_option("#create-seats", seats)
    await p.page.select_option("#create-turn", str(TURN))
    await p.page.click("#create-form button[type=submit]")
    await p.page.wait_for_selector("#start")


async def test_a_turn_left_to_run_out_is_played_by_the_sweeper_and_the_phone_shows_the_next(
    database: Database, chromium: Browser, server: PlayServer, clock: ManualClock
) -> None:
    host = await phone(chromium, server.origin, clock)
    await host_a_table(host, "2")
    await host.tap("#start")
    await host.page.wait_for_selector("[data-move]")  # the computer plays at once: the person's turn comes
    assert await host.page.text_content("#countdown") == f"{TURN} s left"  # from the server's deadline
    before, asked = await host.version(), await host.page.text_content("#moves-title")
    clock.advance(TURN - 1)
    assert await sweep_friends(server.app.state.runner, server.app.state.push) == 0  # not yet
    clock.advance(2)
    await host.page.clock.set_fixed_time(clock.now)
    assert await sweep_friends(server.app.state.runner, server.app.state.push) == 1
    await host.reach(before + 1)  # pushed: the phone read the table again
    log = await host.page.locator("#log li").all_text_contents()
    # the chain says the timer made the move: the sweep's ib_stood_in, as stored (the computers' turns have theirs)
    stood = [b for b in await swept(database, "ib_stood_in", clock) if json.loads(b)["event"]["by"] == "timer"]
    assert [json.loads(b)["event"] for b in stood] == [
        {"kind": "ib_stood_in", "seat": 0, "by": "timer", "personality": None, "endgame_tip": None}
    ]
    # and the page tells it (its log keeps 8 lines, which the turns after the sweep's can fill): the page's own
    # narration module, already loaded, given that record
    told = await host.page.evaluate(
        """async (body) => (await import("/play/static/play/narrate.js"))
             .narrate({ players: [{ seat: 0, name: "Hari" }] }, [{ body }])""",
        stood[0].decode(),  # the stored bytes: the body a records route serves
    )
    assert told == ["Time ran out for Hari."]
    # The default for the decision: an ace high, a pair higher (lower for aces), or a pass.
    defaults = {
        "An ace: call it high or low": ("calls the ace high",),
        "A pair: will the next card be higher or lower?": ("calls higher", "calls lower"),
        "Bet or pass": ("passes",),
    }
    if not any(said in line for said in defaults[asked or ""] for line in log):
        # The page shows the last 8 lines: the computers' turns the same sweep played after it can push the line
        # out. The records of that sweep then say what the host's seat (seat 0) was made to do.
        recorded = {"An ace: call it high or low": "ib_ace_called", "A pair: will the next card be higher or lower?":
                    "ib_pair_called", "Bet or pass": "ib_passed"}[asked or ""]  # fmt: skip
        events = [json.loads(b)["event"] for b in await swept(database, recorded, clock)]
        assert any(e["seat"] == 0 and e.get("call", "high") in ("high", "higher", "lower") for e in events), (
            log,
            events,
        )

    # A second turn in a row left to run out: the computer holds the seat (and, the only person gone, plays the game
    # out) until its player takes it back.
    await host.page.wait_for_selector("[data-move]")
    before = await host.version()
    clock.advance(TURN + 1)
    await host.page.clock.set_fixed_time(clock.now)
    assert await sweep_friends(server.app.state.runner, server.app.state.push) >= 1
    await host.reach(before + 1)
    await host.page.wait_for_selector("#held")
    assert "two turns ran out" in (await host.page.text_content("#held") or "")
    await host.tap("#back")
    assert await host.page.locator("#held").count() == 0
    assert host.errors == []


@pytest.fixture
async def second(settings: Settings, clock: ManualClock, server: PlayServer) -> AsyncIterator[PlayServer]:
    async with play_server(settings, clock) as served:
        yield served


async def test_a_move_made_through_one_app_instance_reaches_a_phone_following_another(
    server: PlayServer, second: PlayServer, chromium: Browser, clock: ManualClock
) -> None:
    host = await phone(chromium, server.origin, clock)
    await host_a_table(host, "3")
    code = (await host.page.text_content("#table-code") or "").replace("-", "")
    guest = await phone(chromium, second.origin, clock)
    await guest.open(f"/play/inbetween?code={code}")
    await guest.page.fill("#join-name", "Maya")
    await guest.page.click("#join-form button[type=submit]")
    await guest.page.wait_for_selector("#table-code")
    await settle([host, guest])
    await host.tap("#start")
    for _ in range(4):  # a few moves, each made on one instance and pushed to the other's phone
        version = await settle([host, guest])
        moved = await tap_a_move(host, bet=False) or await tap_a_move(guest, bet=False)
        assert moved is not None
        await host.reach(version + 1)
        await guest.reach(version + 1)

    # A reaction: the guest taps one (a big button, named in words for a screen reader); the host's phone, on the
    # other instance, shows it with the guest's name and says it, and no version moves (it is no change of the table).
    version = await settle([host, guest])
    namaste = guest.page.locator("#reactions button[data-reaction=namaste]")
    assert await namaste.get_attribute("aria-label") == "Namaste"
    box = await namaste.bounding_box()
    assert box is not None
    assert box["height"] >= 48  # a thumb's target
    assert box["width"] >= 44
    await namaste.click()
    shown = host.page.locator("#reactions-shown .reaction-shown[data-reaction=namaste]")
    await shown.wait_for(timeout=10_000)
    assert await shown.text_content() == "Maya"  # and the folded hands drawn beside the name
    assert await shown.locator("svg[data-icon=namaste]").count() == 1
    await host.page.wait_for_function("() => document.getElementById('live').textContent === 'Maya: Namaste'")
    assert await host.version() == await guest.version() == version
    assert host.errors == guest.errors == []
