"""Table use cases: open a table, read it, close it. Each runs inside the caller's unit of work."""

from __future__ import annotations

import uuid
from uuid import UUID

import msgspec

from paytables.currency import minor_unit_exponent
from paytables.red_dog import loader, shoe_lifecycle
from paytables.red_dog.events import Event, TableClosed, TableCreated
from paytables.red_dog.paytable import Paytable
from paytables.red_dog.table import DealMode, TableMode, TableSettings, TableStatus
from service.chains import checkpoints
from service.db import audit_sql, table_sql
from service.db.row_reads import Missing, Replay
from service.db.storage_forms import shoe_bytes
from service.db.table_sql import UNSET, TableRow
from service.db.unit_of_work import UnitOfWork
from service.errors import ApiError, not_found, validation
from service.observability import configuration_metrics
from service.shuffler import DEFAULT_PENETRATION, shuffle
from shoe.shoe import ShoePolicy, decode_shoe


class NewTable(msgspec.Struct, frozen=True, kw_only=True):
    """What an operator asks for; the settings once the paytable is found and the defaults are filled in."""

    name: str
    paytable: str
    currency: str
    min_ante: int
    max_ante: int
    decks: int
    shoe_policy: ShoePolicy
    penetration: int | None
    max_bets: int
    raise_window_seconds: int
    mode: TableMode
    deal: DealMode


def released_paytable(paytable_id: str) -> Paytable:
    try:
        return loader.get(paytable_id)
    except loader.PaytableError:
        raise validation(f"no released paytable {paytable_id!r}; GET /v1/paytables lists them") from None


async def create_table(unit: UnitOfWork, new: NewTable) -> TableRow:
    settings = _settings(unit, new)
    table = TableRow(
        table_id=uuid.uuid4(),
        operator_id=unit.operator_id,
        settings=settings,
        status=TableStatus.OPEN,
        created_at=unit.now,
    )
    events: list[Event] = [TableCreated(operator_id=unit.operator_id, created_at=unit.now, settings=settings)]
    stored_shoe = None
    if settings.shoe_policy is ShoePolicy.CUT_CARD:
        shoe = shuffle(settings.decks, settings.shoe_policy, settings.penetration)
        stored_shoe = shoe_bytes(shoe)
        events.append(shoe_lifecycle.shuffled(shoe, round_id=None))
    appended = checkpoints.append(unit, table.table_id, audit_sql.GENESIS_HEAD, events, test=settings.test)
    await table_sql.insert_table(unit.conn, table, stored_shoe, appended.head)
    unit.defer(appended.writes)
    unit.after_commit.append(lambda: _table_recorded(settings))
    return table


def _table_recorded(settings: TableSettings) -> None:
    configuration_metrics.configuration_seen(settings.paytable, settings.decks, settings.currency, settings.test)


def _settings(unit: UnitOfWork, new: NewTable) -> TableSettings:
    paytable = released_paytable(new.paytable)
    if minor_unit_exponent(new.currency) is None:
        raise validation(f"currency {new.currency!r} is not an ISO 4217 currency with a minor unit")
    if new.max_ante < new.min_ante:
        raise validation("max_ante must be at least min_ante")
    if new.mode is TableMode.TEST and not unit.settings.allow_test_tables:
        raise ApiError(403, "FORCED_CARDS_NOT_ALLOWED", "test tables need a server run with RD_ALLOW_TEST_TABLES=true")
    if new.penetration is not None and new.shoe_policy is not ShoePolicy.CUT_CARD:
        raise validation("penetration applies only to a cut_card table")
    cut_card = new.shoe_policy is ShoePolicy.CUT_CARD
    fields = msgspec.structs.asdict(new)
    fields.update(
        paytable_sha256=paytable.sha256, penetration=(new.penetration or DEFAULT_PENETRATION) if cut_card else None
    )
    return TableSettings(**fields)


async def get_table(unit: UnitOfWork, table_id: UUID) -> TableRow:
    table = await table_sql.select_table(unit.conn, unit.operator_id, table_id)
    if table is None:
        raise not_found("table")
    return table


async def list_tables(unit: UnitOfWork) -> list[TableRow]:
    return await table_sql.select_tables(unit.conn, unit.operator_id)


async def close_table(unit: UnitOfWork, table_id: UUID) -> TableRow | Replay:
    """No new rounds from now; rounds in flight finish. An idle cut-card shoe is retired and revealed now."""
    read = await table_sql.lock_table(unit.conn, unit.operator_id, table_id, unit.mode)
    if isinstance(read, Replay):
        return read
    if isinstance(read, Missing):
        raise not_found("table")
    locked = read.value
    table, lock = locked.table, locked.lock
    now = unit.read_clock()
    if table.status is TableStatus.CLOSED:
        raise ApiError(409, "TABLE_CLOSED", "the table is already closed")
    events: list[Event] = [TableClosed(closed_at=now, actor=unit.operator_id)]
    shoe_change: bytes | table_sql.Unset | None = UNSET
    if table.active_round_id is None and locked.shoe is not None:
        events.append(shoe_lifecycle.revealed(decode_shoe(locked.shoe)))
        shoe_change = None
    appended = checkpoints.append(unit, table_id, lock.head, events, test=table.settings.test, now=now)
    unit.defer(
        [
            *appended.writes,
            table_sql.update_table(table_id, appended.head, replaces=lock.head.seq, shoe=shoe_change, closed_at=now),
        ]
    )
    return msgspec.structs.replace(table, status=TableStatus.CLOSED, closed_at=now)
