"""The primary killed under load and its standby promoted: the service follows the multi-host DATABASE_URL to the
new primary by itself; with synchronous replication nothing a client was answered for is lost or doubled, and the
checkpoints published before the failover still hold. With asynchronous replication, what is lost is measured and
found by the replies the clients kept (docs/faults.md)."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any
from uuid import UUID

import asyncpg
import msgspec
import pytest

from audit.verify_export import ExportVerifier
from service.chains import checkpoint_store
from service.chains.audit_verify import DatabaseReport, verify_database
from service.settings import Settings
from tests.conftest import make_settings
from tests.faults.load import ANTE, assert_paid_once, assert_settled_by_hand, audit_verify, history
from tests.support.client import Signed
from tests.support.debian_cluster import Node, Pair, binaries, replicated_pair
from tests.support.live import live
from tests.support.private_cluster import migrate_for_tests
from tests.support.reddog_command import reddog_with_store
from tests.support.tools import missing

# `make fuzz` runs the long form: more clients, more rounds before the kill, a longer gap before the promotion.
CLIENTS = int(os.environ.get("RD_FAULT_CLIENTS", "4"))
ACKNOWLEDGED_BEFORE = int(os.environ.get("RD_FAILOVER_ROUNDS", "100"))  # rounds answered before the kill
GAP_SECONDS = float(os.environ.get("RD_FAULT_GAP_SECONDS", "1"))  # from the kill to the promotion
SERVE_AGAIN_SECONDS = 10  # the promise: serving again this soon after the promotion, without a restart
GIVE_UP_SECONDS = 30
LAGGING = int(os.environ.get("RD_FAILOVER_LAGGING", "20"))  # rounds the asynchronous standby misses before the kill
FIGURES = os.environ.get("RD_FAILOVER_FIGURES")  # a file the measured figures are appended to, as JSON lines


class Exchange(msgspec.Struct, kw_only=True):
    """One request as the client sent it, every answer it got (a 503 retried with the same key and bytes)."""

    path: str
    key: str
    body: bytes
    table_id: str  # the table it plays on
    answers: list[tuple[float, int]] = msgspec.field(default_factory=list)  # (monotonic time, status)
    content: bytes = b""  # the last answer's bytes

    @property
    def acknowledged(self) -> bool:
        return bool(self.answers) and self.answers[-1][1] in (200, 201)


@pytest.fixture(autouse=True)
def debian_binaries() -> None:
    if binaries() is None:
        missing("Debian's PostgreSQL binaries (apt-get install postgresql) are not installed")


def forked(exchange: Exchange) -> bool:
    """Whether the last answer was the fork guard's refusal (a chain behind its published checkpoint)."""
    if not exchange.answers or exchange.answers[-1][1] != 503:
        return False
    return bool(json.loads(exchange.content).get("code") == "CHAIN_BEHIND_CHECKPOINT")


async def until_answered(api: Signed, exchange: Exchange) -> Exchange:
    """What an aggregator does: retry a 503 with the same key and bytes until the service answers."""
    deadline = time.monotonic() + GIVE_UP_SECONDS
    while True:
        response = await api.post(exchange.path, key=exchange.key, raw=exchange.body)
        exchange.answers.append((time.monotonic(), response.status_code))
        exchange.content = response.content
        if response.status_code == 503 and forked(exchange):  # the fork guard: final until an operator decides
            assert response.json()["retryable"] is False
            return exchange
        if response.status_code == 503:  # the gap's answer: retryable, and says when to try again
            problem = response.json()
            assert (problem["code"], problem["retryable"], response.headers.get("retry-after")) == (
                "SERVICE_UNAVAILABLE",
                True,
                "1",
            )
        if response.status_code != 503 or time.monotonic() > deadline:
            return exchange
        await asyncio.sleep(0.05)


