"""Round use cases: lock -> game core step -> persist + audit append, inside the caller's unit of work.

Each returns a RoundView (domain values); `service/api/` decides how it is shown.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from uuid import UUID

import msgspec
import structlog

from paytables import loader, shoe_lifecycle
from paytables import round as red_dog_round
from paytables.events import Event
from paytables.round import PlayerDecision, Round, Step
from paytables.table import TableStatus
from service import checkpoints, metrics
from service.db import audit_sql, round_sql, table_sql
from service.db.audit_sql import TableLock
from service.db.round_sql import StoredRound
from service.db.table_sql import UNSET, TableRow
from service.errors import ApiError, not_found, validation
from service.shuffler import shuffle
from service.unit_of_work import UnitOfWork
from shoe.shoe import Reveal, Shoe, ShoeError, ShoePolicy, decode_shoe, encode_shoe

log = structlog.get_logger("reddog.rounds")


class RoundView(msgspec.Struct, frozen=True, kw_only=True):
    """A round as the use cases return it: the round, and its shoe's reveal once the shoe has retired."""

    round: Round
    reveal: Reveal | None
    checkpoint_size: int = 0  # the tree size of the table's latest signed checkpoint (0: none yet)


class NewRound(msgspec.Struct, frozen=True, kw_only=True):
    antes: tuple[tuple[str, int], ...]  # (player_id, ante) per bet, in seat order
    forced_cards: tuple[str, ...] = ()  # test tables only: the next cards to deal, in order


class RoundQuery(msgspec.Struct, frozen=True, kw_only=True):
    table_id: UUID | None = None
    player_id: str | None = None
    status: str | None = None
    opened_from: datetime | None = None
    opened_to: datetime | None = None
    before: tuple[datetime, UUID] | None = None  # (opened_at, round_id) of the last round already seen
    limit: int = 50


async def open_round(unit: UnitOfWork, table_id: UUID, new: NewRound) -> RoundView:
    """Take the antes and deal the posts; the table row lock orders rounds and the audit chain."""
    locked = await table_sql.lock_table(unit.conn, unit.operator_id, table_id)
    if locked is None:
        raise not_found("table")
    table, lock = locked
    now = unit.read_clock()  # after the lock: the chain's times and the raise window start when the deal does
    _check_bets(table, new)
    if table.status is not TableStatus.OPEN:
        raise ApiError(409, "TABLE_CLOSED", "the table is closed to new rounds")
    if new.forced_cards and not (table.settings.test and unit.settings.allow_test_tables):
        raise ApiError(403, "FORCED_CARDS_NOT_ALLOWED", "forced cards are accepted only on a test table")
    round_id = str(uuid.uuid4())
    structlog.contextvars.bind_contextvars(round_id=round_id)
    shoe, events = await _shoe_for_round(unit, table, round_id, new.forced_cards)
    step = red_dog_round.open_round(
        round_id=round_id,
        table_id=str(table.table_id),
        paytable=loader.get(table.settings.paytable),
        shoe=shoe,
        antes=list(new.antes),
        now=now,
        window_seconds=table.settings.raise_window_seconds,
        test=table.settings.test,
        actor=unit.operator_id,
    )
    unit.defer([round_sql.insert_round(step.round, step.shoe, unit.operator_id)])
    stored = StoredRound(round=step.round, shoe=shoe, operator_id=unit.operator_id, currency=table.settings.currency)
    return _persist(unit, stored, lock, step, opened=events)


def _check_bets(table: TableRow, new: NewRound) -> None:
    settings = table.settings
    if len(new.antes) > settings.max_bets:
        raise ApiError(422, "BET_LIMIT", f"this table takes at most {settings.max_bets} bets a round")
    for _, ante in new.antes:
        if not settings.min_ante <= ante <= settings.max_ante:
            raise ApiError(422, "BET_LIMIT", f"ante {ante} is outside {settings.min_ante}..{settings.max_ante}")
    if len({player for player, _ in new.antes}) != len(new.antes):
        raise validation("each player may place one bet a round")


async def _shoe_for_round(
    unit: UnitOfWork, table: TableRow, round_id: str, forced: tuple[str, ...]
) -> tuple[Shoe, list[Event]]:
    """A fresh committed shoe per round, or the table's cut-card shoe (replaced once the cut card is out)."""
    settings = table.settings
    events: list[Event] = []
    if settings.shoe_policy is ShoePolicy.CUT_CARD:
        if table.active_round_id is not None:
            raise ApiError(409, "ROUND_IN_PROGRESS", "a cut-card table plays one round at a time")
        data = await table_sql.select_table_shoe(unit.conn, table.table_id)
        current = None if data is None else decode_shoe(data)
        if not shoe_lifecycle.needs_new_shoe(current, forced):
            assert current is not None
            return current, events
        if current is not None:
            events.append(shoe_lifecycle.revealed(current))
    try:
        shoe = shuffle(settings.decks, settings.shoe_policy, settings.penetration, forced)
    except ShoeError as exc:
        raise validation(str(exc)) from None
    events.append(shoe_lifecycle.shuffled(shoe, round_id=round_id, forced=forced))
    return shoe, events


async def decide(unit: UnitOfWork, round_id: UUID, decision: PlayerDecision) -> RoundView:
    stored, lock = await _locked_round(unit, round_id)
    paytable = loader.get(stored.round.paytable)
    step = red_dog_round.decide(stored.round, stored.shoe, paytable, decision, now=unit.now, actor=unit.operator_id)
    return _persist(unit, stored, lock, step)


