"""Verify every table's audit chain straight from the database."""

from __future__ import annotations

import asyncpg

from audit.chain import verify
from service.db import audit


async def verify_all(url: str) -> bool:
    conn = await asyncpg.connect(url)
    try:
        ok = True
        for table_id in await audit.select_table_ids(conn):
            report = verify(await audit.select_chain(conn, table_id), table_id=str(table_id))
            status = "ok" if report.ok else f"BROKEN: {report.error}"
            print(f"{table_id}  {report.records:>7} records  head {report.head[:16]}  {status}")
            ok = ok and report.ok
        return ok
    finally:
        await conn.close()
