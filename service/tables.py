"""Table use cases: open a table, list it, close it. Each runs inside the caller's Unit (one transaction)."""

from __future__ import annotations

import uuid
from uuid import UUID

import msgspec

from paytables import loader
from paytables.paytable import Paytable
from paytables.round import Event, reveal_events, shuffled_events
from service.api import wire
from service.db import audit, tables
from service.db.tables import TableRow
from service.errors import ApiError, not_found, validation
from service.shoes import DEFAULT_PENETRATION, shuffle
from service.uow import Unit
from service.views import table_out
from shoe import shoe as shoes
from shoe.shoe import ShoePolicy


def released_paytable(paytable_id: str) -> Paytable:
    try:
        return loader.get(paytable_id)
    except loader.PaytableError:
        raise validation(f"no released paytable {paytable_id!r}; GET /v1/paytables lists them") from None


async def create_table(unit: Unit, data: wire.CreateTable) -> wire.TableOut:
    paytable = released_paytable(data.paytable)
    if data.max_ante < data.min_ante:
        raise validation("max_ante must be at least min_ante")
    if data.mode == "test" and not unit.settings.allow_test_tables:
        raise ApiError(403, "FORCED_CARDS_NOT_ALLOWED", "test tables need a server run with RD_ALLOW_TEST_TABLES=true")
    if data.penetration is not None and data.shoe_policy != "cut_card":
        raise validation("penetration applies only to a cut_card table")
    policy = ShoePolicy(data.shoe_policy)
    penetration = (data.penetration or DEFAULT_PENETRATION) if policy is ShoePolicy.CUT_CARD else None
    table = TableRow(
        table_id=uuid.uuid4(),
        operator_id=unit.operator_id,
        name=data.name,
        paytable_id=paytable.id,
        paytable_sha256=paytable.sha256,
        decks=data.decks,
        shoe_policy=policy.value,
        penetration=penetration,
        currency=data.currency,
        min_ante=data.min_ante,
        max_ante=data.max_ante,
        max_bets=data.max_bets,
        raise_window_seconds=data.raise_window_seconds,
        mode=data.mode,
        status="open",
        created_at=unit.now,
    )
    events = [_created_event(table)]
    shoe_bytes = None
    if penetration is not None:
        shoe = shuffle(table.decks, policy, penetration)
        shoe_bytes = shoes.dump(shoe)
        events.extend(shuffled_events(shoe, policy=policy.value))
    await tables.insert_table(unit.conn, table, shoe_bytes)
    unit.defer(await audit.append_events(unit.conn, table.table_id, events, test=table.mode == "test", now=unit.now))
    return table_out(table, paytable)


async def get_table(unit: Unit, table_id: UUID) -> wire.TableOut:
    table = await tables.select_table(unit.conn, unit.operator_id, table_id)
    if table is None:
        raise not_found("table")
    return table_out(table, loader.get(table.paytable_id))


async def list_tables(unit: Unit) -> wire.TableList:
    rows = await tables.select_tables(unit.conn, unit.operator_id)
    return wire.TableList(items=[table_out(t, loader.get(t.paytable_id)) for t in rows])


async def close_table(unit: Unit, table_id: UUID) -> wire.TableOut:
    """No new rounds from now; rounds in flight finish. An idle cut-card shoe is retired and revealed now."""
    locked = await tables.lock_table(unit.conn, unit.operator_id, table_id)
    if locked is None:
        raise not_found("table")
    table, head = locked
    if table.status == "closed":
        raise ApiError(409, "TABLE_CLOSED", "the table is already closed")
    await tables.update_table_closed(unit.conn, table_id, unit.now)
    events = [Event(kind="table_closed", payload={"closed_at": unit.now.isoformat()})]
    if table.active_round_id is None:
        events.extend(await retire_table_shoe(unit, table_id))
    unit.defer(
        await audit.append_events(unit.conn, table_id, events, test=table.mode == "test", now=unit.now, head=head)
    )
    closed = msgspec.structs.replace(table, status="closed", closed_at=unit.now)
    return table_out(closed, loader.get(table.paytable_id))


async def retire_table_shoe(unit: Unit, table_id: UUID) -> tuple[Event, ...]:
    """Take a cut-card table's shoe out of play; its reveal goes to the audit log."""
    data = await tables.select_table_shoe(unit.conn, table_id)
    if data is None:
        return ()
    await tables.update_table_shoe(unit.conn, table_id, None, None)
    return reveal_events(shoes.load(data))


def _created_event(table: TableRow) -> Event:
    payload = {
        "operator_id": table.operator_id,
        "name": table.name,
        "paytable": table.paytable_id,
        "paytable_sha256": table.paytable_sha256,
        "decks": table.decks,
        "shoe_policy": table.shoe_policy,
        "penetration": table.penetration,
        "currency": table.currency,
        "min_ante": table.min_ante,
        "max_ante": table.max_ante,
        "max_bets": table.max_bets,
        "raise_window_seconds": table.raise_window_seconds,
        "mode": table.mode,
    }
    return Event(kind="table_created", payload=payload)
