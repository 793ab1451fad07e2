"""In Between games' chains are checkpointed as the tables' are (migration 023): nothing outside the database anchored
a game's history before, so the owner's re-chained rewrite of a game went unnoticed; now a kept checkpoint catches it.
"""

from __future__ import annotations

import json
from pathlib import Path
from uuid import UUID

import asyncpg

from audit import merkle
from audit.proof_check import open_table_checkpoint
from audit.signed_note import parse_verifier
from service.chains.checkpoints import anchor_due
from service.db.checkpoint_sql import select_unanchored_heads
from service.db.outbox_sql import BODY
from tests.api.inbetween_helpers import humans, play, start
from tests.conftest import AUDIT_KEY, make_settings
from tests.support.clock import ManualClock
from tests.support.live import live
from tests.support.owner_rewrite import rechain_as_owner
from tests.support.reddog_command import reddog
from tests.support.scratch import scratch_database

VERIFIER = parse_verifier(AUDIT_KEY.verifier_key)
POSTS = ["4S", "JH", "7D", "9C", "KS", "2H"]


async def hashes_of(db: asyncpg.Connection, chain: UUID) -> list[bytes]:
    return [r["hash"] for r in await db.fetch("SELECT hash FROM audit_log WHERE table_id = $1 ORDER BY seq", chain)]


async def test_a_games_chain_keeps_its_tree_head_and_the_background_pass_signs_the_root_of_its_records(
    database_url: str, clock: ManualClock, db: asyncpg.Connection
) -> None:
    settings = make_settings(database_url, checkpoint_every_seconds=60)
    async with live(settings, clock=clock) as server:
        game_id = UUID((await start(server.api, humans("alice", "bob"), POSTS))["game_id"])
        row = await db.fetchrow(
            "SELECT audit_seq, audit_tree, audit_compact_range(game_id) AS sql FROM inbetween_games WHERE game_id = $1",
            game_id,
        )
        assert row is not None
        hashes = await hashes_of(db, game_id)
        # The head the appends keep is the one migration 004's plpgsql computes from the records alone
        assert row["audit_seq"] == len(hashes) > 5
        assert row["audit_tree"] == row["sql"]
        await anchor_due(server.runner)
        checkpoints = await db.fetch("SELECT tree_size, note FROM audit_checkpoints WHERE table_id = $1", game_id)
        assert [c["tree_size"] for c in checkpoints] == [len(hashes)]
        signed = open_table_checkpoint(checkpoints[0]["note"], VERIFIER, str(game_id))
        assert signed.root == merkle.build(hashes).root()  # RFC 6962 over the chain's record hashes, built afresh
        # The operator whose game it is reads it like a table's; another operator does not see it
        latest = await server.api.ok("GET", f"/v1/audit/checkpoints/latest?table_id={game_id}")
        assert (latest["tree_size"], latest["note"]) == (len(hashes), checkpoints[0]["note"])
        # No checkpoint notification goes to the operator for a game: those announce its tables' chains
        told = await db.fetchval(
            f"SELECT count(*) FROM outbox o WHERE position(convert_to($2, 'UTF8') IN {BODY}) > 0"  # noqa: S608 - ours
            " AND o.operator_id = $1",
            server.api.operator_id,
            str(game_id),
        )
        assert told == 0


async def test_the_append_that_ends_a_game_signs_its_last_head_and_only_a_replicas_first_pass_looks_at_it_again(
    database_url: str, clock: ManualClock, db: asyncpg.Connection
) -> None:
    settings = make_settings(database_url, checkpoint_every_records=1000, checkpoint_every_seconds=60)
    async with live(settings, clock=clock) as server:
        ended = (await start(server.api, humans("alice", "bob"), POSTS, ruleset="inbetween/pagat-ante/v2"))["game_id"]
        playing = (await start(server.api, humans("carol", "dan"), POSTS, ruleset="inbetween/pagat-ante/v2"))["game_id"]
        await play(server.api, ended, "alice", "agree_stop")
        over = await play(server.api, ended, "bob", "agree_stop")  # the players agree to stop: the pot is shared
        assert over["status"] == "game_over"
        game_id = UUID(ended)
        size = await db.fetchval("SELECT audit_seq FROM inbetween_games WHERE game_id = $1", game_id)
        sizes = await db.fetch("SELECT tree_size FROM audit_checkpoints WHERE table_id = $1", game_id)
        assert [r["tree_size"] for r in sizes] == [size]  # signed in the append that ended it, no pass run
        # The pass looks at the games still being played: with the ended game's checkpoint gone (as the owner, in a
        # transaction rolled back), the pass still does not read it, where it does read the one being played
        clock.advance(3600)
        transaction = db.transaction()
        await transaction.start()
        try:
            await db.execute("SET LOCAL session_replication_role = replica")
            await db.execute("DELETE FROM audit_checkpoints WHERE table_id = ANY($1)", [game_id, UUID(playing)])
            due = {str(c.table_id) for c in await select_unanchored_heads(db, clock.now)}
            # ... but a replica's first pass reads the ended games too (ended before migration 023, or unsigned)
            first = {str(c.table_id) for c in await select_unanchored_heads(db, clock.now, ended_games=True)}
        finally:
            await transaction.rollback()
        assert playing in due
        assert ended not in due
        assert {playing, ended} <= first


