"""Who asked: a close or a void may name who asked for it (an optional `requested_by`), and the audit log keeps it."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import asyncpg
import pytest

from audit.records import decode_record
from paytables.red_dog.events import Decided, RoundVoided
from tests.api.helpers import open_round, problem
from tests.support.client import Signed


async def events_of(db: asyncpg.Connection, round_id: str) -> list[Any]:
    rows = await db.fetch("SELECT body FROM audit_log WHERE round_id = $1 ORDER BY seq", UUID(round_id))
    return [decode_record(r["body"]).event for r in rows]


async def spread(api: Signed) -> Any:
    table = await api.table(mode="test")
    return await open_round(api, table["table_id"], [("p1", 10), ("p2", 10)], ["4S", "TH", "7D"])


async def test_a_close_names_who_asked_in_each_dealer_call_it_records(api: Signed, db: asyncpg.Connection) -> None:
    rnd = await spread(api)
    await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/close", {"requested_by": "pit boss 7"})
    calls = [e for e in await events_of(db, rnd["round_id"]) if isinstance(e, Decided)]
    assert [(e.by, e.actor, e.requested_by) for e in calls] == [("dealer", api.operator_id, "pit boss 7")] * 2


@pytest.mark.parametrize("body", [None, {}])
async def test_a_close_without_a_body_or_with_an_empty_one_records_no_requester(
    api: Signed, db: asyncpg.Connection, body: Any
) -> None:
    rnd = await spread(api)
    await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/close", body)
    calls = [e for e in await events_of(db, rnd["round_id"]) if isinstance(e, Decided)]
    assert [e.requested_by for e in calls] == [None, None]
    bodies = await db.fetch(
        "SELECT body FROM audit_log WHERE round_id = $1 AND kind = 'decision'", UUID(rnd["round_id"])
    )
    assert all(b"requested_by" not in r["body"] for r in bodies)  # the record's bytes are as before the field existed


async def test_a_void_names_who_asked_for_it(api: Signed, db: asyncpg.Connection) -> None:
    rnd = await spread(api)
    body = {"reason": "card misdealt", "requested_by": "support ticket 4411"}
    await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/void", body)
    (voided,) = [e for e in await events_of(db, rnd["round_id"]) if isinstance(e, RoundVoided)]
    assert (voided.actor, voided.requested_by, voided.reason) == (
        api.operator_id,
        "support ticket 4411",
        "card misdealt",
    )


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("close", {"requested_by": ""}),
        ("close", {"requested_by": "x" * 129}),
        ("close", {"requested_by": "tab\there"}),
        ("close", {"who": "pit boss"}),
        ("void", {"reason": "r", "requested_by": 7}),
    ],
)
async def test_a_requester_that_is_empty_too_long_not_printable_or_not_text_is_refused(
    api: Signed, path: str, body: Any
) -> None:
    rnd = await spread(api)
    problem(await api.post(f"/v1/rounds/{rnd['round_id']}/{path}", body), 400, "VALIDATION_ERROR")
    assert (await api.ok("GET", f"/v1/rounds/{rnd['round_id']}"))["status"] == "raise_window"