async def play(
    api: Signed, table_id: str, name: str, log: list[Exchange], stop: asyncio.Event, *, may_lose: bool
) -> None:
    """Rounds on one table until told to stop, every spread decided, each request logged as it goes out; when
    the failover `may_lose` a round, its decision may find it gone (404)."""
    n = 0
    while not stop.is_set():
        n += 1
        body = json.dumps({"bets": [{"player_id": "p1", "ante": ANTE}]}).encode()
        opened = Exchange(path=f"/v1/tables/{table_id}/rounds", key=f"{name}-{n}-open", body=body, table_id=table_id)
        log.append(opened)
        rnd = json.loads((await until_answered(api, opened)).content)
        if may_lose and forked(opened):  # this table's chain lost a published checkpoint: it waits for an operator
            return
        assert opened.acknowledged, rnd
        if rnd["status"] == "raise_window":
            decision = {"bet_id": rnd["bets"][0]["bet_id"], "action": ("call", "raise")[n % 2]}
            decided = Exchange(
                path=f"/v1/rounds/{rnd['round_id']}/decisions",
                key=f"{name}-{n}-decide",
                body=json.dumps(decision).encode(),
                table_id=table_id,
            )
            log.append(decided)
            await until_answered(api, decided)
            if may_lose and forked(decided):
                return
            assert decided.acknowledged or (may_lose and decided.answers[-1][1] == 404), decided.content


async def until(holds: Any, failure: str, seconds: float = GIVE_UP_SECONDS) -> float:
    """Poll until `holds()`; the monotonic time it first held."""
    deadline = time.monotonic() + seconds
    while not holds():
        if time.monotonic() > deadline:
            raise AssertionError(f"{failure} (waited {seconds} s)")
        await asyncio.sleep(0.01)
    return time.monotonic()


async def streaming(primary: Node, *, synchronous: bool) -> None:
    """Wait for the standby to stream from the primary (and to be its synchronous standby when asked)."""
    conn = await asyncpg.connect(primary.owner_url)
    try:
        want = "sync" if synchronous else "async"
        for _ in range(500):
            state = await conn.fetchval("SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby'")
            if state == want:
                return
            await asyncio.sleep(0.02)
        raise AssertionError(f"the standby never streamed as {want}")
    finally:
        await conn.close()


async def cut_off(pair: Pair) -> None:
    """The standby stops receiving WAL: pointed at a port nobody listens on, its stream from the primary ended."""
    standby = await asyncpg.connect(pair.standby.owner_url)
    primary = await asyncpg.connect(pair.primary.owner_url)
    try:
        await standby.execute("ALTER SYSTEM SET primary_conninfo = 'host=127.0.0.1 port=1 application_name=standby'")
        await standby.execute("SELECT pg_reload_conf()")
        for _ in range(500):
            await primary.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_replication WHERE application_name = 'standby'"
            )
            if not await primary.fetchval("SELECT count(*) FROM pg_stat_replication"):
                return
            await asyncio.sleep(0.02)
        raise AssertionError("the standby kept streaming")
    finally:
        await standby.close()
        await primary.close()


async def published(api: Signed, tables: list[str]) -> dict[str, tuple[int, str]]:
    """The latest checkpoint the service published for each table: what an auditor keeps."""
    kept = {}
    for table_id in tables:
        response = await api.get(f"/v1/audit/checkpoints/latest?table_id={table_id}")
        if response.status_code == 200:
            kept[table_id] = (response.json()["tree_size"], response.json()["note"])
    return kept


class Failover(msgspec.Struct, frozen=True, kw_only=True):
    clients: int
    acknowledged: int  # requests answered 2xx
    rounds_acknowledged: int
    refused: int  # 503s answered in the gap
    killed: float  # monotonic times
    served: float
    cut: float | None  # when the standby stopped receiving WAL, if it was cut off
    gap_seconds: float  # from the kill to the promotion
    served_again_seconds: float  # from the promotion to the first 2xx after it
    log: list[Exchange]
    tables: list[str]
    kept: dict[str, tuple[int, str]]


