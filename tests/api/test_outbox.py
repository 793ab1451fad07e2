"""The transactional outbox and the settlement notifications it carries: written with the change that owes them,
delivered signed to a real HTTP receiver, one round's in order whatever workers deliver them, parked as dead letters
when the receiver stays away, and sent again or resolved by the person on call."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import os
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import asyncpg
import httpx
import msgspec
import pytest

from audit.system_events import SYSTEM_CHAIN_ID
from service.clock import system_clock
from service.db.outbox_sql import BODY
from service.db.unit_of_work import Runner
from service.outbox_settings import NotificationTarget, OutboxSettings
from service.runtime import outbox_delivery
from service.settings import Settings
from tests.api.helpers import open_round
from tests.conftest import make_settings
from tests.support.client import Signed
from tests.support.live import live
from tests.support.notification_receiver import PATH, Receiver, running
from tests.support.scratch import TEST_APP_ROLE

NEW_SECRET, OLD_SECRET = "notify-secret-new", "notify-secret-old"
AWAY_SECONDS = float(os.environ.get("RD_RECEIVER_AWAY_SECONDS", "1.5"))  # `make fuzz`: 30
CONSECUTIVE = ["5S", "6H"]  # posts one apart: the round settles at the deal (standard/v1)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with running((OLD_SECRET,)) as found:  # knows only the old secret: the rotation's second signature must verify
        yield found


def outbox_of(settings: Settings, receiver: Receiver, **options: Any) -> OutboxSettings:
    operator = next(op for op in settings.operators if op != "other")
    target = NotificationTarget(url=receiver.url, secrets=(NEW_SECRET, OLD_SECRET))
    values: dict[str, Any] = {
        "targets": {operator: target},
        "backoff_base_seconds": 0.01,
        "backoff_max_seconds": 0.05,
        "timeout_seconds": 0.5,
        "max_attempts": 100,
        **options,
    }
    return OutboxSettings(**values)


@pytest.fixture
def settings(database_url: str, receiver: Receiver) -> Settings:
    plain = make_settings(database_url, public_url="https://rd.example.com")
    return msgspec.structs.replace(plain, outbox=outbox_of(plain, receiver))


@pytest.fixture
async def runner(database_url: str, settings: Settings) -> AsyncIterator[Runner]:
    """A delivery worker's: its own pool and the real clock (backoff waits real time)."""
    pool = await asyncpg.create_pool(database_url, min_size=1, max_size=8)
    yield Runner(pool, settings, system_clock)
    await pool.close()


async def drain(runner: Runner, receiver: Receiver, expected: int, *, workers: int = 1, within: float = 20) -> None:
    """Run `workers` delivery loops side by side until the receiver has applied `expected` events."""
    deadline = time.monotonic() + within

    async def worker() -> None:
        async with httpx.AsyncClient() as client:
            while len(receiver.order) < expected and time.monotonic() < deadline:
                if not (await outbox_delivery.deliver_due(runner, client)).claimed:
                    await asyncio.sleep(0.01)

    await asyncio.gather(*(worker() for _ in range(workers)))
    assert len(receiver.order) >= expected, (len(receiver.order), expected)


async def statuses(db: asyncpg.Connection, operator: str) -> dict[str, int]:
    rows = await db.fetch("SELECT status, count(*) AS n FROM outbox WHERE operator_id = $1 GROUP BY status", operator)
    return {r["status"]: r["n"] for r in rows}


@pytest.mark.parametrize(
    ("privilege", "granted"), [("SELECT", True), ("INSERT", True), ("DELETE", False), ("TRUNCATE", False)]
)
async def test_the_app_role_may_write_and_read_outbox_rows_and_never_delete_one(
    db: asyncpg.Connection, privilege: str, granted: bool
) -> None:
    for table in ("outbox", "outbox_bodies"):  # a message's row, and its body beside it since migration 025
        assert await db.fetchval("SELECT has_table_privilege($1, $2, $3)", TEST_APP_ROLE, table, privilege) is granted


async def test_the_app_role_may_never_rewrite_a_stored_body(db: asyncpg.Connection) -> None:
    assert await db.fetchval("SELECT has_any_column_privilege($1, 'outbox_bodies', 'UPDATE')", TEST_APP_ROLE) is False


