"""An idempotency key's reply is stored deflated (migration 019) and replays as the exact bytes first sent; a key
stored before that migration, its reply as sent, replays unchanged."""

from __future__ import annotations

import json
import secrets
import zlib
from datetime import UTC, datetime

import asyncpg

from service.db import execute_together, reply_dictionary
from service.db import idempotency_sql as keys
from service.settings import Settings
from tests.support.live import live

NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


def a_round_reply() -> bytes:
    """Bytes shaped like a round's reply: repeated keys and ids, the way JSON replies repeat themselves."""
    bets = [
        {"bet_id": f"{secrets.token_hex(16)}:{i}", "player_id": f"p-{i}", "ante": 500, "raise": 0} for i in range(7)
    ]
    return json.dumps({"round_id": secrets.token_hex(16), "status": "settled", "bets": bets}).encode()


async def test_a_reply_is_stored_in_less_than_half_its_bytes_and_replays_byte_for_byte(db: asyncpg.Connection) -> None:
    operator, key, reply = f"replies-{secrets.token_hex(4)}", "k-1", a_round_reply()
    claim = keys.Claim(operator_id=operator, key=key, request_hash=b"digest", now=NOW)
    await execute_together(db, [keys.insert_response(claim, 201, reply)])

    stored = await db.fetchrow(
        "SELECT response, octet_length(response_deflated) AS size FROM idempotency_keys"
        " WHERE operator_id = $1 AND key = $2",
        operator,
        key,
    )
    assert stored is not None
    assert stored["response"] is None
    assert stored["size"] < len(reply) / 2
    assert await keys.select_key(db, operator, key) == keys.StoredResponse(
        request_hash=b"digest", status_code=201, response=reply
    )


async def test_a_reply_a_locked_request_stores_after_its_claim_replays_byte_for_byte(db: asyncpg.Connection) -> None:
    operator, key, reply = f"replies-{secrets.token_hex(4)}", "k-2", a_round_reply()
    assert await keys.claim_key(db, operator, key, b"digest", NOW) is None
    await execute_together(db, [keys.update_response(operator, key, 200, reply)])

    assert (await keys.select_key(db, operator, key)).response == reply


async def test_a_key_stored_before_replies_were_deflated_replays_its_reply_as_it_was_sent(
    db: asyncpg.Connection,
) -> None:
    operator, reply = f"replies-{secrets.token_hex(4)}", a_round_reply()
    await db.execute(
        "INSERT INTO idempotency_keys (operator_id, key, request_hash, created_at, status_code, response)"
        " VALUES ($1, 'old', 'digest', $2, 201, $3)",
        operator,
        NOW,
        reply,
    )
    assert (await keys.select_key(db, operator, "old")).response == reply
    # And what the service writes is standard raw deflate after the number of its preset dictionary.
    stored = keys.deflated(reply)
    inflate = zlib.decompressobj(-15, zdict=reply_dictionary.DICTIONARIES[stored[0]])
    assert inflate.decompress(stored[1:]) + inflate.flush() == reply


async def test_a_settled_rounds_reply_is_stored_in_under_two_fifths_of_its_bytes(
    settings: Settings, db: asyncpg.Connection
) -> None:
    async with live(settings) as app:
        table = await app.api.table(mode="test")
        # 5, 5 then 5: trips, settled as it opens, so its reply carries the revealed shoe too.
        body = {"bets": [{"player_id": "p1", "ante": 10}], "forced_cards": ["5S", "5H", "5D"]}
        response = await app.api.post(f"/v1/tables/{table['table_id']}/rounds", body)
        assert response.status_code == 201
        sizes = await db.fetchrow(
            "SELECT octet_length(response_deflated) AS stored FROM idempotency_keys"
            " WHERE operator_id = $1 AND status_code = 201 ORDER BY created_at DESC LIMIT 1",
            app.api.operator_id,
        )
    assert sizes is not None
    assert len(response.content) > 1000
    # The revealed shoe's 312 cards are random: about 5.7 bits a card at best, some 220 of the stored bytes.
    assert sizes["stored"] < len(response.content) * 2 / 5
