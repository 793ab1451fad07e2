"""A round row's state as a test reads or changes it in SQL, as a database owner would: stored deflated since
migration 026 (round_sql.stored_state), it is put back into the jsonb form of the rows written before, which every
reader still takes, so jsonb_set can change it."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import asyncpg
import msgspec

from service.db import preset_deflate
from service.db.round_sql import STATE_COLUMNS, state_of
from service.db.state_dictionary import CURRENT, DICTIONARIES


async def state_as_jsonb(db: asyncpg.Connection, round_id: UUID) -> None:
    """Store the round's state as jsonb (state_deflated NULL), the same JSON as before."""
    row = await db.fetchrow(f"SELECT {STATE_COLUMNS} FROM rounds WHERE round_id = $1", round_id)  # noqa: S608
    assert row is not None, f"no round {round_id}"
    state = state_of(row)
    text = state.decode() if isinstance(state, bytes) else state
    await db.execute("UPDATE rounds SET state = $2::jsonb, state_deflated = NULL WHERE round_id = $1", round_id, text)


async def round_states(db: asyncpg.Connection) -> list[dict[str, Any]]:
    """Every stored round's state, decoded."""
    rows = await db.fetch(f"SELECT {STATE_COLUMNS} FROM rounds")  # noqa: S608 - ours
    return [msgspec.json.decode(state_of(row)) for row in rows]


async def change_deflated_state(db: asyncpg.Connection, round_id: UUID, path: list[str | int], value: Any) -> None:
    """Set one field of the round's state where migration 026 stores it, deflated again with the service's own
    dictionary: an owner who read the code can forge that form as easily as jsonb."""
    row = await db.fetchrow(f"SELECT {STATE_COLUMNS} FROM rounds WHERE round_id = $1", round_id)  # noqa: S608
    assert row is not None
    assert row["state_deflated"] is not None, "a round written before migration 026"
    state = msgspec.json.decode(state_of(row))
    target = state
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    forged = preset_deflate.deflate(msgspec.json.encode(state), CURRENT, DICTIONARIES)
    await db.execute("UPDATE rounds SET state_deflated = $2 WHERE round_id = $1", round_id, forged)