async def fail_over(pair: Pair, api: Signed, *, lagging: int = 0) -> Failover:
    """Clients under load; the primary killed (-9) once ACKNOWLEDGED_BEFORE rounds were answered; the standby
    promoted GAP_SECONDS later; the load goes on until a request is answered on the new primary. With `lagging`,
    the standby is cut off from the primary (a partition: an asynchronous standby falls behind unnoticed) for that
    many acknowledged rounds before the kill."""
    tables = [(await api.table(name=f"failover-{i}"))["table_id"] for i in range(CLIENTS)]
    log: list[Exchange] = []
    stop = asyncio.Event()
    players = [
        asyncio.create_task(play(api, t, f"c{i}", log, stop, may_lose=lagging > 0)) for i, t in enumerate(tables)
    ]

    def rounds() -> int:
        return sum(e.acknowledged and e.path.endswith("/rounds") for e in log)

    await until(lambda: rounds() >= ACKNOWLEDGED_BEFORE, "the clients' rounds were not answered", seconds=120)
    cut = None
    if lagging:
        await cut_off(pair)
        cut, before = time.monotonic(), rounds()
        await until(lambda: rounds() >= before + lagging, "no rounds while the standby was cut off", seconds=60)
    kept = await published(api, tables)
    killed = time.monotonic()
    pair.primary.kill()
    unready = await api.client.get("/health/ready")
    assert unready.status_code == 503, unready.text
    await asyncio.sleep(max(0.0, GAP_SECONDS - (time.monotonic() - killed)))
    # Stamped when the promotion is asked for, not when `pg_ctl promote` returns: the server leaves recovery
    # before pg_ctl's next poll sees it, and the service's first answers (the fork guard's refusals) can come in
    # between, which a stamp taken afterwards would call "before the promotion".
    promoted = time.monotonic()
    await asyncio.to_thread(pair.standby.promote)

    def served_again() -> bool:
        for player in players:  # a client that failed says why, rather than the wait below timing out
            if player.done() and player.exception() is not None:
                raise player.exception()  # type: ignore[misc]
        return any(t > promoted and (s in (200, 201) or forked(e)) for e in log for t, s in e.answers)

    served = await until(  # an answer: a 2xx, or the fork guard's refusal of a chain cut short
        served_again, "the service never served again after the promotion", seconds=SERVE_AGAIN_SECONDS
    )
    await asyncio.sleep(0.2)  # a few rounds on the new primary too
    stop.set()
    await asyncio.gather(*players)
    return Failover(
        clients=CLIENTS,
        acknowledged=sum(e.acknowledged for e in log),
        rounds_acknowledged=sum(e.acknowledged and e.path.endswith("/rounds") for e in log),
        refused=sum(s == 503 for e in log for _, s in e.answers),
        killed=killed,
        served=served,
        cut=cut,
        gap_seconds=round(promoted - killed, 3),
        served_again_seconds=round(served - promoted, 3),
        log=log,
        tables=tables,
        kept=kept,
    )


def write_figures(mode: str, figures: dict[str, Any]) -> None:
    print(f"failover ({mode}): {figures}")  # the figures docs/faults.md quotes, seen with -s
    if FIGURES:
        with open(FIGURES, "a") as out:
            out.write(json.dumps({"mode": mode, **figures}) + "\n")


def guarded(url: str, store: Path) -> Settings:
    """The service under test, with the fork guard's checkpoint store on a directory outside both servers."""
    return make_settings(
        url, pool_min_size=2, pool_max_size=4, checkpoint_every_records=10, checkpoint_store=str(store)
    )


