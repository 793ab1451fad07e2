"""The system chain: service start and stop with the version, git revision and settings (never a secret), migrations
with the sha256 of what ran, failed authentications at most once a minute per operator id and address, and the chain
verified and checkpointed like any table's."""

from __future__ import annotations

import hashlib
import os
import socket
from importlib import metadata
from pathlib import Path
from typing import Any
from uuid import UUID

import asyncpg

from audit.chain import Record
from audit.proof_check import open_table_checkpoint
from audit.signed_note import parse_verifier
from audit.system_events import (
    SYSTEM_CHAIN_ID,
    AuthenticationFailed,
    MigrationApplied,
    ServiceStarted,
    ServiceStopped,
    SystemEvent,
    decode_system_record,
)
from service.api import auth_failures
from service.chains.checkpoints import anchor_due
from tests.conftest import AUDIT_KEY, make_settings
from tests.support.client import Signed
from tests.support.clock import ManualClock
from tests.support.live import live
from tests.support.scratch import verified_scratch_database, verify_everything

SYSTEM = UUID(SYSTEM_CHAIN_ID)
ROOT = Path(__file__).resolve().parents[2]
MIGRATIONS = ROOT / "service" / "db" / "migrations"
RELEASED = {f"{p.parent.name}/{p.stem}" for p in ROOT.glob("paytables/red_dog/released/*/*.toml")}


async def system_records(db: asyncpg.Connection, after: int = 0) -> list[tuple[bytes, Record[SystemEvent]]]:
    rows = await db.fetch("SELECT body FROM audit_log WHERE table_id = $1 AND seq > $2 ORDER BY seq", SYSTEM, after)
    return [(r["body"], decode_system_record(r["body"])) for r in rows]


async def system_seq(db: asyncpg.Connection) -> int:
    seq: int = await db.fetchval("SELECT audit_seq FROM system_chain")
    return seq


async def test_a_start_and_a_stop_are_recorded_with_version_revision_and_settings_but_no_secret(
    database_url: str, db: asyncpg.Connection, clock: ManualClock
) -> None:
    settings = make_settings(
        database_url, git_revision="0123abc", checkpoint_every_records=50, rollback_grace_seconds=120
    )
    before = await system_seq(db)
    async with live(settings, clock=clock):
        pass
    mine = f"{socket.gethostname()}:{os.getpid()}"
    found = [(body, r) for body, r in await system_records(db, before) if getattr(r.event, "instance", "") == mine]
    kinds = [type(r.event) for _, r in found]
    assert kinds == [ServiceStarted, ServiceStopped]
    started, stopped = found[0][1].event, found[1][1].event
    assert isinstance(started, ServiceStarted)
    assert isinstance(stopped, ServiceStopped)
    assert (started.version, started.git_revision) == (metadata.version("reddog"), "0123abc")
    assert (stopped.version, stopped.git_revision) == (metadata.version("reddog"), "0123abc")
    shown = started.settings
    assert shown.operators == tuple(sorted(settings.operators))
    assert shown.auditors == ("lab",)
    assert (shown.allow_test_tables, shown.checkpoint_every_records, shown.env) == (True, 50, "development")
    assert shown.rollback_grace_seconds == 120
    assert shown.audit_key == AUDIT_KEY.verifier_key
    assert set(shown.paytables) == RELEASED
    seed = AUDIT_KEY.signer_key.split("+", 4)[4]  # PRIVATE+KEY+<name>+<id>+<base64>: the base64 may hold '+' itself
    secrets = [*settings.operators.values(), *settings.auditors.values(), seed]
    for body, _ in found:
        for secret in secrets:
            assert secret.encode() not in body
    assert started.started_at <= stopped.stopped_at


async def test_each_migration_applied_is_recorded_with_the_sha256_of_its_file(database_server: str) -> None:
    async with verified_scratch_database(database_server) as database:
        db = await asyncpg.connect(database.owner_url)
        try:
            events = [r.event for _, r in await system_records(db)]
        finally:
            await db.close()
    files = sorted(MIGRATIONS.glob("*.sql"))
    expected = [(f.stem, hashlib.sha256(f.read_bytes()).hexdigest()) for f in files]
    assert [(e.version, e.sha256) for e in events if isinstance(e, MigrationApplied)] == expected
    assert len(expected) >= 4


async def _fail(client: Any, operator_id: str, clock: ManualClock) -> None:
    intruder = Signed(client, operator_id, "not-the-secret", clock=clock)
    response = await intruder.get("/v1/tables")
    assert response.status_code == 401


def _failures(records: list[tuple[bytes, Record[SystemEvent]]], operator_id: str) -> list[AuthenticationFailed]:
    found = [r.event for _, r in records]
    return [e for e in found if isinstance(e, AuthenticationFailed) and e.operator_id == operator_id]


async def test_failed_authentications_are_recorded_at_most_once_a_minute_per_known_id_and_address_with_their_count(
    database_url: str, db: asyncpg.Connection, clock: ManualClock
) -> None:
    settings = make_settings(database_url)
    operator = next(iter(settings.operators))
    before = await system_seq(db)
    async with live(settings, clock=clock) as server:
        client = server.api.client
        start = clock.now
        for _ in range(5):  # one record for the first, four counted
            await _fail(client, operator, clock)
        await _fail(client, "nobody-" + operator, clock)  # an unknown id: counted with every other one, unnamed
        clock.advance(61)
        await _fail(client, operator, clock)  # a minute on: one record for the four and this one
        for _ in range(2):
            await _fail(client, operator, clock)
        await auth_failures.flush(server.runner)  # (other tests' pairs may be due; this one is not)
        assert len(_failures(await system_records(db, before), operator)) == 2  # its last record is not a minute old
        clock.advance(61)
        await auth_failures.flush(server.runner)  # the tail of the burst, recorded by the flush
        assert len(_failures(await system_records(db, before), operator)) == 3
        await server.api.ok("GET", "/v1/tables")  # the right secret is not a failure
    records = await system_records(db, before)
    mine = _failures(records, operator)
    assert [e.count for e in mine] == [1, 5, 2]
    assert {e.remote_address for e in mine} == {"127.0.0.1"}
    assert mine[0].first_at == mine[0].last_at
    assert start < mine[0].first_at < mine[1].first_at < mine[1].last_at < mine[2].first_at <= mine[2].last_at
    assert _failures(records, "nobody-" + operator) == []  # test_auth_failure_limits.py counts those
    assert sum(1 for _, r in records if isinstance(r.event, AuthenticationFailed)) >= 3


async def test_the_system_chain_verifies_with_the_tables_and_is_checkpointed_for_auditors(
    database_url: str, db: asyncpg.Connection, clock: ManualClock
) -> None:
    settings = make_settings(database_url, checkpoint_every_records=10_000)
    async with live(settings, clock=clock) as server:
        clock.advance(3600)  # whatever the last checkpoint, it is old now
        await anchor_due(server.runner)
        auditor = Signed(server.api.client, "lab", settings.auditors["lab"], clock=clock)
        latest = await auditor.ok("GET", f"/v1/audit/checkpoints/latest?table_id={SYSTEM_CHAIN_ID}")
    report = await verify_everything(db)
    system = report.chains.tables[0]  # the nil UUID sorts first
    assert system.table_id == SYSTEM_CHAIN_ID
    assert system.first_broken is None, system.first_broken
    checkpoint = open_table_checkpoint(latest["note"], parse_verifier(AUDIT_KEY.verifier_key), SYSTEM_CHAIN_ID)
    assert 0 < checkpoint.size <= system.records
    assert latest["tree_size"] == checkpoint.size