async def rewrite_game_as_owner(db: asyncpg.Connection, game_id: UUID) -> int:
    """What a superuser can do to a game: change its first ante (10 chips become 1), re-chain every record after it,
    move the row's head and tree head to match, and delete its checkpoints. Returns the changed record's seq."""
    rows = await db.fetch("SELECT seq, body FROM audit_log WHERE table_id = $1 ORDER BY seq", game_id)
    bodies = [bytes(r["body"]) for r in rows]
    seq = next(i for i, body in enumerate(bodies, start=1) if b'"reason":"ante"' in body)
    assert b'"delta":-10,' in bodies[seq - 1]
    bodies[seq - 1] = bodies[seq - 1].replace(b'"delta":-10,', b'"delta":-1,')
    await rechain_as_owner(db, game_id, bodies, "inbetween_games")
    return seq


async def test_an_owners_rechained_rewrite_of_a_game_is_caught_by_verify_against_a_kept_export(
    database_server: str, clock: ManualClock, tmp_path: Path
) -> None:
    key = tmp_path / "verifier.key"
    key.write_text(AUDIT_KEY.verifier_key)
    kept, later = tmp_path / "kept.jsonl", tmp_path / "later.jsonl"
    async with scratch_database(database_server) as url:  # its own: the rewrite leaves a forged chain behind
        settings = make_settings(url, checkpoint_every_seconds=60)
        db = await asyncpg.connect(url)
        try:
            async with live(settings, clock=clock) as server:
                game_id = UUID((await start(server.api, humans("alice", "bob"), POSTS))["game_id"])
                await anchor_due(server.runner)
                code, out, err = await reddog(url, "audit", "export", "--out", str(kept))
                assert code == 0, (out, err)
                code, out, err = await reddog(url, "audit", "verify", "--json", "--public-key", str(key), str(kept))
                assert code == 0, (out, err)
                (game,) = [t for t in json.loads(out)["tables"] if t["table_id"] == str(game_id)]
                assert (game["checkpoints"], game["checkpoints_matched"]) == (1, 1)  # the export carries it

                changed = await rewrite_game_as_owner(db, game_id)
                clock.advance(3600)
                await anchor_due(server.runner)  # the service signs what the database now holds, none the wiser
            code, out, err = await reddog(url, "audit", "export", "--out", str(later))
            assert code == 0, (out, err)
        finally:
            await db.close()
    # The rewritten export alone verifies: every link and hash recomputes, and its checkpoint is genuinely signed
    code, out, err = await reddog(url, "audit", "verify", "--public-key", str(key), str(later))
    assert code == 0, (out, err)
    # Against the kept export's checkpoint it does not: the game's records differ from what was signed
    code, out, err = await reddog(url, "audit", "verify", "--public-key", str(key), "--kept", str(kept), str(later))
    assert code == 1, (out, err)
    (line,) = [line for line in out.splitlines() if line.startswith(f"table {game_id}:")]
    size = len([r for r in kept.read_text().splitlines() if f'"table_id":"{game_id}","seq"' in r])
    assert f"BROKEN at seq 1: records 1..{size} differ from what the checkpoint of size {size} signed" in line
    assert f"(kept in {kept})" in line
    assert 1 <= changed <= size
    assert out.splitlines()[-1].endswith("signatures checked: 1 FAULTS")  # the game's, and nothing else
