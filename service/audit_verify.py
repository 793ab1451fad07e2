"""Verify every audit chain straight from the database: the system chain, every table's, every game's."""

from __future__ import annotations

from uuid import UUID

from audit.chain import ChainReport, verify
from service.db import Conn, audit_sql, inbetween_sql
from service.db.system_sql import SYSTEM_CHAIN, system_chain_exists


async def chain_ids(conn: Conn) -> list[UUID]:
    """Every chain in audit_log: the system chain (under the nil UUID), one per table, one per In Between game."""
    system = [SYSTEM_CHAIN] if await system_chain_exists(conn) else []
    return [*system, *await audit_sql.select_table_ids(conn), *await inbetween_sql.select_game_ids(conn)]


async def verify_chains(conn: Conn) -> dict[UUID, ChainReport]:
    """Every chain, checked from its first record."""
    return {
        chain_id: verify(await audit_sql.select_chain(conn, chain_id), table_id=str(chain_id))
        for chain_id in await chain_ids(conn)
    }


def broken(reports: dict[UUID, ChainReport]) -> dict[str, str | None]:
    """The chains that do not verify, with what is wrong with each."""
    return {str(chain_id): report.error for chain_id, report in reports.items() if not report.ok}


def print_reports(reports: dict[UUID, ChainReport]) -> bool:
    """One line per chain (a table's or a game's); True when every chain verifies."""
    for chain_id, report in reports.items():
        status = "ok" if report.ok else f"BROKEN: {report.error}"
        print(f"{chain_id}  {report.records:>7} records  head {report.head[:16]}  {status}")
    return all(report.ok for report in reports.values())
