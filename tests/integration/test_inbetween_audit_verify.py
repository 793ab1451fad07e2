"""audit-verify checks each In Between game's chain beside the tables', and names a game whose chain is broken."""

from __future__ import annotations

import hashlib
from uuid import UUID

import asyncpg

from service.chains.audit_verify import broken, verify_chains
from tests.api.inbetween_helpers import humans, start
from tests.support.client import Signed


async def test_audit_verify_checks_every_game_chain_and_names_a_broken_one(api: Signed, db: asyncpg.Connection) -> None:
    game_id = UUID((await start(api, humans("alice", "bob"), ["4S", "JH"]))["game_id"])
    head = await db.fetchval("SELECT audit_seq FROM inbetween_games WHERE game_id = $1", game_id)
    report = (await verify_chains(db))[game_id]
    assert (report.ok, report.records) == (True, head)
    transaction = db.transaction()
    await transaction.start()
    try:
        # A record appended behind the game's back, chained to nothing: the chain no longer verifies.
        body = b'{"forged":true}'
        await db.execute(
            "INSERT INTO audit_log (table_id, seq, prev_hash, hash, recorded_at, kind, test, body)"
            " VALUES ($1, $2, $3, $4, now(), 'ib_passed', true, $5)",
            game_id,
            head + 1,
            bytes(32),
            hashlib.sha256(game_id.bytes + body).digest(),
            body,
        )
        expected = f"seq {head + 1}: prev_hash does not match the previous record's hash"
        assert broken(await verify_chains(db)) == {str(game_id): expected}
    finally:
        await transaction.rollback()
    assert broken(await verify_chains(db)) == {}
