"""`reddog audit verify --db` checks each In Between game's chain beside the tables', and names a game whose chain is
broken."""

from __future__ import annotations

import hashlib
from uuid import UUID

import asyncpg

from audit.verify_export import FaultKind
from service.chains.audit_verify import verify_database
from tests.api.inbetween_helpers import humans, start
from tests.support.client import Signed
from tests.support.scratch import verify_everything


async def test_the_verifier_checks_every_game_chain_and_names_a_broken_one(api: Signed, db: asyncpg.Connection) -> None:
    game_id = UUID((await start(api, humans("alice", "bob"), ["4S", "JH"]))["game_id"])
    head = await db.fetchval("SELECT audit_seq FROM inbetween_games WHERE game_id = $1", game_id)
    (game,) = [t for t in (await verify_everything(db)).chains.tables if t.table_id == str(game_id)]
    assert (game.first_broken, game.records, game.head_seq) == (None, head, head)
    # One snapshot that sees the forged record: other tests' games move on meanwhile, and a head read before their
    # records would see records past it.
    transaction = db.transaction(isolation="repeatable_read")
    await transaction.start()
    try:
        # A record appended behind the game's back, chained to nothing, its head left alone.
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
        report = await verify_database(db)
    finally:
        await transaction.rollback()
    assert not report.ok
    assert {f.table_id for f in report.chains.faults} == {str(game_id)}
    assert [(f.kind, f.seq, f.detail) for f in report.chains.faults] == [
        (FaultKind.CHANGED, head + 1, f"seq {head + 1}: its body no longer hashes to its hash (changed)"),
        (FaultKind.INSERTED, head + 1, f"the chain runs to seq {head + 1}, past its head {head}"),
    ]
    assert (await verify_everything(db)).chains.ok
