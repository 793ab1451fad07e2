"""Signed checkpoints: each table's tree head grows with its chain, checkpoints land every N records and after T
seconds, replicas never sign a size twice, and every checkpoint's root is the root of the chain it names."""

from __future__ import annotations

import asyncio
from typing import Any
from uuid import UUID

import asyncpg
import pytest

from audit import merkle
from audit.proof_check import open_table_checkpoint
from audit.signed_note import parse_verifier
from service.chains.checkpoints import anchor_due
from service.settings import Settings
from tests.conftest import AUDIT_KEY, make_settings
from tests.support.clock import ManualClock
from tests.support.live import live
from tests.support.scratch import TEST_APP_ROLE

VERIFIER = parse_verifier(AUDIT_KEY.verifier_key)


async def chain_hashes(db: asyncpg.Connection, table_id: str) -> list[bytes]:
    rows = await db.fetch("SELECT hash FROM audit_log WHERE table_id = $1 ORDER BY seq", UUID(table_id))
    return [r["hash"] for r in rows]


async def checkpoints_of(db: asyncpg.Connection, table_id: str) -> list[asyncpg.Record]:
    return await db.fetch(
        "SELECT tree_size, root, note, created_at FROM audit_checkpoints WHERE table_id = $1 ORDER BY tree_size",
        UUID(table_id),
    )


async def head_seq(db: asyncpg.Connection, table_id: str) -> int:
    seq: int = await db.fetchval("SELECT audit_seq FROM game_tables WHERE table_id = $1", UUID(table_id))
    return seq


async def play_round(api: Any, table_id: str, cards: list[str]) -> Any:
    body = {"bets": [{"player_id": "p1", "ante": 10}, {"player_id": "p2", "ante": 10}], "forced_cards": cards}
    rnd = await api.ok("POST", f"/v1/tables/{table_id}/rounds", body)
    if rnd["status"] == "raise_window":
        rnd = await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/close")
    return rnd


HANDS = [["4S", "TH", "7D"], ["5S", "6H"], ["8S", "8H", "8D"], ["2S", "KH", "AD"], ["3C", "9D", "9H"]]


async def test_the_tree_head_kept_with_each_append_is_the_root_sql_and_a_fresh_build_both_compute(
    api: Any, db: asyncpg.Connection
) -> None:
    table = await api.table(mode="test")
    for cards in HANDS:
        await play_round(api, table["table_id"], cards)
    tid = UUID(table["table_id"])
    row = await db.fetchrow(
        "SELECT audit_seq, audit_tree, audit_compact_range(table_id) AS sql FROM game_tables WHERE table_id = $1", tid
    )
    assert row is not None
    hashes = await chain_hashes(db, table["table_id"])
    assert row["audit_seq"] == len(hashes) > 20
    # The stored head is the one the migration's plpgsql computes from the records alone ...
    assert row["audit_tree"] == row["sql"]
    # ... popcount(size) hashes whose fold is the RFC 6962 root merkle.build computes from scratch.
    assert len(row["audit_tree"]) == 32 * len(hashes).bit_count()
    stored = merkle.CompactRange(
        size=len(hashes), hashes=tuple(row["audit_tree"][i : i + 32] for i in range(0, len(row["audit_tree"]), 32))
    )
    assert stored.root() == merkle.build(hashes).root()


