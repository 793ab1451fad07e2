"""A base backup and the archived WAL restored to a point in time: the restored log is a prefix of the published one,
which the checkpoints an auditor kept from before prove (the records after the point named missing, none changed);
the service starts on it with the key the restored system chain recorded, though a rotation came after the point."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any
from uuid import UUID

import asyncpg
import msgspec
import pytest

from audit import merkle
from service.chains import checkpoint_store
from tests.conftest import make_settings
from tests.faults.load import ANTE, assert_settled_by_hand, history
from tests.integration.test_signing_key_continuity import KEY_A, KEY_B, key_file, refused, start
from tests.support.client import Signed
from tests.support.debian_cluster import Node, archiving, base_backup, binaries, new_node, restore, workspace
from tests.support.live import live
from tests.support.private_cluster import migrate_for_tests
from tests.support.reddog_command import reddog, reddog_with_store
from tests.support.tools import missing

ROUNDS = int(os.environ.get("RD_RESTORE_ROUNDS", "12"))  # rounds per table on each side of the restore point
TABLES = 2
FIGURES = os.environ.get("RD_FAILOVER_FIGURES")


@pytest.fixture(autouse=True)
def debian_binaries() -> None:
    if binaries() is None:
        missing("Debian's PostgreSQL binaries (apt-get install postgresql) are not installed")


async def play(api: Signed, tables: list[str], rounds: int) -> list[dict[str, Any]]:
    """`rounds` settled rounds on each table: opened, and decided where there is a spread."""
    played = []
    for _ in range(rounds):
        for table_id in tables:
            rnd = await api.ok("POST", f"/v1/tables/{table_id}/rounds", {"bets": [{"player_id": "p1", "ante": ANTE}]})
            if rnd["status"] == "raise_window":
                decision = {"bet_id": rnd["bets"][0]["bet_id"], "action": "call"}
                rnd = await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/decisions", decision)
            played.append(rnd)
    return played


async def fetchval(node: Node, query: str) -> Any:
    conn = await asyncpg.connect(node.owner_url)
    try:
        return await conn.fetchval(query)
    finally:
        await conn.close()


async def promoted(node: Node) -> None:
    """Wait for recovery to reach its target and the restored server to take writes."""
    for _ in range(1000):
        try:
            if not await fetchval(node, "SELECT pg_is_in_recovery()"):
                return
        except (OSError, asyncpg.PostgresError):
            pass  # still starting
        await asyncio.sleep(0.02)
    raise AssertionError("the restored server never left recovery")


async def test_a_restore_to_a_point_in_time_is_a_prefix_the_kept_checkpoints_prove_and_it_serves_again(
    tmp_path: Path,
) -> None:
    store = tmp_path / "checkpoints"
    with workspace() as folder:
        primary = new_node(folder, "primary")
        archiving(primary, folder / "archive")
        primary.start()
        try:
            await migrate_for_tests(primary.owner_url)
            base = base_backup(primary, folder, "base", standby=False)  # nightly, before the day's play
            await start(primary.app_url, KEY_A)  # production records its key on the system chain
            settings = make_settings(
                primary.app_url,
                audit_signing_key=KEY_A.signer_key,
                checkpoint_every_records=5,
                checkpoint_store=str(store),  # the fork guard's store: a volume that outlives the database
            )
            async with live(settings) as server:  # one operator throughout: each app sees the same tables
                tables = [(await server.api.table(name=f"restore-{i}"))["table_id"] for i in range(TABLES)]
                before = await play(server.api, tables, ROUNDS)
            point = await fetchval(primary, "SELECT clock_timestamp()::text")
            await asyncio.sleep(0.05)  # every commit after the point is later than it
            rotated = await reddog(
                primary.owner_url, "audit", "rotate-key", "--new-key", str(key_file(tmp_path, KEY_B, "b"))
            )
            assert rotated[0] == 0, rotated
            async with live(msgspec.structs.replace(settings, audit_signing_key=KEY_B.signer_key)) as server:
                after = await play(server.api, tables, ROUNDS)
                published = tmp_path / "published.jsonl"  # the auditor's copy, checkpoints signed by A and by B
                exported = await reddog(primary.owner_url, "audit", "export", "--out", str(published))
                assert exported[0] == 0, exported
            await fetchval(primary, "SELECT pg_switch_wal()::text")
        finally:
            primary.stop("fast")  # a clean shutdown archives every completed segment first
        restored = restore(base, folder, folder / "archive", point)
        restored.start()
        try:
            await promoted(restored)
            kept = await reddog(restored.owner_url, "audit", "verify", "--db", "--kept", str(published))
            plain = await reddog(restored.owner_url, "audit", "verify", "--db")
            # The key check compares with what the restored chain recorded: A, not the B rotated to after the point.
            refusal = await refused(restored.app_url, KEY_B)
            await start(restored.app_url, KEY_A)
            async with live(msgspec.structs.replace(settings, database_url=restored.app_url)) as again:
                stored = {r["round_id"]: r for t in tables for r in await history(again.api, t)}
                assert set(stored) == {r["round_id"] for r in before}  # every round up to the point, none after
                for rnd in before:
                    assert _settled(stored[rnd["round_id"]]) == _settled(rnd)  # as its client was told
                for rnd in stored.values():
                    assert_settled_by_hand(rnd)
                # Both tables' chains are behind checkpoints published after the point: refused, nothing written.
                for table_id in tables:
                    response = await again.api.post(
                        f"/v1/tables/{table_id}/rounds", {"bets": [{"player_id": "p", "ante": ANTE}]}
                    )
                    assert (response.status_code, response.json()["code"]) == (503, "CHAIN_BEHIND_CHECKPOINT")
                chains = [*([] if await system_caught_up(restored, store) else ["system"]), *tables]
                accepted = await reddog_with_store(
                    restored.owner_url,
                    store,
                    "audit",
                    "accept-fork",
                    *[a for c in chains for a in ("--table", c)],
                    "--note",
                    "restored to before a bad deploy",
                )
                assert accepted[0] == 0, accepted
                await play(again.api, tables, 1)  # and it serves, from the heads the restore holds
        finally:
            restored.stop()
    assert plain[0] == 0, plain
    assert kept[0] == 1, kept  # the published log went further: not OK, and why
    faults = [line.split()[0] for line in kept[1].splitlines() if line.startswith("  ")]
    assert set(faults) == {"truncated"}, kept[1]  # missing at the end, nothing changed
    assert "are missing" in kept[1]
    assert "rotate-key" in refusal
    figures = {
        "rounds_kept": len(before),
        "rounds_after_the_point": len(after),
        "verify": [line for line in kept[1].splitlines() if line.startswith("  ")] + kept[1].splitlines()[-1:],
    }
    print(f"restore: {figures}")  # the figures docs/faults.md quotes, seen with -s
    if FIGURES:
        with Path(FIGURES).open("a") as out:  # noqa: ASYNC230 - one line, after the servers are gone
            out.write(json.dumps({"mode": "restore", **figures}) + "\n")


async def system_caught_up(node: Node, store: Path) -> bool:
    """Whether the restored system chain still holds the system checkpoint the store kept (none kept: it does): as
    long as it, and its first records hash to the kept root. Its length alone is not enough: the service started on
    the restored database appends its own records, so a chain cut before the kept size may have grown past it."""
    entry = checkpoint_store.read(store, UUID(int=0))
    if entry is None:
        return True
    conn = await asyncpg.connect(node.owner_url)
    try:
        leaves = await conn.fetch(
            "SELECT hash FROM audit_log WHERE table_id = $1 AND seq <= $2 ORDER BY seq",
            UUID(int=0),
            entry.kept.tree_size,
        )
    finally:
        await conn.close()
    return len(leaves) == entry.kept.tree_size and merkle.root([r["hash"] for r in leaves]) == entry.kept.root


def _settled(rnd: dict[str, Any]) -> Any:
    """What a round's reply says happened: its cards and its bets' settlements."""
    return rnd["status"], rnd["cards"], [(b["bet_id"], b["result"], b["payout"], b["net"]) for b in rnd["bets"]]
