"""Deferred writes run as one query: every write happens, each with its own arguments."""

from __future__ import annotations

import asyncpg

from service.db import Statement, execute_together


async def test_writes_run_together_each_with_its_own_arguments(db: asyncpg.Connection) -> None:
    await db.execute("CREATE TEMPORARY TABLE together (id int PRIMARY KEY, label text, tags text[])")
    # Eleven placeholders in the first write: "$1" must not be confused with "$10" or "$11" once shifted.
    wide = Statement(
        sql="INSERT INTO together VALUES ($1, $2, ARRAY[$3, $4, $5, $6, $7, $8, $9, $10, $11])",
        args=(1, "one", *"abcdefghi"),
    )
    narrow = Statement(sql="INSERT INTO together VALUES ($1, $2, NULL)", args=(2, "two"))
    update = Statement(sql="UPDATE together SET label = $2 WHERE id = $1", args=(3, "none such"))
    await execute_together(db, [wide, narrow, update])
    rows = [tuple(r) for r in await db.fetch("SELECT id, label, tags FROM together ORDER BY id")]
    assert rows == [(1, "one", list("abcdefghi")), (2, "two", None)]


async def test_a_single_write_and_no_writes_are_both_fine(db: asyncpg.Connection) -> None:
    await db.execute("CREATE TEMPORARY TABLE alone (id int)")
    await execute_together(db, [])
    await execute_together(db, [Statement(sql="INSERT INTO alone VALUES ($1)", args=(7,))])
    assert await db.fetchval("SELECT array_agg(id) FROM alone") == [7]