async def test_the_app_role_may_mark_an_attempt_but_never_rewrite_a_messages_id_body_or_order(
    db: asyncpg.Connection,
) -> None:
    marked = ["status", "attempts", "next_attempt_at", "last_error", "delivered_at", "parked_at", "retried_at"]
    fixed = ["seq", "message_id", "operator_id", "channel", "ordering_key", "kind", "body", "created_at"]
    found = {
        column: await db.fetchval("SELECT has_column_privilege($1, 'outbox', $2, 'UPDATE')", TEST_APP_ROLE, column)
        for column in [*marked, "position", *fixed]
    }
    assert found == {**dict.fromkeys([*marked, "position"], True), **dict.fromkeys(fixed, False)}


async def test_a_round_settled_at_the_deal_owes_one_notification_written_in_its_transaction(
    api: Signed, db: asyncpg.Connection
) -> None:
    table = await api.table(mode="test")
    rnd = await open_round(api, table["table_id"], [("p1", 10)], CONSECUTIVE)
    rows = await db.fetch(
        f"SELECT o.kind, o.status, o.ordering_key, {BODY} AS body FROM outbox o WHERE o.operator_id = $1",  # noqa: S608
        api.operator_id,
    )
    rounds = [r for r in rows if r["kind"].startswith("round.")]
    assert [(r["kind"], r["status"], r["ordering_key"]) for r in rounds] == [
        ("round.settled", "pending", f"round:{rnd['round_id']}")
    ]
    body = json.loads(rounds[0]["body"])
    assert body["data"]["round_id"] == rnd["round_id"]
    assert body["data"]["bets"][0]["net"] == 0  # consecutive pushes: the ante back, nothing won (standard/v1)
    assert body["links"]["round"] == f"https://rd.example.com/v1/rounds/{rnd['round_id']}"


async def test_a_refused_request_changes_nothing_and_owes_nothing(api: Signed, db: asyncpg.Connection) -> None:
    table = await api.table(mode="test", max_ante=100)
    before = await db.fetchval("SELECT count(*) FROM outbox WHERE operator_id = $1", api.operator_id)
    refused = await api.post(f"/v1/tables/{table['table_id']}/rounds", {"bets": [{"player_id": "p", "ante": 101}]})
    assert refused.status_code == 422
    assert await db.fetchval("SELECT count(*) FROM outbox WHERE operator_id = $1", api.operator_id) == before


async def test_an_operator_without_a_url_is_owed_nothing_but_lists_its_notifications(
    other_api: Signed, db: asyncpg.Connection, runner: Runner
) -> None:
    table = await other_api.table(mode="test")
    rnd = await open_round(other_api, table["table_id"], [("p1", 10)], CONSECUTIVE)
    assert (await statuses(db, "other")).get("pending", 0) == 0
    async with httpx.AsyncClient() as client:
        await outbox_delivery.deliver_due(runner, client)  # lists what committed
    page = await other_api.ok("GET", "/v1/notifications?after=0&limit=500")
    ids = [i["notification"]["data"].get("round_id") for i in page["notifications"]]
    assert rnd["round_id"] in ids


def verify_as_docs_say(secret: str, timestamp: str, event_id: str, body: bytes, signature: str) -> bool:
    """docs/api.md's worked example, written out again: a receiver's own check."""
    message = f"{timestamp}\nPOST\n{PATH}\n{event_id}\n".encode() + body
    return hmac.compare_digest(hmac.new(secret.encode(), message, hashlib.sha256).hexdigest(), signature)


async def test_a_notification_reaches_a_real_receiver_signed_under_both_secrets_while_one_is_rotated(
    api: Signed, receiver: Receiver, runner: Runner, db: asyncpg.Connection
) -> None:
    table = await api.table(mode="test")
    rnd = await open_round(api, table["table_id"], [("p1", 10)], CONSECUTIVE)
    await drain(runner, receiver, 1)
    assert receiver.bad_signatures == 0  # the receiver knows only the old secret
    [settled] = receiver.applied_of("round.settled")
    assert settled["data"]["round_id"] == rnd["round_id"]
    assert (await statuses(db, api.operator_id)).get("delivered", 0) >= 1
    # The signature a receiver holding only the new secret checks, over the bytes as stored.
    body = await db.fetchval(f"SELECT {BODY} FROM outbox o WHERE o.message_id = $1::uuid", settled["id"])  # noqa: S608
    new, old = _signatures(runner.settings, body, settled["id"], "1767225600")
    assert verify_as_docs_say(NEW_SECRET, "1767225600", settled["id"], body, new)
    assert verify_as_docs_say(OLD_SECRET, "1767225600", settled["id"], body, old)


