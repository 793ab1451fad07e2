"""What the In Between API tests share: forced-card games, actions, the audit records and a refusal's fingerprint."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import asyncpg
from httpx import Response

from audit.records import decode_inbetween_record
from paytables.inbetween.inbetween_events import InBetweenEvent
from service.db import audit_sql
from tests.support.client import Signed

NEPAL = "inbetween/nepal/v1"
GAMES = "/v1/inbetween/games"


def humans(*names: str) -> list[dict[str, Any]]:
    return [{"player_id": name} for name in names]


async def start(
    api: Signed,
    seats: list[dict[str, Any]],
    forced: list[str] | None = None,
    *,
    ruleset: str = NEPAL,
    ante: int = 10,
    rounds: int | str | None = 5,
) -> Any:
    """A game that must start: a test game when cards are forced, else a live one; `rounds=None` leaves them out."""
    body: dict[str, Any] = {"ruleset": ruleset, "ante": ante, "seats": seats}
    if rounds is not None:
        body["rounds"] = rounds
    if forced is not None:
        body.update(mode="test", forced_cards=forced)
    return await api.ok("POST", GAMES, body)


async def post_action(api: Signed, game_id: str, player: str, action: str, **fields: Any) -> Response:
    """A move; unless the test names the `version` it answers, the game's current one (read just before)."""
    if "version" not in fields:  # a game the caller cannot see has none: the move is refused for that anyway
        shown = await api.get(f"{GAMES}/{game_id}")
        fields["version"] = shown.json()["version"] if shown.status_code == 200 else 0
    return await api.post(f"{GAMES}/{game_id}/actions", {"action": action, "player_id": player, **fields})


async def play(api: Signed, game_id: str, player: str, action: str, **fields: Any) -> Any:
    """An action that must be accepted; the game after it."""
    response = await post_action(api, game_id, player, action, **fields)
    assert response.status_code == 200, response.text
    return response.json()


async def events(db: asyncpg.Connection, game_id: str) -> list[InBetweenEvent]:
    """The game's events as its audit chain holds them, in order."""
    return [decode_inbetween_record(link.body).event for link in await audit_sql.select_chain(db, UUID(game_id))]


def chips(game: dict[str, Any]) -> list[int]:
    return [seat["chips"] for seat in game["seats"]]


def posts(game: dict[str, Any]) -> tuple[str | None, str | None]:
    turn = game["turn"]
    return turn["first_post"], turn["second_post"]


async def fingerprint(db: asyncpg.Connection, operator_id: str, game_id: str) -> tuple[Any, ...]:
    """The game row, its audit record count and the operator's idempotency keys: a refusal changes none of them."""
    row = await db.fetchrow(
        "SELECT state::text, shoe, audit_seq, audit_hash FROM inbetween_games WHERE game_id = $1", UUID(game_id)
    )
    assert row is not None
    records = await db.fetchval("SELECT count(*) FROM audit_log WHERE table_id = $1", UUID(game_id))
    keys = await db.fetchval("SELECT count(*) FROM idempotency_keys WHERE operator_id = $1", operator_id)
    return tuple(row), records, keys
