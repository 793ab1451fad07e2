"""`reddog audit verify --db` and `replay --db`: straight from the database, and every stored round reconciled."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from uuid import UUID

import asyncpg

from tests.api.helpers import decide, open_round
from tests.conftest import make_settings
from tests.support.clock import ManualClock
from tests.support.live import live
from tests.support.scratch import scratch_database


async def reddog(database_url: str, *args: str) -> tuple[int, str, str]:
    command = Path(sys.executable).with_name("reddog")
    env = {**os.environ, "DATABASE_URL": database_url}
    process = await asyncio.create_subprocess_exec(
        str(command), *args, env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def play(url: str) -> tuple[str, str]:
    """A few rounds of each shoe policy, one left open; the id of a settled round and of a bet of it."""
    async with live(make_settings(url), clock=ManualClock()) as server:
        api = server.api
        per_round = await api.table(mode="test")
        cut_card = await api.table(mode="test", shoe_policy="cut_card", decks=1)
        settled = await open_round(api, per_round["table_id"], [("p1", 10), ("p2", 5)], ["5S", "9H", "7D"])
        for bet in settled["bets"]:
            assert (await decide(api, settled["round_id"], bet["bet_id"], "raise")).status_code == 200
        await open_round(api, cut_card["table_id"], [("p1", 10)], ["5S", "6H"])
        await open_round(api, cut_card["table_id"], [("p1", 10)], ["8S", "8H", "3D"])  # a new shoe, still in play
        await open_round(api, per_round["table_id"], [("p1", 10)], ["2S", "AH"])  # left in its raise window
    return settled["round_id"], settled["bets"][0]["bet_id"]


async def test_verify_and_replay_from_the_database_pass_and_reconcile_every_stored_round(database_server: str) -> None:
    async with scratch_database(database_server) as url:
        await play(url)
        code, out, err = await reddog(url, "audit", "verify", "--db")
        assert code == 0, (out, err)
        assert "every stored round matches its records" in err
        code, out, err = await reddog(url, "audit", "replay", "--db")
        assert code == 0, (out, err)
        assert "every stored round matches its records" in err
        assert "rounds re-run through the game core: 2, matching their records: 2" in out
        assert "not re-run: 1 open, 1 with their shoe still in play" in out


async def test_a_stored_round_changed_without_its_records_is_reported(database_server: str) -> None:
    async with scratch_database(database_server) as url:
        round_id, bet_id = await play(url)
        db = await asyncpg.connect(url)
        try:
            await db.execute(
                "UPDATE rounds SET state = jsonb_set(state, '{bets,0,payout}', '999') WHERE round_id = $1",
                UUID(round_id),
            )
        finally:
            await db.close()
        code, out, err = await reddog(url, "audit", "replay", "--db")
        assert code == 1, (out, err)
        assert f"STORED ROUND DIFFERS {round_id}: bet {bet_id} payout stored 999, recorded" in err
        assert "OK" in out  # the records themselves replay clean: only the row lies


async def test_a_changed_audit_column_is_reported_from_the_database(database_server: str) -> None:
    async with scratch_database(database_server) as url:
        _, bet_id = await play(url)
        db = await asyncpg.connect(url)
        try:  # a superuser can switch the append-only trigger off: what the checks are for
            await db.execute("ALTER TABLE audit_log DISABLE TRIGGER audit_log_no_update")
            seq = await db.fetchval(
                "UPDATE audit_log SET bet_id = 'forged' WHERE bet_id = $1 AND kind = 'bet_settled' RETURNING seq",
                bet_id,
            )
            await db.execute("ALTER TABLE audit_log ENABLE TRIGGER audit_log_no_update")
        finally:
            await db.close()
        code, out, err = await reddog(url, "audit", "verify", "--db")
        assert code == 1, (out, err)
        assert f"seq {seq}: column bet_id is 'forged', the body says '{bet_id}'" in out
        assert "every stored round matches its records" in err