def _signatures(settings: Settings, body: bytes, event_id: str, timestamp: str) -> list[str]:
    from service.chains.request_signing import notification_signatures

    target = next(iter(settings.outbox.targets.values()))
    return notification_signatures(target.secrets, timestamp, PATH, event_id, body).split(",")


async def settle_and_roll_back(api: Signed, rounds: int) -> list[str]:
    table = await api.table(mode="test")
    ids = []
    for _ in range(rounds):
        rnd = await open_round(api, table["table_id"], [("p1", 10)], CONSECUTIVE)
        done = await api.post(f"/v1/rounds/{rnd['round_id']}/rollback", {"reason": "wallet debit failed"})
        assert done.status_code == 200, done.text
        ids.append(rnd["round_id"])
    return ids


async def test_four_workers_against_a_flaky_receiver_deliver_each_rounds_notifications_once_and_in_order(
    api: Signed, receiver: Receiver, runner: Runner, db: asyncpg.Connection
) -> None:
    receiver.fail_rate = 0.3
    rounds = await settle_and_roll_back(api, 20)
    owed = await db.fetchval("SELECT count(*) FROM outbox WHERE operator_id = $1", api.operator_id)
    await drain(runner, receiver, owed, workers=4, within=60)
    assert receiver.failed > 0  # the failures happened, and were retried
    assert len(receiver.order) == len(set(receiver.order)) == owed
    for round_id in rounds:
        events = [receiver.applied[i] for i in receiver.order]
        kinds = [e["type"] for e in events if e["data"].get("round_id") == round_id]
        assert kinds == ["round.settled", "round.rolled_back"], (round_id, kinds)
    assert await statuses(db, api.operator_id) == {"delivered": owed}


async def test_the_notifications_list_serves_each_event_once_in_order_page_by_page(
    api: Signed, receiver: Receiver, runner: Runner
) -> None:
    rounds = await settle_and_roll_back(api, 3)
    async with httpx.AsyncClient() as client:
        await outbox_delivery.deliver_due(runner, client)
    seen: list[dict[str, Any]] = []
    after = 0
    while True:
        page = await api.ok("GET", f"/v1/notifications?after={after}&limit=2")
        if not page["notifications"]:
            break
        positions = [i["seq"] for i in page["notifications"]]
        assert positions == sorted(positions)
        assert positions[0] > after
        seen.extend(i["notification"] for i in page["notifications"])
        after = page["next_after"]
    round_events = [(e["data"]["round_id"], e["type"]) for e in seen if e["type"].startswith("round.")]
    expected = [(r, kind) for r in rounds for kind in ("round.settled", "round.rolled_back")]
    assert round_events == expected
    assert len({e["id"] for e in seen}) == len(seen)


