"""Round use cases: lock -> game core step -> persist + audit append, inside the caller's unit of work.

Each returns a RoundView (domain values); `service/api/` decides how it is shown.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TypeVar
from uuid import UUID

import msgspec
import structlog

from paytables.red_dog import loader, round_rollback, shoe_lifecycle
from paytables.red_dog import round as red_dog_round
from paytables.red_dog.analysis.rtp_report import RoundFigures, round_figures
from paytables.red_dog.events import Event
from paytables.red_dog.round import PlayerDecision, Round, RoundStatus, Step
from paytables.red_dog.table import DealMode, TableStatus
from service.chains import checkpoints, notifications
from service.db import Statement, figures_sql, round_sql, table_sql
from service.db.audit_sql import AuditHead, TableLock
from service.db.round_sql import StoredRound
from service.db.row_reads import Found, Missing, Optimistic, Replay
from service.db.storage_forms import shoe_bytes
from service.db.table_sql import UNSET, LockedTable, TableRow
from service.db.unit_of_work import UnitOfWork
from service.errors import ApiError, not_found, validation
from service.observability import configuration_metrics, metrics
from service.shuffler import shuffle
from service.time_ordered_ids import uuid7
from shoe.shoe import Reveal, Shoe, ShoeError, ShoePolicy, decode_shoe

log = structlog.get_logger("reddog.rounds")
T = TypeVar("T")


class RoundView(msgspec.Struct, frozen=True, kw_only=True):
    """A round as the use cases return it: the round, its table's currency, and its shoe's reveal once retired."""

    round: Round
    reveal: Reveal | None
    currency: str
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
    settled_from: datetime | None = None
    settled_to: datetime | None = None
    before: tuple[datetime, UUID] | None = None  # (opened_at, round_id) of the last round already seen
    limit: int = 50


async def open_round(unit: UnitOfWork, table_id: UUID, new: NewRound) -> RoundView | Replay:
    """Take the antes and deal the posts; the table row lock orders rounds and the audit chain."""
    remembered = _remembered(unit, table_id, LockedTable)
    read = (
        Found(remembered)
        if remembered is not None
        else await table_sql.lock_table(unit.conn, unit.operator_id, table_id, unit.mode)
    )
    if isinstance(read, Replay):
        return read
    if isinstance(read, Missing):
        raise not_found("table")
    locked = read.value
    table, lock = locked.table, locked.lock
    now = unit.read_clock()  # after the lock: the chain's times and the raise window start when the deal does
    _check_bets(table, new)
    if table.status is not TableStatus.OPEN:
        raise ApiError(409, "TABLE_CLOSED", "the table is closed to new rounds")
    if new.forced_cards and not (table.settings.test and unit.settings.allow_test_tables):
        raise ApiError(403, "FORCED_CARDS_NOT_ALLOWED", "forced cards are accepted only on a test table")
    round_id = str(uuid7(now))  # time-ordered: the round's index entries go where the last round's went
    structlog.contextvars.bind_contextvars(round_id=round_id)
    shoe, events = _shoe_for_round(table, locked.shoe, round_id, new.forced_cards)
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
        deal=table.settings.deal,
    )
    unit.defer([round_sql.insert_round(step.round, step.shoe, unit.operator_id)])
    stored = StoredRound(round=step.round, shoe=shoe, operator_id=unit.operator_id, currency=table.settings.currency)
    return _persist(unit, stored, lock, step, opened=events, table=table)


def _check_bets(table: TableRow, new: NewRound) -> None:
    settings = table.settings
    if len(new.antes) > settings.max_bets:
        raise ApiError(422, "BET_LIMIT", f"this table takes at most {settings.max_bets} bets a round")
    for _, ante in new.antes:
        if not settings.min_ante <= ante <= settings.max_ante:
            raise ApiError(422, "BET_LIMIT", f"ante {ante} is outside {settings.min_ante}..{settings.max_ante}")
    if len({player for player, _ in new.antes}) != len(new.antes):
        raise validation("each player may place one bet a round")
    most = 3 * len(new.antes) if settings.deal is DealMode.PER_SEAT else 3
    if len(new.forced_cards) > most:
        detail = f"forced_cards: this round deals at most {most} cards ({settings.deal.value} deal)"
        raise ApiError(400, "VALIDATION_ERROR", detail, errors=[{"key": "forced_cards", "message": detail}])


def _shoe_for_round(
    table: TableRow, table_shoe: bytes | None, round_id: str, forced: tuple[str, ...]
) -> tuple[Shoe, list[Event]]:
    """A fresh committed shoe per round, or the table's cut-card shoe (replaced once the cut card is out)."""
    settings = table.settings
    events: list[Event] = []
    if settings.shoe_policy is ShoePolicy.CUT_CARD:
        if table.active_round_id is not None:
            raise ApiError(409, "ROUND_IN_PROGRESS", "a cut-card table plays one round at a time")
        current = None if table_shoe is None else decode_shoe(table_shoe)
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


