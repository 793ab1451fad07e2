"""Verify every audit chain straight from the database: the system chain's, then every table's."""

from __future__ import annotations

from uuid import UUID

from audit.chain import ChainReport, verify
from service.db import Conn, audit_sql
from service.db.system_sql import SYSTEM_CHAIN, system_chain_exists


async def verify_chains(conn: Conn) -> dict[UUID, ChainReport]:
    """Every chain, checked from its first record: the system chain (under the nil UUID) first."""
    system = [SYSTEM_CHAIN] if await system_chain_exists(conn) else []
    return {
        table_id: verify(await audit_sql.select_chain(conn, table_id), table_id=str(table_id))
        for table_id in [*system, *await audit_sql.select_table_ids(conn)]
    }


def broken(reports: dict[UUID, ChainReport]) -> dict[str, str | None]:
    """The tables whose chain does not verify, with what is wrong with each."""
    return {str(table_id): report.error for table_id, report in reports.items() if not report.ok}


def print_reports(reports: dict[UUID, ChainReport]) -> bool:
    """One line per table; True when every chain verifies."""
    for table_id, report in reports.items():
        status = "ok" if report.ok else f"BROKEN: {report.error}"
        print(f"{table_id}  {report.records:>7} records  head {report.head[:16]}  {status}")
    return all(report.ok for report in reports.values())
