"""Emoji reactions at a friends' table: a seat's 👏 or 🙏, shown on every phone for a moment, then gone.

A reaction is not game state. It touches neither the game's audit chain nor the table's `version`, and is kept
nowhere: the route pushes it (friends_push) once this unit has counted it against its seat's limit, the one row it
writes (a counter in `friends_limits`, as every friends' limit, purged by the sweeper). A phone that was not
listening simply never sees it, as at a real table. Only a seat reacts: a spectator's link is read-only and
anonymous, so anyone it is passed to could otherwise flood the table's phones with nobody to answer for it.
"""

from __future__ import annotations

from uuid import UUID

import msgspec

from service.db.unit_of_work import UnitOfWork
from service.use_cases import friends_limits
from service.use_cases.friends_use_cases import seated


class Reaction(msgspec.Struct, frozen=True, kw_only=True):
    table_id: UUID
    code: str
    seat: int
    reaction: str


async def react(unit: UnitOfWork, code: str, token: bytes | None, reaction: str) -> Reaction | None:
    """The seat's reaction, to push; None when past the seat's limit (the unit refuses after counting it)."""
    table, seat = await seated(unit, code, token, lock=False)
    if not await friends_limits.count_reaction(unit, table.table_id, seat):
        return None
    return Reaction(table_id=table.table_id, code=table.code, seat=seat, reaction=reaction)