async def test_the_append_that_passes_each_multiple_of_n_records_signs_the_chain_at_its_new_size(
    database_url: str, clock: ManualClock, db: asyncpg.Connection
) -> None:
    settings = make_settings(database_url, checkpoint_every_records=7)
    async with live(settings, clock=clock) as server:
        table = await server.api.table(mode="test")
        tid = table["table_id"]
        sizes_after_each_request = [await head_seq(db, tid)]
        replies = []
        for cards in HANDS:
            bets = [{"player_id": "p1", "ante": 10}, {"player_id": "p2", "ante": 10}]
            rnd = await server.api.ok("POST", f"/v1/tables/{tid}/rounds", {"bets": bets, "forced_cards": cards})
            sizes_after_each_request.append(await head_seq(db, tid))
            if rnd["status"] == "raise_window":
                rnd = await server.api.ok("POST", f"/v1/rounds/{rnd['round_id']}/close")
                sizes_after_each_request.append(await head_seq(db, tid))
            replies.append((rnd, sizes_after_each_request[-1]))
    # A request that carried the chain from a to b crossed a multiple of 7 when b // 7 > a // 7.
    expected = [b for a, b in zip([0, *sizes_after_each_request], sizes_after_each_request, strict=False)
                if b // 7 > a // 7]  # fmt: skip
    found = await checkpoints_of(db, tid)
    assert [c["tree_size"] for c in found] == expected
    assert len(expected) >= 3
    hashes = await chain_hashes(db, tid)
    for c in found:
        checkpoint = open_table_checkpoint(c["note"], VERIFIER, tid)
        assert (checkpoint.size, checkpoint.root) == (c["tree_size"], c["root"])
        assert checkpoint.root == merkle.root(hashes[: c["tree_size"]])
    # Each settled reply names the latest checkpoint of its table as it stood when the reply was made.
    latest = [max([s for s in expected if s <= size], default=0) for _, size in replies]
    assert [r["checkpoint_size"] for r, _ in replies] == latest
    assert latest[-1] > 0


async def test_the_background_pass_anchors_what_is_left_once_the_last_checkpoint_is_t_seconds_old(
    database_url: str, clock: ManualClock, db: asyncpg.Connection
) -> None:
    settings = make_settings(database_url, checkpoint_every_records=1000, checkpoint_every_seconds=60)
    async with live(settings, clock=clock) as server:
        table = await server.api.table(mode="test")
        tid = table["table_id"]
        assert await checkpoints_of(db, tid) == []
        await anchor_due(server.runner)  # never anchored: anchored at once
        assert [c["tree_size"] for c in await checkpoints_of(db, tid)] == [1]
        await play_round(server.api, tid, HANDS[0])
        clock.advance(59)
        await anchor_due(server.runner)  # new records, but the last checkpoint is not yet a minute old
        assert [c["tree_size"] for c in await checkpoints_of(db, tid)] == [1]
        clock.advance(1)
        await anchor_due(server.runner)
        size = await head_seq(db, tid)
        assert [c["tree_size"] for c in await checkpoints_of(db, tid)] == [1, size]
        clock.advance(3600)
        await anchor_due(server.runner)  # nothing new: nothing to sign, however long ago
        assert [c["tree_size"] for c in await checkpoints_of(db, tid)] == [1, size]


async def test_replicas_racing_to_anchor_the_same_heads_write_one_checkpoint_per_size(
    database_url: str, clock: ManualClock, db: asyncpg.Connection
) -> None:
    settings = make_settings(database_url, checkpoint_every_records=1000)
    async with live(settings, clock=clock) as first, live(settings, clock=clock) as second:
        tables = [(await first.api.table(mode="test"))["table_id"] for _ in range(3)]
        for tid in tables:
            await play_round(first.api, tid, HANDS[1])
        results = await asyncio.gather(*(anchor_due(s.runner) for s in (first, second, first, second)))
        assert all(r >= 0 for r in results)
    for tid in tables:
        found = await checkpoints_of(db, tid)
        assert [c["tree_size"] for c in found] == [await head_seq(db, tid)]


@pytest.mark.parametrize("statement", ["UPDATE audit_checkpoints SET note = 'x'", "DELETE FROM audit_checkpoints"])
async def test_checkpoints_refuse_update_and_delete_and_the_app_role_may_only_insert_and_select_them(
    db: asyncpg.Connection, statement: str
) -> None:
    transaction = db.transaction()
    await transaction.start()
    try:
        with pytest.raises(asyncpg.exceptions.InsufficientPrivilegeError, match="append-only"):
            await db.execute(statement)
    finally:
        await transaction.rollback()
    for privilege, granted in [("SELECT", True), ("INSERT", True), ("UPDATE", False), ("DELETE", False)]:
        found = await db.fetchval("SELECT has_table_privilege($1, 'audit_checkpoints', $2)", TEST_APP_ROLE, privilege)
        assert found is granted


async def test_a_server_without_a_signing_key_appends_without_checkpoints(
    database_url: str, clock: ManualClock, db: asyncpg.Connection
) -> None:
    settings: Settings = make_settings(database_url, audit_signing_key=None, checkpoint_every_records=1)
    async with live(settings, clock=clock) as server:
        table = await server.api.table(mode="test")
        rnd = await play_round(server.api, table["table_id"], HANDS[0])
        assert await anchor_due(server.runner) == 0
        response = await server.api.get(f"/v1/rounds/{rnd['round_id']}/proof")
        assert (response.status_code, response.json()["code"]) == (503, "CHECKPOINTS_DISABLED")
    assert rnd["checkpoint_size"] == 0
    assert await checkpoints_of(db, table["table_id"]) == []