async def decide(unit: UnitOfWork, round_id: UUID, decision: PlayerDecision) -> RoundView | Replay:
    read = await _locked_round(unit, round_id)
    if isinstance(read, Replay):
        return read
    stored, lock = read
    paytable = loader.get(stored.round.paytable)
    step = red_dog_round.decide(stored.round, stored.shoe, paytable, decision, now=unit.now, actor=unit.operator_id)
    return _persist(unit, stored, lock, step)


async def close_round(unit: UnitOfWork, round_id: UUID, requested_by: str | None = None) -> RoundView | Replay:
    """The dealer closes the raise window now; undecided bets call. `requested_by` names who asked, for the log."""
    read = await _locked_round(unit, round_id)
    if isinstance(read, Replay):
        return read
    stored, lock = read
    paytable = loader.get(stored.round.paytable)
    step = red_dog_round.close_window(
        stored.round, stored.shoe, paytable, now=unit.now, actor=unit.operator_id, requested_by=requested_by
    )
    return _persist(unit, stored, lock, step)


async def void_round(
    unit: UnitOfWork, round_id: UUID, reason: str, requested_by: str | None = None
) -> RoundView | Replay:
    read = await _locked_round(unit, round_id)
    if isinstance(read, Replay):
        return read
    stored, lock = read
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


async def rollback_round(unit: UnitOfWork, round_id: UUID, reason: str) -> RoundView | Replay:
    """Reverse every transaction of a round opened within the grace period; a second rollback changes nothing."""
    read = await _locked_round(unit, round_id)
    if isinstance(read, Replay):
        return read
    stored, lock = read
    paytable = loader.get(stored.round.paytable)
    grace = timedelta(seconds=unit.settings.rollback_grace_seconds)
    step = round_rollback.rollback(
        stored.round, stored.shoe, paytable, reason=reason, now=unit.now, actor=unit.operator_id, grace=grace
    )
    if not step.events:  # already rolled back: nothing to write
        return view(stored)
    if step.round.status is red_dog_round.RoundStatus.ROLLED_BACK:
        unit.after_commit.append(lambda: log.info("round_rolled_back", round_id=str(round_id), reason=reason))
    return _persist(unit, stored, lock, step)


async def get_round(unit: UnitOfWork, round_id: UUID) -> RoundView:
    """A read; a round whose window has passed is settled first, so nobody sees a stale open window."""
    structlog.contextvars.bind_contextvars(round_id=str(round_id))  # the request log line names the round
    stored = await round_sql.select_round(unit.conn, unit.operator_id, round_id)
    if stored is None:
        raise not_found("round")
    if not red_dog_round.is_expired(stored.round, unit.now):
        return view(stored)
    stored = await round_sql.select_round(unit.conn, unit.operator_id, round_id, lock=True)
    if stored is None:
        raise not_found("round")
    unit.read_clock()  # waiting for the lock may have carried us past the deadline
    assert stored.table is not None  # select_round(lock=True) locks the table row too
    return settled_if_expired(unit, stored, stored.table) or view(stored)


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
    return RoundView(round=rnd, reveal=reveal, currency=stored.currency, checkpoint_size=stored.checkpoint_size)


async def _locked_round(unit: UnitOfWork, round_id: UUID) -> tuple[StoredRound, TableLock] | Replay:
    """The round a request changes and its table's head, read in the unit's mode; a Replay when its key was used."""
    structlog.contextvars.bind_contextvars(round_id=str(round_id))
    remembered = _remembered(unit, round_id, StoredRound)
    read = (
        Found(remembered)
        if remembered is not None
        else await round_sql.read_round(unit.conn, unit.operator_id, round_id, unit.mode)
    )
    if isinstance(read, Replay):
        return read
    if isinstance(read, Missing):
        raise not_found("round")
    unit.read_clock()  # waiting for the lock may have carried us past the deadline
    assert read.value.table is not None  # read_round reads the table's head too
    return read.value, read.value.table


