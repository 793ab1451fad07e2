"""Round requests read unlocked and write in one statement that checks the table's audit head: a change that lands
between the read and the write fails the whole statement, and the request runs again under the table's lock."""

from __future__ import annotations

import asyncio
import uuid
from uuid import UUID

import asyncpg
import msgspec
import pytest

from audit.verify_export import verify_links
from service.db import Statement, audit_sql, execute_together, round_sql
from service.db import idempotency_sql as keys
from service.db.row_reads import Optimistic, Replay
from service.db.unit_of_work import KEY_IN_READ, IdempotencyKey, Reply, UnitOfWork, write
from service.observability import metrics
from service.settings import Settings
from service.use_cases import round_use_cases
from service.use_cases.round_use_cases import NewRound, RoundView
from tests.support.live import live

DIGEST = b"\x02" * 32


def conflicts() -> float:
    return float(metrics.OPTIMISTIC_CONFLICTS._value.get())  # this process's own count


def present(view: RoundView) -> bytes:
    return msgspec.json.encode({"round_id": view.round.round_id})


async def test_the_leading_write_runs_first_so_a_moved_head_fails_the_statement_before_any_other_write(
    db: asyncpg.Connection,
) -> None:
    await db.execute("CREATE TEMPORARY TABLE heads (id int PRIMARY KEY, seq bigint)")
    await db.execute("INSERT INTO heads VALUES (1, 5)")
    duplicate = Statement(sql="INSERT INTO heads VALUES ($1, 0)", args=(1,))  # would fail on its own, differently
    fresh = Statement(sql="INSERT INTO heads VALUES ($1, 0)", args=(2,))
    guarded = Statement(
        sql="UPDATE heads SET seq = $2 WHERE id = $1 AND reddog_expect_head(seq, $3) RETURNING 1",
        args=(1, 9, 4),  # computed from head 4, but the row holds 5
        leads=True,
    )
    with pytest.raises(asyncpg.exceptions.SerializationError, match="audit head moved from 4 to 5"):
        await execute_together(db, [fresh, duplicate, guarded])
    assert [tuple(r) for r in await db.fetch("SELECT id, seq FROM heads")] == [(1, 5)]  # nothing written


async def test_a_table_changed_between_the_read_and_the_write_makes_the_request_run_again_locked(
    settings: Settings, db: asyncpg.Connection
) -> None:
    async with live(settings) as app:
        table_id = UUID((await app.api.table())["table_id"])
        operator = app.api.operator_id
        attempts: list[bool] = []
        new = NewRound(antes=(("p1", 500),))

        async def open_then_let_another_land_first(unit: UnitOfWork) -> RoundView | Replay:
            attempts.append(isinstance(unit.mode, Optimistic))
            view = await round_use_cases.open_round(unit, table_id, new)
            if len(attempts) == 1:  # between this attempt's read and its write, another round opens on the table
                other = IdempotencyKey(key=f"other-{uuid.uuid4()}", request_hash=DIGEST, keying=KEY_IN_READ)
                await write(
                    app.runner, operator, other, 201, lambda u: round_use_cases.open_round(u, table_id, new), present
                )
            return view

        key = IdempotencyKey(key=f"k-{uuid.uuid4()}", request_hash=DIGEST, keying=KEY_IN_READ)
        before = conflicts()
        reply = await write(app.runner, operator, key, 201, open_then_let_another_land_first, present)

    assert attempts == [True, False]  # the unlocked attempt lost, the locked one won
    assert conflicts() - before == 1
    rounds = await db.fetch("SELECT round_id FROM rounds WHERE table_id = $1", table_id)
    first_attempts_round = msgspec.json.decode(reply.body)["round_id"]
    assert len(rounds) == 2
    assert first_attempts_round in {str(r["round_id"]) for r in rounds}
    links = await audit_sql.select_chain(db, table_id)
    assert verify_links(str(table_id), links).ok
    assert [link.seq for link in links] == list(range(1, len(links) + 1))
    stored = await keys.select_key(db, operator, key.key)
    assert (stored.status_code, stored.response) == (201, reply.body)


async def test_an_unlocked_write_waits_for_a_key_another_request_holds_without_holding_the_table_then_replays(
    settings: Settings, db: asyncpg.Connection
) -> None:
    async with live(settings) as app:
        table_id = UUID((await app.api.table())["table_id"])
        operator = app.api.operator_id
        key = IdempotencyKey(key=f"k-{uuid.uuid4()}", request_hash=DIGEST, keying=KEY_IN_READ)
        holder, prober = [await asyncpg.connect(settings.database_url) for _ in range(2)]
        try:
            await holder.execute("BEGIN")  # a locked request in flight: its key claimed, no reply yet
            assert await keys.claim_key(holder, operator, key.key, DIGEST, app.runner.clock()) is None
            opened = lambda u: round_use_cases.open_round(u, table_id, NewRound(antes=(("p1", 500),)))  # noqa: E731
            before = conflicts()
            waiting = asyncio.ensure_future(write(app.runner, operator, key, 201, opened, present))
            await asyncio.sleep(0.3)
            # The unlocked read could not see the uncommitted key; the write waits on it, taking the key before the
            # table's row, so it holds no row meanwhile: the table stays free for every other request.
            assert not waiting.done()
            assert await prober.fetchval("SELECT true FROM game_tables WHERE table_id = $1 FOR UPDATE NOWAIT", table_id)
            answered = keys.update_response(operator, key.key, 201, b'{"first":true}')
            await holder.execute(answered.sql, *answered.args)
            await holder.execute("COMMIT")
            reply = await waiting
        finally:
            await holder.close()
            await prober.close()
    assert reply == Reply(status=201, body=b'{"first":true}', replayed=True)  # the key was taken: a replay, locked
    assert conflicts() - before == 1
    assert await db.fetchval("SELECT count(*) FROM rounds WHERE table_id = $1", table_id) == 0


async def test_a_locked_round_request_takes_its_tables_row_before_the_rounds_as_every_writer_does(
    settings: Settings,
) -> None:
    async with live(settings) as app:
        table = await app.api.table(mode="test")
        body = {"bets": [{"player_id": "p1", "ante": 10}], "forced_cards": ["3S", "JH", "9D"]}  # a raise window
        rnd = await app.api.ok("POST", f"/v1/tables/{table['table_id']}/rounds", body)
        round_id, table_id = UUID(rnd["round_id"]), UUID(table["table_id"])
        holder, locker, prober = [await asyncpg.connect(settings.database_url) for _ in range(3)]
        try:
            await holder.execute("BEGIN")
            await holder.execute("SELECT 1 FROM rounds WHERE round_id = $1 FOR UPDATE", round_id)
            await locker.execute("BEGIN")
            waiting = asyncio.ensure_future(round_sql.select_round(locker, app.api.operator_id, round_id, lock=True))
            await asyncio.sleep(0.3)
            assert not waiting.done()  # it waits for the round's row...
            with pytest.raises(asyncpg.exceptions.LockNotAvailableError):  # ...holding its table's row already
                await prober.execute("SELECT 1 FROM game_tables WHERE table_id = $1 FOR UPDATE NOWAIT", table_id)
            await holder.execute("ROLLBACK")
            assert await waiting is not None
            await locker.execute("ROLLBACK")
        finally:
            for conn in (holder, locker, prober):
                await conn.close()
