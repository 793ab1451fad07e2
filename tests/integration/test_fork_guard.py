"""The fork guard on a database restored to before a published checkpoint: the chain it cut short is refused with a
stable 503 while every other table serves, until `reddog audit accept-fork` records the decision on the system chain;
then the same running service extends that chain from the head it holds.

The restore here is PostgreSQL's own copy of a database (CREATE DATABASE ... TEMPLATE) taken between two sessions of
play: the same state a point-in-time restore brings back (tests/faults/test_point_in_time_restore.py does it with WAL).
"""

from __future__ import annotations

import base64
import contextlib
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit
from uuid import UUID, uuid4

import asyncpg
import msgspec
import pytest

from audit.merkle import root
from service.chains import checkpoint_store
from service.chains.checkpoint_store import Kept
from service.db.app_login import login_url
from service.settings import Settings
from tests.conftest import make_settings
from tests.faults.load import ANTE
from tests.support.client import Signed
from tests.support.database import with_database
from tests.support.live import live
from tests.support.reddog_command import reddog_with_store
from tests.support.scratch import TEST_LOGIN, TEST_LOGIN_PASSWORD, scratch_database

SYSTEM = "00000000-0000-0000-0000-000000000000"


async def play(api: Signed, table_id: str, rounds: int) -> None:
    for _ in range(rounds):
        rnd = await api.ok("POST", f"/v1/tables/{table_id}/rounds", {"bets": [{"player_id": "p1", "ante": ANTE}]})
        if rnd["status"] == "raise_window":
            decision = {"bet_id": rnd["bets"][0]["bet_id"], "action": "call"}
            await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/decisions", decision)


async def latest(api: Signed, table_id: str) -> dict[str, Any]:
    return dict(await api.ok("GET", f"/v1/audit/checkpoints/latest?table_id={table_id}"))