async def test_a_receiver_away_parks_dead_letters_that_hold_their_round_back_until_retried_on_the_record(
    api: Signed, receiver: Receiver, runner: Runner, db: asyncpg.Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.cli import cli

    receiver.stop()
    parking = msgspec.structs.replace(runner.settings.outbox, max_attempts=2)
    runner = msgspec.structs.replace(runner, settings=msgspec.structs.replace(runner.settings, outbox=parking))
    table = await api.table(mode="test")
    rnd = await open_round(api, table["table_id"], [("p1", 10)], CONSECUTIVE)
    async with httpx.AsyncClient() as client:
        for _ in range(40):
            if (await statuses(db, api.operator_id)).get("dead", 0):
                break
            await outbox_delivery.deliver_due(runner, client)
            await asyncio.sleep(0.05)
    # The rollback after it waits behind the dead letter: one round's messages never overtake each other.
    done = await api.post(f"/v1/rounds/{rnd['round_id']}/rollback", {"reason": "wallet debit failed"})
    assert done.status_code == 200
    dead = (await api.ok("GET", "/v1/outbox/dead-letters"))["dead_letters"]
    settled_dead = [d for d in dead if d["ordering_key"] == f"round:{rnd['round_id']}"]
    assert [(d["kind"], d["attempts"]) for d in settled_dead] == [("round.settled", 2)]
    assert (await other_list(db, "other")) == []
    parked = await system_records(db, "dead_letter_parked")
    assert settled_dead[0]["message_id"] in [r["message_id"] for r in parked]
    receiver.start()
    async with httpx.AsyncClient() as client:
        for _ in range(5):
            await outbox_delivery.deliver_due(runner, client)
    assert receiver.applied_of("round.rolled_back") == []  # held back by the dead letter before it
    monkeypatch.setenv("DATABASE_URL", runner.settings.database_url or "")
    monkeypatch.setenv("RD_OPERATORS", ",".join(f"{k}:{v}" for k, v in runner.settings.operators.items()))
    assert await asyncio.to_thread(cli.main, ["outbox", "retry", settled_dead[0]["message_id"], "--by", "on-call"]) == 0
    retried = await system_records(db, "dead_letter_retried")
    assert {"message_id": settled_dead[0]["message_id"], "by": "on-call"}.items() <= retried[-1].items()
    await drain(runner, receiver, 2)
    kinds = [e["type"] for e in receiver.applied.values() if e["data"].get("round_id") == rnd["round_id"]]
    assert kinds == ["round.settled", "round.rolled_back"]


async def test_a_resolved_dead_letter_is_never_sent_and_its_resolution_is_on_the_system_chain(
    api: Signed, receiver: Receiver, runner: Runner, db: asyncpg.Connection, monkeypatch: pytest.MonkeyPatch
) -> None:
    from service.cli import cli

    receiver.stop()
    parking = msgspec.structs.replace(runner.settings.outbox, max_attempts=1)
    runner = msgspec.structs.replace(runner, settings=msgspec.structs.replace(runner.settings, outbox=parking))
    table = await api.table(mode="test")
    await open_round(api, table["table_id"], [("p1", 10)], CONSECUTIVE)
    async with httpx.AsyncClient() as client:
        await outbox_delivery.deliver_due(runner, client)
    listed = (await api.ok("GET", "/v1/outbox/dead-letters"))["dead_letters"]
    [dead] = [d for d in listed if d["kind"] == "round.settled"]
    monkeypatch.setenv("DATABASE_URL", runner.settings.database_url or "")
    monkeypatch.setenv("RD_OPERATORS", ",".join(f"{k}:{v}" for k, v in runner.settings.operators.items()))
    resolve = ["outbox", "resolve", dead["message_id"], "--note", "credited by hand", "--by", "on-call"]
    assert await asyncio.to_thread(cli.main, resolve) == 0
    with pytest.raises(SystemExit, match="dead letter not found"):
        await asyncio.to_thread(cli.main, resolve)
    resolved = await system_records(db, "dead_letter_resolved")
    assert {"message_id": dead["message_id"], "note": "credited by hand"}.items() <= resolved[-1].items()
    status = await db.fetchval("SELECT status FROM outbox WHERE message_id = $1::uuid", dead["message_id"])
    assert status == "resolved"


async def other_list(db: asyncpg.Connection, operator: str) -> list[Any]:
    return list(await db.fetch("SELECT message_id FROM outbox WHERE operator_id = $1 AND status = 'dead'", operator))


async def system_records(db: asyncpg.Connection, kind: str) -> list[dict[str, Any]]:
    rows = await db.fetch(
        "SELECT body FROM audit_log WHERE table_id = $1::uuid AND kind = $2 ORDER BY seq", SYSTEM_CHAIN_ID, kind
    )
    return [json.loads(r["body"])["event"] for r in rows]


async def test_a_receiver_away_for_a_while_finds_every_notification_waiting_in_order_when_it_returns(
    api: Signed, receiver: Receiver, runner: Runner, db: asyncpg.Connection
) -> None:
    receiver.stop()
    patient = msgspec.structs.replace(runner.settings.outbox, backoff_max_seconds=1.0)  # 30 s away: some 40 attempts
    runner = msgspec.structs.replace(runner, settings=msgspec.structs.replace(runner.settings, outbox=patient))
    rounds = await settle_and_roll_back(api, 5)
    async with httpx.AsyncClient() as client:
        away_until = time.monotonic() + AWAY_SECONDS
        while time.monotonic() < away_until:  # the worker keeps trying, and failing, while it is away
            await outbox_delivery.deliver_due(runner, client)
            await asyncio.sleep(0.02)
    assert (await statuses(db, api.operator_id)).get("dead", 0) == 0  # within the attempts and the age: waiting
    receiver.start()
    owed = await db.fetchval("SELECT count(*) FROM outbox WHERE operator_id = $1", api.operator_id)
    await drain(runner, receiver, owed, workers=2)
    for round_id in rounds:
        kinds = [e["type"] for e in receiver.applied.values() if e["data"].get("round_id") == round_id]
        assert kinds == ["round.settled", "round.rolled_back"]
    assert await statuses(db, api.operator_id) == {"delivered": owed}


async def test_a_checkpoint_signed_for_a_proof_is_announced_once_though_two_replicas_race_to_sign_it(
    settings: Settings, db: asyncpg.Connection
) -> None:
    async with live(settings) as one, live(settings) as two:
        table = await one.api.table(mode="test")
        rnd = await open_round(one.api, table["table_id"], [("p1", 10)], CONSECUTIVE)  # far below N: no checkpoint
        path = f"/v1/rounds/{rnd['round_id']}/proof"
        proofs = await asyncio.gather(*(api.ok("GET", path) for api in (one.api, two.api, one.api, two.api)))
    sizes = {p["tree_size"] for p in proofs}
    assert len(sizes) == 1  # one checkpoint, signed on demand over the head the round reached
    rows = await db.fetch(
        f"SELECT {BODY} AS body FROM outbox o WHERE o.operator_id = $1"  # noqa: S608 - the service's own expression
        " AND o.kind = 'checkpoint.signed' AND o.ordering_key = $2",
        one.api.operator_id,
        f"checkpoint:{table['table_id']}",
    )
    assert [json.loads(r["body"])["data"]["tree_size"] for r in rows] == list(sizes)
    assert json.loads(rows[0]["body"])["data"]["note"] == proofs[0]["checkpoint"]


async def test_rows_no_one_is_owed_go_after_the_retention_and_owed_and_dead_ones_stay(
    runner: Runner, db: asyncpg.Connection
) -> None:
    """Migration 022 through the app role's own pool: the sweeper's purge with a clock in 2001 and a 30-day
    retention takes delivered, resolved and unsent rows written before 16 January 2001, nothing younger, and never a
    pending message or a dead letter. The scene is set in 2000-2001 so no other test's rows are that old."""
    from datetime import UTC, datetime
    from uuid import uuid4

    from service.runtime import sweeper

    old, young = datetime(2000, 12, 1, tzinfo=UTC), datetime(2001, 2, 1, tzinfo=UTC)
    scene = {}
    for when in (old, young):
        for status in ("delivered", "resolved", "unsent", "pending", "dead"):
            message = uuid4()
            scene[(when, status)] = message
            await db.execute(
                "INSERT INTO outbox (message_id, operator_id, channel, ordering_key, kind, body, created_at, status,"
                " next_attempt_at) VALUES ($1, 'retention', 'notification', $2, 'round.settled', '{}', $3, $4, $3)",
                message,
                f"round:{message}",
                when,
                status,
            )
    retention = msgspec.structs.replace(runner.settings.outbox, retention_days=30)
    in_2001 = msgspec.structs.replace(
        runner,
        settings=msgspec.structs.replace(runner.settings, outbox=retention),
        clock=lambda: datetime(2001, 2, 15, tzinfo=UTC),
    )
    # Bodies stored beside their rows (migration 025): each goes with its message, the kept ones stay
    await db.execute(
        "INSERT INTO outbox_bodies (message_id, body) SELECT unnest($1::uuid[]), '{}'", list(scene.values())
    )
    assert await sweeper.purge_outbox(in_2001) == 3
    left = {r["message_id"] for r in await db.fetch("SELECT message_id FROM outbox WHERE operator_id = 'retention'")}
    gone = {scene[(old, status)] for status in ("delivered", "resolved", "unsent")}
    assert left == set(scene.values()) - gone
    everyone = list(scene.values())
    bodies = await db.fetch("SELECT message_id FROM outbox_bodies WHERE message_id = ANY($1::uuid[])", everyone)
    assert {r["message_id"] for r in bodies} == left
    await db.execute("DELETE FROM outbox_bodies WHERE message_id = ANY($1::uuid[])", list(left))
    await db.execute("DELETE FROM outbox WHERE operator_id = 'retention'")


async def test_the_app_role_cannot_purge_rows_younger_than_a_day_whatever_it_asks(runner: Runner) -> None:
    """A stolen app login may call the purge, not empty the outbox: a cut-off within the last day is refused."""
    from datetime import UTC, datetime

    async with runner.pool.acquire() as conn:
        with pytest.raises(asyncpg.InsufficientPrivilegeError, match="younger than a day"):
            await conn.fetchval("SELECT purge_outbox($1, 1000)", datetime.now(UTC))
        with pytest.raises(asyncpg.InsufficientPrivilegeError):
            await conn.execute("DELETE FROM outbox")