class TableChange(msgspec.Struct, frozen=True, kw_only=True):
    """What a step changes on its table's row: the audit head always, the shoe and the active round when named."""

    table_id: UUID
    replaces: int  # the audit sequence number of the head this change was computed from
    head: AuditHead
    checkpoint_size: int  # of the table's latest signed checkpoint, after this change
    shoe: bytes | table_sql.Unset | None = UNSET
    active_round_id: UUID | table_sql.Unset | None = UNSET

    def then(self, later: TableChange) -> TableChange:
        """This change followed by a later one of the same table, as one update (a row is written once per unit)."""
        return TableChange(
            table_id=self.table_id,
            replaces=self.replaces,
            head=later.head,
            checkpoint_size=later.checkpoint_size,
            shoe=self.shoe if isinstance(later.shoe, table_sql.Unset) else later.shoe,
            active_round_id=(
                self.active_round_id if isinstance(later.active_round_id, table_sql.Unset) else later.active_round_id
            ),
        )

    def lock_after(self, lock: TableLock) -> TableLock:
        """The table as the next step in this unit sees it: its chain continues from this change's head."""
        return msgspec.structs.replace(lock, head=self.head, checkpoint_size=self.checkpoint_size)

    def statement(self, *, checkpoint_size: int | None = None) -> Statement:
        """The update; `checkpoint_size` the size of the latest checkpoint it must still find (recent_rows)."""
        return table_sql.update_table(
            self.table_id,
            self.head,
            replaces=self.replaces,
            shoe=self.shoe,
            active_round_id=self.active_round_id,
            checkpoint_size=checkpoint_size,
        )


def _persist(
    unit: UnitOfWork,
    stored: StoredRound,
    lock: TableLock,
    step: Step,
    *,
    opened: list[Event] | None = None,
    table: TableRow | None = None,
) -> RoundView:
    """Write the step; `table` the row a new round's table was read as (its open passes it), to remember."""
    view, change = record_step(unit, stored, lock, step, opened=opened)
    unit.defer([change.statement(checkpoint_size=unit.remembered_checkpoint)])
    _remember(unit, stored, change.lock_after(lock), step, table)
    return view


def _remember(unit: UnitOfWork, stored: StoredRound, after: TableLock, step: Step, table: TableRow | None) -> None:
    """Once this unit commits, keep the rows as it leaves them for the next request on them (recent_rows): a round
    still open, and its table. Only tables with a shoe a round (a cut-card table's row holds its shoe between rounds,
    which this does not follow): their rounds' rows change only through this module's steps."""
    recent = unit.recent
    rnd = step.round
    if recent is None or shoe_lifecycle.held_by_table(step.shoe) or stored.table_shoe_commitment is not None:
        return
    operator_id, table_id, round_id = stored.operator_id, UUID(rnd.table_id), UUID(rnd.round_id)

    def keep() -> None:
        kept_table = recent.peek(operator_id, table_id, LockedTable)
        known = table or (None if kept_table is None else kept_table.table)
        if known is not None:  # a decision moves its table's head too: the table's next round starts from it
            recent.keep(operator_id, table_id, LockedTable(table=known, lock=after, shoe=None))
        if rnd.is_open:
            kept = StoredRound(
                round=rnd,
                shoe=step.shoe,
                operator_id=operator_id,
                currency=stored.currency,
                table=after,
                checkpoint_size=after.checkpoint_size,
            )
            recent.keep(operator_id, round_id, kept)
        else:
            recent.forget(operator_id, round_id)

    unit.after_commit.append(keep)


def _remembered(unit: UnitOfWork, row_id: UUID, kind: type[T]) -> T | None:
    """The row as this worker's last commit on it left it, for an unlocked attempt to start from instead of a read;
    its write then checks the checkpoint size too (recent_rows)."""
    if unit.recent is None or not isinstance(unit.mode, Optimistic):
        return None
    row = unit.recent.take(unit.operator_id, row_id, kind)
    lock = row.lock if isinstance(row, LockedTable) else getattr(row, "table", None)
    if row is None or not isinstance(lock, TableLock):
        return None
    unit.remembered_checkpoint = lock.checkpoint_size
    return row


