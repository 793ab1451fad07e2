"""The attack checkpoints exist for: the database's owner rewrites one old record and re-chains everything after it
(the hash chain alone then verifies), and an auditor holding a checkpoint from before catches it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any
from uuid import UUID

import asyncpg
import msgspec
import pytest

from audit.chain import canonical
from audit.proof_check import ConsistencyProof, check_consistency_proof, check_root, open_table_checkpoint
from audit.records import decode_record
from audit.signed_note import parse_verifier
from audit.verify_export import verify_links
from paytables.red_dog.events import BetSettled
from service.db import audit_sql
from tests.conftest import AUDIT_KEY, make_settings
from tests.support.clock import ManualClock
from tests.support.live import live
from tests.support.owner_rewrite import rechain_as_owner
from tests.support.scratch import scratch_database

VERIFIER = parse_verifier(AUDIT_KEY.verifier_key)


@pytest.fixture
async def scratch_url(database_server: str) -> AsyncIterator[str]:
    """A database of its own: this test disables the audit log's triggers and leaves a rewritten chain behind."""
    async with scratch_database(database_server) as url:
        yield url


async def play(api: Any, table_id: str, cards: list[str]) -> Any:
    body = {"bets": [{"player_id": "p1", "ante": 10}], "forced_cards": cards}
    rnd = await api.ok("POST", f"/v1/tables/{table_id}/rounds", body)
    if rnd["status"] == "raise_window":
        rnd = await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/close")
    return rnd


async def rewrite_as_owner(db: asyncpg.Connection, table_id: UUID, round_id: str, payout: int) -> int:
    """What a superuser can do: change a settled bet's payout, recompute every later hash, move the table's head and
    tree head to match, and delete the checkpoints that would contradict it. Returns the changed record's seq."""
    rows = await db.fetch("SELECT seq, body FROM audit_log WHERE table_id = $1 ORDER BY seq", table_id)
    records = [decode_record(r["body"]) for r in rows]
    (target,) = [r for r in records if isinstance(r.event, BetSettled) and r.event.round_id == round_id]
    assert isinstance(target.event, BetSettled)
    forged = msgspec.structs.replace(target.event, payout=payout, net=payout - target.event.ante)
    bodies = [r["body"] for r in rows]
    bodies[target.seq - 1] = canonical(msgspec.structs.replace(target, event=forged))
    await rechain_as_owner(db, table_id, bodies, "game_tables")
    return target.seq


async def test_an_owners_rechained_rewrite_of_one_old_record_is_caught_against_a_kept_checkpoint(
    scratch_url: str, clock: ManualClock
) -> None:
    settings = make_settings(scratch_url, checkpoint_every_records=1000)
    db = await asyncpg.connect(scratch_url)
    try:
        async with live(settings, clock=clock) as server:
            table = await server.api.table(mode="test")
            tid = table["table_id"]
            won = await play(server.api, tid, ["4S", "TH", "7D"])  # spread 5 at 1:1, a 7 wins: payout 20
            assert won["bets"][0]["payout"] == 20
            await play(server.api, tid, ["8S", "8H", "2D"])
            await server.api.ok("GET", f"/v1/rounds/{won['round_id']}/proof")  # a checkpoint covering the round
            kept = await server.api.ok("GET", f"/v1/audit/checkpoints/latest?table_id={tid}")  # the auditor's copy

            await play(server.api, tid, ["5S", "6H"])
            before = [link.hash for link in await audit_sql.select_chain(db, UUID(tid))]
            changed_seq = await rewrite_as_owner(db, UUID(tid), won["round_id"], payout=2000)
            assert changed_seq <= kept["tree_size"]
            later = await play(server.api, tid, ["2S", "KH", "AD"])  # the service goes on, none the wiser
            await server.api.ok("GET", f"/v1/rounds/{later['round_id']}/proof")  # signs the rewritten log
            response = await server.api.get(f"/v1/audit/consistency?table_id={tid}&from={kept['tree_size']}")
            assert response.status_code == 200, response.text
            proof = msgspec.json.decode(response.content, type=ConsistencyProof)

        chain = await audit_sql.select_chain(db, UUID(tid))
        # The hash chain alone is fooled: every link and hash recomputes.
        assert verify_links(tid, chain).ok
        # The new checkpoint is genuinely signed (the service signs what the database holds) ...
        assert open_table_checkpoint(proof.checkpoint, VERIFIER, tid).size > kept["tree_size"]
        # ... but it does not extend the one the auditor kept, and the kept root no longer recomputes.
        assert check_consistency_proof(proof, kept["note"], VERIFIER) == [
            f"the log of {proof.to_size} records does not extend the kept checkpoint of {kept['tree_size']}: "
            "history changed"
        ]
        kept_checkpoint = open_table_checkpoint(kept["note"], VERIFIER, tid)
        assert check_root(kept_checkpoint, [link.hash for link in chain]) == [
            f"the first {kept['tree_size']} records do not hash to the checkpoint's root: history changed"
        ]
        # The same check passes on the chain as it was before the rewrite: the kept checkpoint was good.
        assert check_root(kept_checkpoint, before) == []
        assert [link.hash for link in chain][: changed_seq - 1] == before[: changed_seq - 1]
    finally:
        await db.close()