@contextlib.asynccontextmanager
async def copied(server_url: str, owner_url: str) -> AsyncIterator[str]:
    """A copy of the database as it is now (nobody may be connected to it): what a restore to now brings back."""
    name = f"reddog_restored_{uuid4().hex[:12]}"
    source = urlsplit(owner_url).path.lstrip("/")
    admin = await asyncpg.connect(server_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{source}"')
        try:
            yield with_database(server_url, name)
        finally:
            await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


async def head_of(owner_url: str, table_id: str) -> int:
    conn = await asyncpg.connect(owner_url)
    try:
        seq: int = await conn.fetchval("SELECT audit_seq FROM game_tables WHERE table_id = $1", UUID(table_id))
        return seq
    finally:
        await conn.close()


async def system_head(owner_url: str) -> int:
    conn = await asyncpg.connect(owner_url)
    try:
        seq: int = await conn.fetchval("SELECT coalesce(max(seq), 0) FROM audit_log WHERE table_id = $1", UUID(SYSTEM))
    finally:
        await conn.close()
    return seq


async def accepted_records(owner_url: str) -> list[dict[str, Any]]:
    conn = await asyncpg.connect(owner_url)
    try:
        rows = await conn.fetch(
            "SELECT body FROM audit_log WHERE table_id = $1 AND kind = 'fork_accepted' ORDER BY seq", UUID(SYSTEM)
        )
        return [json.loads(r["body"])["event"] for r in rows]
    finally:
        await conn.close()


def with_store(settings: Settings, store: Path) -> Settings:
    return msgspec.structs.replace(settings, checkpoint_store=str(store))


async def test_a_chain_restored_behind_its_published_checkpoint_is_refused_until_an_operator_accepts_the_fork(
    database_server: str, tmp_path: Path
) -> None:
    store = tmp_path / "checkpoints"
    async with scratch_database(database_server) as owner_url:
        settings = with_store(
            make_settings(login_url(owner_url, TEST_LOGIN, TEST_LOGIN_PASSWORD), checkpoint_every_records=5), store
        )
        async with live(settings) as server:
            cut, kept = (
                (await server.api.table(name="cut"))["table_id"],
                (await server.api.table(name="kept"))["table_id"],
            )
            await play(server.api, cut, 3)
            await play(server.api, kept, 3)
        async with copied(database_server, owner_url) as restored_owner:  # the backup, before the rest of the day
            async with live(settings) as server:
                await play(server.api, cut, 4)  # past another checkpoint, handed out
                published = await latest(server.api, cut)
            restored_head = await head_of(restored_owner, cut)
            assert restored_head < published["tree_size"]  # the restore really lost a published part of the chain
            entry = checkpoint_store.read(store, UUID(cut))
            assert entry is not None
            assert (entry.kept.tree_size, entry.kept.note) == (
                published["tree_size"],
                published["note"],
            )

            restored = msgspec.structs.replace(
                settings, database_url=login_url(restored_owner, TEST_LOGIN, TEST_LOGIN_PASSWORD)
            )
            async with live(restored) as server:
                body = {"bets": [{"player_id": "p1", "ante": ANTE}]}
                refused = await server.api.post(f"/v1/tables/{cut}/rounds", body)
                problem = refused.json()
                assert (refused.status_code, problem["code"], problem["retryable"]) == (
                    503,
                    "CHAIN_BEHIND_CHECKPOINT",
                    False,
                ), problem
                assert f"size {published['tree_size']}" in problem["detail"]
                assert await head_of(restored_owner, cut) == restored_head  # nothing was written
                assert (await server.api.get(f"/v1/tables/{cut}")).status_code == 200  # reads go on
                await play(server.api, kept, 2)  # the other table serves

                # The restore may also have lost system records a published checkpoint covered (how many the
                # system chain holds at the backup depends on how many migrations the release has): the tool asks
                # for that fork first, as an operator would be told.
                system_entry = checkpoint_store.read(store, UUID(SYSTEM))
                if system_entry is not None and await system_head(restored_owner) < system_entry.kept.tree_size:
                    first = await reddog_with_store(
                        restored_owner, store, "audit", "accept-fork", "--table", "system", "--note", "restored"
                    )
                    assert first[0] == 0, first
                done = await reddog_with_store(
                    restored_owner, store, "audit", "accept-fork", "--table", cut, "--note", "lost"
                )
                assert done[0] == 0, done
                await play(server.api, cut, 1)  # the same running service goes on from the head it holds
                again = await reddog_with_store(
                    restored_owner, store, "audit", "accept-fork", "--table", cut, "--note", "x"
                )
                assert again[0] != 0, again
                assert "nothing to accept" in again[2], again

            [record] = [r for r in await accepted_records(restored_owner) if r["table_id"] == cut]
            assert (record["table_id"], record["note"], record["lost_size"], record["head_size"]) == (
                cut,
                "lost",
                published["tree_size"],
                restored_head,
            )
            assert (record["lost_root"], record["lost_note"]) == (published["root"], published["note"])
            conn = await asyncpg.connect(restored_owner)
            try:
                hashes = await conn.fetch(
                    "SELECT hash FROM audit_log WHERE table_id = $1 AND seq <= $2 ORDER BY seq",
                    UUID(cut),
                    restored_head,
                )
            finally:
                await conn.close()
            assert record["head_root"] == base64.b64encode(root([h["hash"] for h in hashes])).decode()


@pytest.mark.parametrize("order", [(3, 5), (5, 3)])
def test_the_store_keeps_the_larger_checkpoint_whichever_replica_publishes_first(
    tmp_path: Path, order: tuple[int, int]
) -> None:
    table_id = uuid4()
    for size in order:
        checkpoint_store.publish(tmp_path, Kept(table_id=table_id, tree_size=size, root=bytes([size]) * 32, note="n"))
    entry = checkpoint_store.read(tmp_path, table_id)
    assert entry is not None
    assert (entry.kept.tree_size, entry.kept.root) == (5, bytes([5]) * 32)
    checkpoint_store.accept(tmp_path, Kept(table_id=table_id, tree_size=2, root=bytes(32), accepted_by="me"))
    entry = checkpoint_store.read(tmp_path, table_id)
    assert entry is not None
    assert (entry.kept.tree_size, entry.kept.accepted_by) == (2, "me")
    assert set(checkpoint_store.read_all(tmp_path)) == {table_id}