def record_step(
    unit: UnitOfWork, stored: StoredRound, lock: TableLock, step: Step, *, opened: list[Event] | None = None
) -> tuple[RoundView, TableChange]:
    """Write the round, settle its shoe's fate when it ends, append the audit records; and the change to make to the
    table's row (its new head), which the caller defers once per table."""
    rnd = step.round
    # A new round that settled at once ends now; so does one that was open. A rollback of an ended round does not.
    ended_now = step.ended and (opened is not None or stored.round.is_open)
    table_id = UUID(rnd.table_id)
    if opened is None:
        unit.defer([round_sql.update_round(rnd, step.shoe)])
    events = [*(opened or ()), *step.events]
    table_shoe: bytes | table_sql.Unset | None = UNSET
    active_round: UUID | table_sql.Unset | None = UNSET
    table_commitment = stored.table_shoe_commitment
    if ended_now:
        fate = shoe_lifecycle.at_round_end(step.shoe, round_id=rnd.round_id, table_closed=lock.closed)
        events.extend(fate.revealed)
        if fate.table_holds_shoes:
            table_shoe = None if fate.table_shoe is None else shoe_bytes(fate.table_shoe)
            active_round = None
            table_commitment = None if fate.table_shoe is None else fate.table_shoe.commitment
    elif opened is not None and shoe_lifecycle.held_by_table(step.shoe):
        table_shoe, active_round = shoe_bytes(step.shoe), UUID(rnd.round_id)  # the table plays this round now
        table_commitment = step.shoe.commitment
    appended = checkpoints.append(
        unit, table_id, lock.head, events, test=rnd.test, checkpoint_size=lock.checkpoint_size
    )
    unit.defer(appended.writes)
    if step.refusal is not None:
        unit.refuse_after_commit(step.refusal)
    if ended_now:
        # The shoe's order never changes as cards go out, so any version of it gives the cards left after the posts.
        figures = round_figures(rnd, step.shoe.order, loader.get(rnd.paytable))
        unit.defer([figures_sql.insert_figures(rnd, figures, operator_id=stored.operator_id, currency=stored.currency)])
        unit.after_commit.append(lambda: _record_end(rnd, stored.currency, figures))
    elif rnd.status is RoundStatus.ROLLED_BACK and stored.round.status is not RoundStatus.ROLLED_BACK:
        unit.defer([figures_sql.roll_back_figures(rnd)])  # the report must not count what was reversed
    if rnd.status is RoundStatus.ROLLED_BACK and stored.round.status is not RoundStatus.ROLLED_BACK:
        previous = stored.round.status.value  # an open round's rollback ends it too (the branch above)
        unit.after_commit.append(lambda: metrics.record_rollback(rnd, previous))
    rolled_back_now = rnd.status is RoundStatus.ROLLED_BACK and stored.round.status is not RoundStatus.ROLLED_BACK
    if ended_now or rolled_back_now:  # owed to the operator in this transaction: no change without its message
        told = notifications.round_notification(
            unit.settings, stored.operator_id, stored.currency, rnd, appended.head.seq, unit.now
        )
        unit.defer([*told, *_checkpoint_told(unit, stored.operator_id, appended)])
    elif appended.signed is not None:
        unit.defer(_checkpoint_told(unit, stored.operator_id, appended))
    reveal = shoe_lifecycle.reveal_to_show(rnd.is_open, step.shoe, table_commitment)
    view = RoundView(round=rnd, reveal=reveal, currency=stored.currency, checkpoint_size=appended.checkpoint_size)
    change = TableChange(
        table_id=table_id,
        replaces=lock.head.seq,
        head=appended.head,
        checkpoint_size=appended.checkpoint_size,
        shoe=table_shoe,
        active_round_id=active_round,
    )
    return view, change


def _checkpoint_told(unit: UnitOfWork, operator_id: str, appended: checkpoints.Appended) -> list[Statement]:
    signed = appended.signed
    if signed is None:
        return []
    return notifications.checkpoint_notification(
        unit.settings, operator_id, signed.table_id, signed.tree_size, signed.root, signed.note, unit.now
    )


def _record_end(rnd: Round, currency: str, figures: RoundFigures) -> None:
    configuration_metrics.configuration_seen(rnd.paytable, rnd.decks, currency, rnd.test)
    # A shared void risked nothing (its expectation is zero); a per-seat void may hold hands settled at the deal.
    metrics.record_round(rnd, currency, figures.expectation)
    log.info(
        "round_settled",
        round_id=rnd.round_id,
        status=rnd.status.value,
        outcome=rnd.outcome,
        bets=len(rnd.bets),
        net=sum(b.net or 0 for b in rnd.bets),
        test=rnd.test,
    )
