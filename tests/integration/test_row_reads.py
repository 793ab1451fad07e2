"""The tenant filter, written once for every read of one row: each variant (plain, locked, claiming a key, looking a
key up unlocked) finds the operator's own table, round and game, and nothing of another operator's."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from uuid import UUID

import asyncpg
import pytest

from service.db import idempotency_sql as keys
from service.db import inbetween_sql, round_sql, table_sql
from service.db.row_reads import MISSING, Found, Locked, Mode, Optimistic, read_one, select_one
from service.settings import Settings
from tests.api.inbetween_helpers import humans, start
from tests.support.live import live

NOW = datetime(2026, 1, 1, tzinfo=UTC)
# Each read of one row, and whose row it reads.
ROWS = {
    "table": (table_sql.ONE_TABLE, "table"),
    "table settings": (table_sql.TABLE_SETTINGS, "table"),
    "round": (round_sql.ONE_ROUND, "round"),
    "game": (inbetween_sql.ONE_GAME, "game"),
}


def modes(operator_id: str) -> dict[str, Mode]:
    """Every way a request reads the row it changes; each with a fresh key, so none of them is a replay."""

    def claim() -> keys.Claim:
        return keys.Claim(operator_id=operator_id, key=f"k-{uuid.uuid4()}", request_hash=b"\x01" * 32, now=NOW)

    return {"locked": Locked(), "claiming": Locked(key=claim()), "looking_up": Optimistic(key=claim())}


@pytest.fixture
async def rows(settings: Settings) -> tuple[str, dict[str, UUID]]:
    """One operator's table, open round and In Between game."""
    async with live(settings) as app:
        table = await app.api.table()
        bets = {"bets": [{"player_id": "p1", "ante": 10}]}
        opened = await app.api.ok("POST", f"/v1/tables/{table['table_id']}/rounds", bets)
        game = await start(app.api, humans("a", "b"))
    ids = {"table": UUID(table["table_id"]), "round": UUID(opened["round_id"]), "game": UUID(game["game_id"])}
    return app.api.operator_id, ids


@pytest.mark.parametrize("kind", sorted(ROWS))
async def test_every_read_of_a_row_finds_the_operator_s_own_and_nothing_of_another_operator_s(
    db: asyncpg.Connection, rows: tuple[str, dict[str, UUID]], kind: str
) -> None:
    owner, ids = rows
    row, whose = ROWS[kind]
    for operator_id, expected in ((owner, True), ("someone-else", False)):
        assert (await select_one(db, row, ids[whose], operator_id) is not None) is expected, (kind, "plain")
        for name, mode in modes(operator_id).items():
            async with db.transaction():  # a locked read holds its rows, and a claimed key, until it ends
                read = await read_one(db, row, ids[whose], operator_id, mode)
            assert isinstance(read, Found) is expected, (kind, name, operator_id)
            if not expected:
                assert read == MISSING, (kind, name)
