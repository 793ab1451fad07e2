"""`reddog audit verify --db` and `replay --db`: straight from the database, and every stored round reconciled."""

from __future__ import annotations

import json
from pathlib import Path
from uuid import UUID

import asyncpg

from tests.api.helpers import decide, open_round
from tests.api.inbetween_helpers import humans, start
from tests.conftest import AUDIT_KEY, make_settings
from tests.support.clock import ManualClock
from tests.support.live import live
from tests.support.reddog_command import reddog
from tests.support.round_rows import change_deflated_state, state_as_jsonb
from tests.support.scratch import scratch_database
from tests.support.stored_records import overwrite_record


async def play(url: str) -> tuple[str, str]:
    """A few rounds of each shoe policy, one left open; the id of a settled round and of a bet of it."""
    async with live(make_settings(url, checkpoint_every_records=5), clock=ManualClock()) as server:
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
        try:  # the state as the service stores it (deflated, migration 026), forged with the service's dictionary
            await change_deflated_state(db, UUID(round_id), ["bets", 0, "payout"], 999)
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
            record = await db.fetchrow(
                "SELECT table_id, seq FROM audit_log WHERE bet_id = $1 AND kind = 'bet_settled'", bet_id
            )
            assert record is not None
            seq = record["seq"]
            await overwrite_record(db, record["table_id"], seq, bet_id="forged")
        finally:
            await db.close()
        code, out, err = await reddog(url, "audit", "verify", "--db")
        assert code == 1, (out, err)
        assert f"seq {seq}: column bet_id is 'forged', the body says '{bet_id}'" in out
        assert "every stored round matches its records" in err


SYSTEM_CHAIN_ID = "00000000-0000-0000-0000-000000000000"
KEY = AUDIT_KEY  # the key the test app signs its checkpoints with


async def signed_and_system_records(db: asyncpg.Connection) -> tuple[int, int]:
    """How many checkpoints the app signed, and how many records its system chain holds (start, stop, ...)."""
    signed = await db.fetchval("SELECT count(*) FROM audit_checkpoints")
    system = await db.fetchval("SELECT count(*) FROM audit_log WHERE table_id = $1", UUID(SYSTEM_CHAIN_ID))
    assert signed > 0
    assert system > 0
    return signed, system


async def test_the_export_carries_every_checkpoint_and_the_system_chain_and_they_verify(
    database_server: str, tmp_path: Path
) -> None:
    async with scratch_database(database_server) as url:
        await play(url)
        db = await asyncpg.connect(url)
        try:
            signed, system = await signed_and_system_records(db)
        finally:
            await db.close()
        out = tmp_path / "export.jsonl"
        code, _, err = await reddog(url, "audit", "export", "--out", str(out))
        assert code == 0, err
        code, text, err = await reddog(url, "audit", "verify", str(out), "--public-key", KEY.verifier_key)
        assert code == 0, (text, err)
        assert f"{signed} checkpoints ({signed} matched), signatures checked: OK" in text
        assert f"table {SYSTEM_CHAIN_ID}: {system} records" in text
        code, text, err = await reddog(url, "audit", "replay", str(out), "--json")
        assert code == 0, (text, err)
        assert json.loads(text)["system_records"] == system
        code, text, err = await reddog(url, "audit", "verify", "--db", "--public-key", KEY.verifier_key)
        assert code == 0, (text, err)


async def test_a_stored_status_column_changed_without_its_records_is_reported(database_server: str) -> None:
    async with scratch_database(database_server) as url:
        round_id, _ = await play(url)
        db = await asyncpg.connect(url)
        try:
            await db.execute("UPDATE rounds SET status = 'void' WHERE round_id = $1", UUID(round_id))
        finally:
            await db.close()
        code, out, err = await reddog(url, "audit", "verify", "--db")
        assert code == 1, (out, err)
        assert f"STORED ROUND DIFFERS {round_id}: its status column is 'void', its records say 'settled'" in err


async def test_an_export_since_a_time_keeps_older_records_as_hashes_and_still_verifies_and_replays(
    database_server: str, tmp_path: Path
) -> None:
    async with scratch_database(database_server) as url:
        clock = ManualClock()
        async with live(make_settings(url, checkpoint_every_records=5), clock=clock) as server:
            api = server.api
            table = await api.table(mode="test", shoe_policy="cut_card", decks=1)
            for cards in (["5S", "6H"], ["8S", "8H", "3D"]):
                await open_round(api, table["table_id"], [("p1", 10)], cards)
            since = clock.advance(3600)
            for cards in (["9S", "TH"], ["2S", "2H", "2D"]):
                await open_round(api, table["table_id"], [("p1", 10)], cards)
            await api.ok("POST", f"/v1/tables/{table['table_id']}/close")
        db = await asyncpg.connect(url)
        try:
            await signed_and_system_records(db)
            # Every chain (the table's, the system chain) keeps its first record in full, the older ones as hashes.
            before = await db.fetchval(
                "SELECT count(*) - count(DISTINCT table_id) FROM audit_log WHERE recorded_at < $1", since
            )
        finally:
            await db.close()
        out = tmp_path / "since.jsonl"
        code, _, err = await reddog(url, "audit", "export", "--out", str(out), "--since", since.isoformat())
        assert code == 0, err
        kinds = [json.loads(line)["type"] for line in out.read_bytes().splitlines()]
        assert kinds.count("hash") == before
        code, text, err = await reddog(url, "audit", "verify", str(out), "--public-key", KEY.verifier_key)
        assert code == 0, (text, err)
        assert "(+" in text  # records present as hashes only
        code, text, err = await reddog(url, "audit", "replay", str(out), "--json")
        assert code == 0, (text, err)
        report = json.loads(text)
        assert report["rounds"] == 2


