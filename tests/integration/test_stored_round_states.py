"""A round's state is stored deflated (migration 026) in a fraction of its JSON, and reads back as the same round; a
row written before, its state jsonb, still reads, and the row's first change moves it to the deflated form."""

from __future__ import annotations

import zlib
from uuid import UUID

import asyncpg
import msgspec

from service.db import state_dictionary
from service.db.round_sql import STATE_COLUMNS, select_round
from service.settings import Settings
from tests.support.live import live
from tests.support.round_rows import state_as_jsonb


async def stored(db: asyncpg.Connection, round_id: UUID) -> asyncpg.Record:
    row = await db.fetchrow(f"SELECT operator_id, {STATE_COLUMNS} FROM rounds WHERE round_id = $1", round_id)  # noqa: S608
    assert row is not None
    return row


async def test_a_round_is_stored_in_a_fraction_of_its_json_and_reads_back_as_the_same_round(
    settings: Settings, db: asyncpg.Connection
) -> None:
    async with live(settings) as app:
        table = await app.api.table(mode="test")
        # 5 then 9: a spread of 3, so the round waits in its raise window, then the call settles it.
        body = {"bets": [{"player_id": "p1", "ante": 10}], "forced_cards": ["5S", "9H", "7D"]}
        opened = await app.api.ok("POST", f"/v1/tables/{table['table_id']}/rounds", body)
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
                decision = {"bet_id": opened["bets"][0]["bet_id"], "action": "call"}
                await app.api.ok("POST", f"/v1/rounds/{round_id}/decisions", decision)


async def test_a_round_stored_as_jsonb_before_still_reads_and_its_next_change_deflates_it(
    settings: Settings, db: asyncpg.Connection
) -> None:
    async with live(settings) as app:
        table = await app.api.table(mode="test")
        body = {"bets": [{"player_id": "p1", "ante": 10}], "forced_cards": ["5S", "9H", "7D"]}
        opened = await app.api.ok("POST", f"/v1/tables/{table['table_id']}/rounds", body)
        round_id = UUID(opened["round_id"])
        await state_as_jsonb(db, round_id)  # as a release before migration 026 wrote it
        assert (await stored(db, round_id))["state_deflated"] is None
        assert await app.api.ok("GET", f"/v1/rounds/{round_id}") == opened
        decision = {"bet_id": opened["bets"][0]["bet_id"], "action": "call"}
        settled = await app.api.ok("POST", f"/v1/rounds/{round_id}/decisions", decision)
        assert settled["status"] == "settled"
        row = await stored(db, round_id)
        assert (row["state"], row["state_deflated"] is not None) == (None, True)