async def test_a_synchronous_standby_promoted_after_the_primary_is_killed_loses_nothing_and_doubles_nothing(
    tmp_path: Path,
) -> None:
    store = tmp_path / "checkpoints"
    with replicated_pair(synchronous=True) as pair:
        await migrate_for_tests(pair.primary.owner_url)
        await streaming(pair.primary, synchronous=True)
        async with live(guarded(pair.app_url, store)) as server:
            run = await fail_over(pair, server.api)
            # The guard was armed (every table's published checkpoint kept) and found nothing to refuse.
            assert {str(t) for t in checkpoint_store.read_all(store)} >= set(run.kept)
            assert not any(forked(e) for e in run.log)
            # Every answered request, sent again with its key and bytes, is answered with the same bytes.
            replays = [e for e in run.log if e.acknowledged]
            for exchange in replays:
                again = await server.api.post(exchange.path, key=exchange.key, raw=exchange.body)
                assert (again.status_code, again.content) == (exchange.answers[-1][1], exchange.content)
            statuses = {s for e in run.log for _, s in e.answers}
            assert statuses <= {200, 201, 503}, statuses
            gap = [at for e in run.log for at, s in e.answers if s == 503]
            assert gap, "no request met the gap"
            assert all(run.killed - 0.1 <= at <= run.served + 1 for at in gap), "a 503 outside the gap"
            refused = [json.loads(e.content) for e in run.log if e.answers and e.answers[-1][1] == 503]
            assert refused == [], refused[:3]  # every 503 was retried to an answer
            histories = {}
            for table_id in run.tables:
                stored = histories[table_id] = await history(server.api, table_id)
                answered = {
                    json.loads(e.content)["round_id"] for e in run.log if e.acknowledged and e.table_id == table_id
                }
                assert {r["round_id"] for r in stored} == answered  # none lost, none the clients never asked for
                for rnd in stored:
                    assert_settled_by_hand(rnd)
        conn = await asyncpg.connect(pair.standby.owner_url)
        try:
            for table_id in run.tables:
                await assert_paid_once(conn, table_id, histories[table_id])
            report = await _verify_with(conn, run.kept)
        finally:
            await conn.close()
        assert report.ok, (report.chains.faults[:5], report.rounds.differences[:5])
        assert report.chains.checkpoints_matched >= len(run.kept) > 0
        audit_verify(pair.standby.owner_url)
    write_figures(
        "synchronous",
        {
            "clients": run.clients,
            "rounds_acknowledged": run.rounds_acknowledged,
            "requests_acknowledged": run.acknowledged,
            "lost": 0,
            "doubled": 0,
            "503s": run.refused,
            "gap_seconds": run.gap_seconds,
            "served_again_seconds": run.served_again_seconds,
        },
    )


async def _verify_with(conn: asyncpg.Connection, kept: dict[str, tuple[int, str]]) -> DatabaseReport:
    """`reddog audit verify --db` with the checkpoints kept from before: every chain must still match them."""
    checker = ExportVerifier()
    for table_id, (size, note) in kept.items():
        checker.keep(table_id, size, note, "published before the failover")
    async with conn.transaction(isolation="repeatable_read", readonly=True):
        return await verify_database(conn, checker)


async def test_an_asynchronous_standby_left_behind_loses_only_a_tail_the_replies_name_and_doubles_nothing(
    tmp_path: Path,
) -> None:
    """Measured, not promised: what asynchronous replication loses when the primary dies is the acknowledged
    requests the standby had not received; the replies the clients kept name them, one tail per table. A table
    whose lost tail held a published checkpoint is refused (the fork guard) until an operator accepts the fork."""
    store = tmp_path / "checkpoints"
    with replicated_pair(synchronous=False) as pair:
        await migrate_for_tests(pair.primary.owner_url)
        await streaming(pair.primary, synchronous=False)
        async with live(guarded(pair.app_url, store)) as server:
            run = await fail_over(pair, server.api, lagging=LAGGING)
            lost = [e for table_id in run.tables for e in await lost_tail(server.api, table_id, run)]
            refused = {e.table_id for e in run.log if forked(e)}
            heads = await table_heads(pair.standby.owner_url, run.tables)
            # Behind what an auditor was handed before the kill: refused; refused: behind what the store kept.
            assert {t for t, (size, _) in run.kept.items() if heads[t] < size} <= refused
            for table_id in refused:
                entry = checkpoint_store.read(store, UUID(table_id))
                assert entry is not None
                assert heads[table_id] < entry.kept.tree_size
            assert refused, "no published checkpoint was lost: the cut-off was too short to test the guard"
            for table_id in run.tables:  # still refused, on a second ask, until the decision
                still = await server.api.post(
                    f"/v1/tables/{table_id}/rounds", {"bets": [{"player_id": "p", "ante": 1}]}
                )
                assert (still.status_code == 503) == (table_id in refused), still.text
            accepted = await reddog_with_store(
                pair.standby.owner_url,
                store,
                "audit",
                "accept-fork",
                *[a for t in sorted(refused) for a in ("--table", t)],
                "--note",
                "asynchronous failover: the lost tail is reconciled from the aggregator's replies",
            )
            assert accepted[0] == 0, accepted
            for table_id in refused:  # the same running service goes on from the heads the new primary holds
                await server.api.ok("POST", f"/v1/tables/{table_id}/rounds", {"bets": [{"player_id": "p", "ante": 1}]})
        assert run.cut is not None
        cut_off_ones = [e for e in run.log if e.acknowledged and run.cut < e.answers[-1][0] < run.killed]
        assert cut_off_ones, "nothing was acknowledged while the standby was cut off"
        lost_keys = {e.key for e in lost}
        assert all(e.key in lost_keys for e in cut_off_ones), "a request answered after the cut survived on the standby"
        conn = await asyncpg.connect(pair.standby.owner_url)
        try:
            plain = await _verify_with(conn, {})
            with_kept = await _verify_with(conn, run.kept)
        finally:
            await conn.close()
        assert plain.ok, (plain.chains.faults[:5], plain.rounds.differences[:5])
        decisions = await fork_decisions(pair.standby.owner_url)
        assert {d["table_id"]: (d["lost_size"], d["head_size"]) for d in decisions} == {
            t: (checkpoint_store_size(store, t, decisions), heads[t]) for t in refused
        }
    # A chain that lost records a published checkpoint covered, then grew again, no longer matches that checkpoint.
    diverged = {f.table_id for f in with_kept.chains.faults}
    write_figures(
        "asynchronous",
        {
            "clients": run.clients,
            "rounds_acknowledged": run.rounds_acknowledged,
            "requests_acknowledged": run.acknowledged,
            "lost": len(lost),
            "doubled": 0,
            "503s": run.refused,
            "gap_seconds": run.gap_seconds,
            "served_again_seconds": run.served_again_seconds,
            "acknowledged_while_cut_off": len(cut_off_ones),
            "chains_forked_from_a_published_checkpoint": len(diverged),
            "chains_refused_until_accepted": len(refused),
        },
    )


