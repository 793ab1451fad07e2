"""Turn timers kept in PostgreSQL and played by the sweeper when the test moves the clock: a missed turn gets its
default move, two in a row hand the seat to the computer until its player is back, and an idle table closes and
frees its code."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest

from audit.export_format import RecordLine, read_lines
from service.runtime.sweeper import sweep_friends
from service.settings import Settings
from tests.api.friends_helpers import Phone, create, join, quiet_move
from tests.api.helpers import problem
from tests.support.clock import ManualClock
from tests.support.live import Live, live
from tests.support.reddog_command import reddog
from tests.support.scratch import Database, verified_scratch_database

TURN = 15  # the shortest turn a table takes


@pytest.fixture(scope="module")
async def database(database_server: str) -> AsyncIterator[Database]:
    """A database of this module's own: a sweep plays every table's timers, and other modules' tables must keep theirs
    (a sweep here may also play an earlier test's table of this module, so the tests read their own table, not a
    count)."""
    async with verified_scratch_database(database_server) as database:
        yield database


@contextlib.asynccontextmanager
async def instance(settings: Settings, clock: ManualClock) -> AsyncIterator[tuple[Live, httpx.AsyncClient]]:
    async with live(settings, clock=clock) as server:
        yield server, server.api.client


async def two_phones(client: httpx.AsyncClient) -> dict[int, Phone]:
    host = await create(client, seats=2, rounds=15, turn_seconds=TURN)
    guest = await join(client, host.code, "Guest")
    await host.ok("/start")
    return {0: host, 1: guest}


def seat_to_act(state: Any) -> int:
    return int(state["game"]["to_act"].removeprefix("seat-"))


async def until_seat_acts(phones: dict[int, Phone], seat: int) -> Any:
    """The other phone moves until `seat` is to act; the state then."""
    for _ in range(100):
        state = await phones[seat].state()
        if state["you"]["to_act"]:
            return state
        other = phones[seat_to_act(state)]
        await other.ok("/moves", quiet_move(await other.state()))
    raise AssertionError(f"seat {seat} never came to act")


async def test_a_turn_past_its_deadline_gets_its_default_move_from_the_sweeper(
    settings: Settings, clock: ManualClock
) -> None:
    async with instance(settings, clock) as (server, client):
        phones = await two_phones(client)
        state = await phones[0].state()
        late = seat_to_act(state)
        deadline = datetime.fromisoformat(state["turn_deadline"])
        assert timedelta(seconds=TURN - 1) < deadline - clock.now <= timedelta(seconds=TURN)
        clock.advance(TURN - 1)
        await sweep_friends(server.runner, None)
        assert (await phones[late].state())["version"] == state["version"]  # not yet
        clock.advance(2)
        await sweep_friends(server.runner, None)
        after = await phones[late].state(after=state["game"]["version"])
        assert after["players"][late]["missed"] == 1
        assert after["players"][late]["computer_plays"] is False
        events = [json.loads(r["body"])["event"] for r in after["records"]]
        # the chain says the timer made the move (so an auditor tells it from the player's own), then the move
        assert events[0] == {"kind": "ib_stood_in", "seat": late, "by": "timer", "personality": None,
                             "endgame_tip": None}  # fmt: skip
        awaited = state["game"]["awaiting"]
        expected = {"ace_call": ("ib_ace_called", "high"), "pair_call": ("ib_pair_called", None),
                    "bet": ("ib_passed", None)}[awaited]  # fmt: skip
        assert (events[1]["kind"], events[1].get("call") if expected[1] else None) == expected, events
        assert events[1]["seat"] == late


async def test_two_missed_turns_hand_the_seat_to_the_computer_until_its_player_takes_it_back(
    settings: Settings, clock: ManualClock
) -> None:
    async with instance(settings, clock) as (server, client):
        phones = await two_phones(client)
        late = seat_to_act(await phones[0].state())
        for missed in (1, 2):
            await until_seat_acts(phones, late)
            clock.advance(TURN + 1)
            await sweep_friends(server.runner, None)
            seat = (await phones[late].state())["players"][late]
            assert seat["missed"] == missed
        held = await phones[late].state()
        assert (held["players"][late]["held_by"], held["players"][late]["computer_plays"]) == ("missed", True)
        assert held["status"] == "over" or not held["you"]["to_act"]  # the computer plays the seat's turns at once
        back = await phones[late].ok("/back")
        assert (back["players"][late]["held_by"], back["players"][late]["missed"]) == (None, 0)
        problem(await phones[late].post("/back"), 409, "SEAT_NOT_HELD")
        if back["status"] == "playing":
            await until_seat_acts(phones, late)  # the seat is the player's again: the game waits for them


async def test_a_move_in_between_starts_the_count_of_missed_turns_again(settings: Settings, clock: ManualClock) -> None:
    async with instance(settings, clock) as (server, client):
        phones = await two_phones(client)
        late = seat_to_act(await phones[0].state())
        await until_seat_acts(phones, late)
        clock.advance(TURN + 1)
        await sweep_friends(server.runner, None)
        state = await until_seat_acts(phones, late)
        moved = await phones[late].ok("/moves", quiet_move(state))
        assert moved["players"][late]["missed"] == 0
        await until_seat_acts(phones, late)
        clock.advance(TURN + 1)
        await sweep_friends(server.runner, None)
        seat = (await phones[late].state())["players"][late]
        assert (seat["missed"], seat["held_by"]) == (1, None)


async def test_an_idle_table_closes_and_its_code_is_free_again(
    settings: Settings, clock: ManualClock, db: asyncpg.Connection
) -> None:
    quick = msgspec.structs.replace(settings, friends=msgspec.structs.replace(settings.friends, idle_seconds=600))
    async with instance(quick, clock) as (server, client):
        phones = await two_phones(client)
        code = phones[0].code
        clock.advance(599)
        await sweep_friends(server.runner, None)
        assert (await phones[0].state())["status"] == "playing"
        clock.advance(602)
        await sweep_friends(server.runner, None)
        problem(await phones[0].get(), 401, "SEAT_TOKEN_INVALID")  # the token's table is closed
        problem(await client.get(f"/v1/friends/tables/{code}"), 404, "NOT_FOUND")
        fresh = await create(client)
        await db.execute("UPDATE friends_tables SET code = $1 WHERE code = $2", code, fresh.code)  # free: no clash
        assert (await Phone(client=client, code=code, seat=0, token=fresh.token).state())["you"]["seat"] == 0


async def test_a_whole_game_with_the_timer_and_the_computer_standing_in_exports_and_replays_through_the_cli(
    settings: Settings, clock: ManualClock, database_url: str, tmp_path: Path
) -> None:
    # One person and two computer seats; the person lets one turn run out, then plays every turn to the end.
    async with instance(settings, clock) as (server, client):
        host = await create(client, seats=3, rounds=5, turn_seconds=TURN)
        await host.ok("/start")
        state = await until_seat_acts({0: host}, 0)
        clock.advance(TURN + 1)
        await sweep_friends(server.runner, None)
        for _ in range(1000):
            state = await host.state()
            if state["status"] == "over":
                break
            assert state["you"]["to_act"]  # the computer plays its seats at once: the game waits only for the host
            await host.ok("/moves", quiet_move(state))
        assert state["status"] == "over"
        game_id = state["game"]["game_id"]
    out = tmp_path / "export.jsonl"
    code, _, err = await reddog(database_url, "audit", "export", "--out", str(out))
    assert code == 0, err
    with out.open("rb") as stream:
        lines = [x for x in read_lines(stream) if type(x) is RecordLine and x.table_id == game_id]
    events = [json.loads(bytes(x.body))["event"] for x in lines]
    stood = [(e["seat"], e["by"], e["personality"]) for e in events if e["kind"] == "ib_stood_in"]
    assert (0, "timer", None) in stood  # the turn the host let run out, and none of the host's own
    assert {s for s in stood if s[0] == 0} == {(0, "timer", None)}
    assert {s for s in stood if s[0] != 0} == {(1, "computer", "cautious"), (2, "computer", "bold")}  # by seat
    code, text, err = await reddog(database_url, "audit", "replay", str(out))
    assert code == 0, (text, err)
    played = re.search(r"In Between games re-played through the engine: (\d+), matching their records: (\d+)", text)
    assert played is not None, text
    assert played[1] == played[2] != "0", text