async def test_per_seat_rounds_replay_from_their_records_alone_and_reconcile(database_server: str) -> None:
    async with scratch_database(database_server) as url:
        clock = ManualClock()
        async with live(make_settings(url), clock=clock) as server:
            api = server.api
            table = await api.table(mode="test", deal="per_seat", raise_window_seconds=5)
            tid = table["table_id"]
            three = [("p1", 10), ("p2", 10), ("p3", 10)]
            # A push, trips and a spread the player raises; two spreads the deadline closes; a voided round.
            mixed = await open_round(api, tid, three, ["5S", "8S", "4D", "6H", "8H", "TC", "8D", "7C"])
            await decide(api, mixed["round_id"], mixed["bets"][2]["bet_id"], "raise")
            timed = await open_round(api, tid, [("p1", 10), ("p2", 4)], ["2S", "5H", "AD", "9C", "KS", "5D"])
            voided = await open_round(api, tid, three, ["5S", "8S", "4D", "6H", "8H", "TC", "8D"])
            await api.ok("POST", f"/v1/rounds/{voided['round_id']}/void", {"reason": "shoe dropped"})
            clock.advance(5)
            await api.ok("GET", f"/v1/rounds/{timed['round_id']}")
        code, out, err = await reddog(url, "audit", "replay", "--db")
        assert code == 0, (out, err)
        assert "every stored round matches its records" in err
        assert "rounds re-run through the game core: 3, matching their records: 3" in out


async def test_rolled_back_rounds_replay_and_reconcile_from_their_records(database_server: str) -> None:
    async with scratch_database(database_server) as url:
        clock = ManualClock()
        async with live(make_settings(url), clock=clock) as server:
            api = server.api
            table = await api.table(mode="test", raise_window_seconds=5)
            tid = table["table_id"]
            undo = {"reason": "wallet debit failed"}
            trips = await open_round(api, tid, [("p1", 10)], ["8S", "8H", "8D"])  # settled at open, then undone
            waiting = await open_round(api, tid, [("p1", 10), ("p2", 5)], ["4S", "TH", "7D"])  # open, then undone
            decided = await open_round(api, tid, [("p1", 10)], ["5S", "9H", "7C"])
            await decide(api, decided["round_id"], decided["bets"][0]["bet_id"], "raise")  # settled, then undone
            for rnd in (trips, waiting, decided):
                await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/rollback", undo)
            kept = await open_round(api, tid, [("p1", 10)], ["5S", "6H"])  # a push that stands
            assert kept["status"] == "settled"
        code, out, err = await reddog(url, "audit", "replay", "--db", "--json")
        assert code == 0, (out, err)
        assert "every stored round matches its records" in err
        report = json.loads(out)
        # Every round re-run once, rollbacks included (two came after their round's shoe was revealed), none partial.
        assert (report["rounds"], report["matched"], report["partial_rounds"], report["test_rounds"]) == (4, 4, 0, 4)
        # verify only folds the records into states, re-running nothing: a rollback after its shoe's reveal too.
        code, out, err = await reddog(url, "audit", "verify", "--db")
        assert code == 0, (out, err)
        assert "every stored round matches its records" in err
        code, out, err = await reddog(url, "audit-verify")
        assert code == 0, (out, err)


ALIAS_NOTE = "reddog: audit-verify is an alias of `reddog audit verify --db`"


async def test_audit_verify_says_it_is_an_alias_and_gives_the_same_verdict_as_verify_db(database_server: str) -> None:
    async with scratch_database(database_server) as url:
        round_id, _ = await play(url)
        async with live(make_settings(url), clock=ManualClock()) as server:
            game_id = (await start(server.api, humans("alice", "bob"), ["4S", "JH"]))["game_id"]
        for command in (("audit", "verify", "--db"), ("audit-verify",)):
            code, out, err = await reddog(url, *command)
            assert code == 0, (command, out, err)
        db = await asyncpg.connect(url)
        try:  # a rewritten round row (in the jsonb form of older rows), and a game's record changed behind its back
            await state_as_jsonb(db, UUID(round_id))
            await db.execute(
                "UPDATE rounds SET state = jsonb_set(state, '{bets,0,payout}', '999') WHERE round_id = $1",
                UUID(round_id),
            )
            record = await db.fetchrow(
                "SELECT seq, convert_to(replace(convert_from(body, 'UTF8'), 'alice', 'eve'), 'UTF8') AS body"
                " FROM audit_log WHERE table_id = $1 AND convert_from(body, 'UTF8') LIKE '%alice%'"
                " ORDER BY seq LIMIT 1",
                UUID(game_id),
            )
            assert record is not None
            seq = record["seq"]
            await overwrite_record(db, UUID(game_id), seq, body=record["body"])
        finally:
            await db.close()
        code, out, err = await reddog(url, "audit", "verify", "--db")
        assert code == 1, (out, err)
        assert f"table {game_id}: " in out
        assert f"seq {seq}: its body no longer hashes to its hash (changed)" in out
        assert f"STORED ROUND DIFFERS {round_id}: " in err
        alias_code, alias_out, alias_err = await reddog(url, "audit-verify")
        assert (alias_code, alias_out) == (code, out)
        assert alias_err.splitlines() == [ALIAS_NOTE, *err.splitlines()]