async def table_heads(owner_url: str, tables: list[str]) -> dict[str, int]:
    """Each table's chain head on a server, as its rows say (read by the test, not the guard)."""
    conn = await asyncpg.connect(owner_url)
    try:
        rows = await conn.fetch("SELECT table_id, audit_seq FROM game_tables WHERE table_id = ANY($1::uuid[])", tables)
        return {str(r["table_id"]): r["audit_seq"] for r in rows}
    finally:
        await conn.close()


async def fork_decisions(owner_url: str) -> list[dict[str, Any]]:
    conn = await asyncpg.connect(owner_url)
    try:
        rows = await conn.fetch(
            "SELECT body FROM audit_log WHERE table_id = $1 AND kind = 'fork_accepted' ORDER BY seq", UUID(int=0)
        )
        return [json.loads(r["body"])["event"] for r in rows]
    finally:
        await conn.close()


def checkpoint_store_size(store: Path, table_id: str, decisions: list[dict[str, Any]]) -> int:
    """The size of the checkpoint given up, as the decision's own copy of the signed note says."""
    [note] = [d["lost_note"] for d in decisions if d["table_id"] == table_id]
    return int(note.split("\n")[1])


async def lost_tail(api: Signed, table_id: str, run: Failover) -> list[Exchange]:
    """The acknowledged requests of one table whose effect the new primary does not hold, found as an operator
    finds them: the replies the client kept against the table's history. They must be the last acknowledged
    before the kill (a tail, never a hole); nothing the history holds was left unanswered (doubled)."""
    stored = {r["round_id"]: r for r in await history(api, table_id)}
    mine = [e for e in run.log if e.acknowledged and e.table_id == table_id]
    answered = {json.loads(e.content)["round_id"] for e in mine}
    assert set(stored) <= answered, "a round no client was answered for: doubled"
    gone = [e for e in mine if not _holds(stored, e)]
    if gone:
        first_gone = min(e.answers[-1][0] for e in gone)
        after = [e for e in mine if first_gone <= e.answers[-1][0] < run.killed]
        assert {e.key for e in after} <= {e.key for e in gone}, "what was lost is not a tail"
    return gone


def _holds(stored: dict[str, Any], exchange: Exchange) -> bool:
    """The new primary holds what the reply said: the round it opened, or the decision's settlement."""
    reply = json.loads(exchange.content)
    found = stored.get(reply["round_id"])
    return found is not None and (exchange.path.startswith("/v1/tables/") or found["status"] == reply["status"])
