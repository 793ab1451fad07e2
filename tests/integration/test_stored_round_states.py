"""A round's state is stored deflated (migration 026) in a fraction of its JSON, and reads back as the same round; a
row written before, its state jsonb, still reads, and the row's first change moves it to the deflated form."""

from __future__ import annotations

import zlib
from typing import Any
from uuid import UUID

import asyncpg
import msgspec

from service.db import state_dictionary
from service.db.round_sql import STATE_COLUMNS, select_round
from service.settings import Settings
from tests.support.client import Signed
from tests.support.live import live
from tests.support.round_rows import state_as_jsonb


async def stored(db: asyncpg.Connection, round_id: UUID) -> asyncpg.Record:
    row = await db.fetchrow(f"SELECT operator_id, {STATE_COLUMNS} FROM rounds WHERE round_id = $1", round_id)  # noqa: S608
    assert row is not None
    return row


async def open_waiting_round(api: Signed) -> dict[str, Any]:
    """A round in its raise window: 5 then 9 is a spread of 3, and the third card (7) waits for the decision."""
    table = await api.table(mode="test")
    body = {"bets": [{"player_id": "p1", "ante": 10}], "forced_cards": ["5S", "9H", "7D"]}
    opened: dict[str, Any] = await api.ok("POST", f"/v1/tables/{table['table_id']}/rounds", body)
    return opened


async def call(api: Signed, opened: dict[str, Any]) -> dict[str, Any]:
    decision = {"bet_id": opened["bets"][0]["bet_id"], "action": "call"}
    settled: dict[str, Any] = await api.ok("POST", f"/v1/rounds/{opened['round_id']}/decisions", decision)
    return settled


async def test_a_round_is_stored_in_a_fraction_of_its_json_and_reads_back_as_the_same_round(
    settings: Settings, db: asyncpg.Connection
) -> None:
    async with live(settings) as app:
        opened = await open_waiting_round(app.api)  # in its raise window, then settled by the call
        round_id = UUID(opened["round_id"])
        for status in ("raise_window", "settled"):
            row = await stored(db, round_id)
            assert row["state"] is None
            # Standard raw deflate after the number of its dictionary: any tool can read it with the dictionary.
            deflated = row["state_deflated"]
            inflate = zlib.decompressobj(-15, zdict=state_dictionary.DICTIONARIES[deflated[0]])
            text = inflate.decompress(deflated[1:]) + inflate.flush()
            assert msgspec.json.decode(text)["status"] == status
            assert len(deflated) < len(text) / 3
            found = await select_round(db, row["operator_id"], round_id)
            assert found is not None
            assert msgspec.json.encode(found.round) == text  # the same round, field for field
            if status == "raise_window":
                await call(app.api, opened)


async def test_a_round_stored_as_jsonb_before_still_reads_and_its_next_change_deflates_it(
    settings: Settings, db: asyncpg.Connection
) -> None:
    async with live(settings) as app:
        opened = await open_waiting_round(app.api)
        round_id = UUID(opened["round_id"])
        await state_as_jsonb(db, round_id)  # as a release before migration 026 wrote it
        assert (await stored(db, round_id))["state_deflated"] is None
        assert await app.api.ok("GET", f"/v1/rounds/{round_id}") == opened
        assert (await call(app.api, opened))["status"] == "settled"
        row = await stored(db, round_id)
        assert (row["state"], row["state_deflated"] is not None) == (None, True)