async def close_round(unit: UnitOfWork, round_id: UUID, requested_by: str | None = None) -> RoundView:
    """The dealer closes the raise window now; undecided bets call. `requested_by` names who asked, for the log."""
    stored, lock = await _locked_round(unit, round_id)
    paytable = loader.get(stored.round.paytable)
    step = red_dog_round.close_window(
        stored.round, stored.shoe, paytable, now=unit.now, actor=unit.operator_id, requested_by=requested_by
    )
    return _persist(unit, stored, lock, step)


async def void_round(unit: UnitOfWork, round_id: UUID, reason: str, requested_by: str | None = None) -> RoundView:
    stored, lock = await _locked_round(unit, round_id)
    paytable = loader.get(stored.round.paytable)
    step = red_dog_round.void_round(
        stored.round,
        stored.shoe,
        paytable,
        reason=reason,
        now=unit.now,
        actor=unit.operator_id,
        requested_by=requested_by,
    )
    return _persist(unit, stored, lock, step)


async def get_round(unit: UnitOfWork, round_id: UUID) -> RoundView:
    """A read; a round whose window has passed is settled first, so nobody sees a stale open window."""
    structlog.contextvars.bind_contextvars(round_id=str(round_id))  # the request log line names the round
    stored = await round_sql.select_round(unit.conn, unit.operator_id, round_id)
    if stored is None:
        raise not_found("round")
    if not red_dog_round.is_expired(stored.round, unit.now):
        return view(stored)
    stored, lock = await _locked_round(unit, round_id)
    return settled_if_expired(unit, stored, lock) or view(stored)


async def settle_expired(unit: UnitOfWork, round_id: UUID) -> bool:
    """The sweeper's use case: claim an expired round no one else holds and settle it; False when there was none."""
    stored = await round_sql.claim_expired_round(unit.conn, round_id, unit.now)
    if stored is None:  # another replica or a request got there first
        return False
    unit.operator_id = stored.operator_id
    lock = await audit_sql.lock_table_for_append(unit.conn, UUID(stored.round.table_id))
    return settled_if_expired(unit, stored, lock) is not None


def settled_if_expired(unit: UnitOfWork, stored: StoredRound, lock: TableLock) -> RoundView | None:
    """Settle a locked round whose deadline passed (decided under the lock: another replica may have won)."""
    paytable = loader.get(stored.round.paytable)
    step = red_dog_round.settle_if_expired(stored.round, stored.shoe, paytable, now=unit.now)
    return None if step is None else _persist(unit, stored, lock, step)


async def list_rounds(unit: UnitOfWork, query: RoundQuery) -> list[RoundView]:
    found = await round_sql.select_rounds(unit.conn, unit.operator_id, **msgspec.structs.asdict(query))
    return [view(s) for s in found]


def view(stored: StoredRound) -> RoundView:
    rnd = stored.round
    reveal = shoe_lifecycle.reveal_to_show(rnd.is_open, stored.shoe, stored.table_shoe_commitment)
    return RoundView(round=rnd, reveal=reveal, checkpoint_size=stored.checkpoint_size)


async def _locked_round(unit: UnitOfWork, round_id: UUID) -> tuple[StoredRound, TableLock]:
    structlog.contextvars.bind_contextvars(round_id=str(round_id))
    stored = await round_sql.select_round(unit.conn, unit.operator_id, round_id, lock=True)
    if stored is None:
        raise not_found("round")
    unit.read_clock()  # waiting for the lock may have carried us past the deadline
    assert stored.table is not None  # select_round(lock=True) locks the table row too
    return stored, stored.table


def _persist(
    unit: UnitOfWork, stored: StoredRound, lock: TableLock, step: Step, *, opened: list[Event] | None = None
) -> RoundView:
    """Write the round, settle its shoe's fate when it ends, append the audit records, move the table's head."""
    rnd = step.round
    table_id = UUID(rnd.table_id)
    if opened is None:
        unit.defer([round_sql.update_round(rnd, step.shoe)])
    events = [*(opened or ()), *step.events]
    table_shoe: bytes | table_sql.Unset | None = UNSET
    active_round: UUID | table_sql.Unset | None = UNSET
    table_commitment = stored.table_shoe_commitment
    if step.ended:
        fate = shoe_lifecycle.at_round_end(step.shoe, round_id=rnd.round_id, table_closed=lock.closed)
        events.extend(fate.revealed)
        if fate.table_holds_shoes:
            table_shoe = None if fate.table_shoe is None else encode_shoe(fate.table_shoe)
            active_round = None
            table_commitment = None if fate.table_shoe is None else fate.table_shoe.commitment
    elif opened is not None and shoe_lifecycle.held_by_table(step.shoe):
        table_shoe, active_round = encode_shoe(step.shoe), UUID(rnd.round_id)  # the table plays this round now
        table_commitment = step.shoe.commitment
    appended = checkpoints.append(
        unit, table_id, lock.head, events, test=rnd.test, checkpoint_size=lock.checkpoint_size
    )
    update = table_sql.update_table(table_id, appended.head, shoe=table_shoe, active_round_id=active_round)
    unit.defer([*appended.writes, update])
    if step.refusal is not None:
        unit.refuse_after_commit(step.refusal)
    if step.ended:
        unit.after_commit.append(lambda: _record_end(rnd, stored.currency))
    reveal = shoe_lifecycle.reveal_to_show(rnd.is_open, step.shoe, table_commitment)
    return RoundView(round=rnd, reveal=reveal, checkpoint_size=appended.checkpoint_size)


def _record_end(rnd: Round, currency: str) -> None:
    metrics.record_round(rnd, currency)
    log.info(
        "round_settled",
        round_id=rnd.round_id,
        status=rnd.status.value,
        outcome=rnd.outcome,
        bets=len(rnd.bets),
        net=sum(b.net or 0 for b in rnd.bets),
        test=rnd.test,
    )
