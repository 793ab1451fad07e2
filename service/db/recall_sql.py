"""SQL for game recall: the audit records of several rounds at once, and whose a round is."""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from service.db import Conn


async def select_round_bodies(conn: Conn, round_ids: Sequence[UUID]) -> dict[str, list[bytes]]:
    """Each round's record bodies in chain order, by round id (one query for a page of rounds)."""
    records = await conn.fetch(
        "SELECT round_id, body FROM audit_log WHERE round_id = ANY($1::uuid[]) ORDER BY table_id, seq",
        list(round_ids),
    )
    found: dict[str, list[bytes]] = {}
    for r in records:
        found.setdefault(str(r["round_id"]), []).append(r["body"])
    return found


async def select_round_operator(conn: Conn, round_id: UUID) -> str | None:
    operator_id: str | None = await conn.fetchval("SELECT operator_id FROM rounds WHERE round_id = $1", round_id)
    return operator_id
