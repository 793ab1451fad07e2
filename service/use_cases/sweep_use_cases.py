"""The sweeper's use cases: settle rounds whose raise window passed with no request touching them."""

from __future__ import annotations

from uuid import UUID

import msgspec
import structlog

from paytables.red_dog import loader
from paytables.red_dog import round as red_dog_round
from paytables.red_dog.round import Round
from service.db import round_sql
from service.db.audit_sql import TableLock
from service.db.round_sql import StoredRound
from service.db.unit_of_work import UnitOfWork
from service.observability import metrics
from service.use_cases.round_use_cases import TableChange, record_step, settled_if_expired

log = structlog.get_logger("reddog.sweeper")


async def settle_expired(unit: UnitOfWork, round_id: UUID) -> bool:
    """The sweeper's use case: claim an expired round no one else holds and settle it; False when there was none."""
    stored = await round_sql.claim_expired_round(unit.conn, round_id, unit.now)
    if stored is None:  # another replica or a request got there first, or holds the table now: the next pass
        return False
    unit.operator_id = stored.operator_id
    assert stored.table is not None  # claimed with its table's row
    if settled_if_expired(unit, stored, stored.table) is None:
        return False
    _observe_lag(unit, stored.round)
    return True


class Swept(msgspec.Struct, frozen=True, kw_only=True):
    claimed: int
    settled: int


async def settle_expired_batch(unit: UnitOfWork, size: int) -> Swept:
    """The sweeper's use case: claim up to `size` expired rounds that no one else holds, with their tables (SKIP
    LOCKED: it never waits, so it can never deadlock), and settle them all in this one unit; each table's rounds
    in deadline order, its audit chain carried from one to the next, its row written once."""
    claimed = await round_sql.claim_expired_rounds(unit.conn, unit.now, size)
    unit.read_clock()
    changes: dict[UUID, TableChange] = {}
    settled = 0
    for stored in claimed:
        assert stored.table is not None  # claimed with its table's lock
        table_id = UUID(stored.round.table_id)
        earlier = changes.get(table_id)
        change = _settle_claimed(unit, stored, stored.table if earlier is None else earlier.lock_after(stored.table))
        if change is not None:
            changes[table_id] = change if earlier is None else earlier.then(change)
            settled += 1
    unit.defer([change.statement() for change in changes.values()])
    return Swept(claimed=len(claimed), settled=settled)


def _settle_claimed(unit: UnitOfWork, stored: StoredRound, lock: TableLock) -> TableChange | None:
    """One claimed round; one that cannot settle is logged and left, without its writes, for the next pass."""
    pending, hooks = len(unit.pending), len(unit.after_commit)
    try:
        paytable = loader.get(stored.round.paytable)
        step = red_dog_round.settle_if_expired(stored.round, stored.shoe, paytable, now=unit.now)
        if step is None:
            return None
        _, change = record_step(unit, stored, lock, step)
    except Exception as exc:  # a round that cannot settle must not hold up the rest of the batch
        del unit.pending[pending:], unit.after_commit[hooks:]
        log.error("sweep_round_failed", round_id=stored.round.round_id, error=type(exc).__name__, detail=str(exc))
        return None
    _observe_lag(unit, stored.round)
    return change


def _observe_lag(unit: UnitOfWork, rnd: Round) -> None:
    """The sweeper's lag, from the deadline to just after COMMIT: when the settlement became visible."""
    deadline = rnd.raise_window_closes_at
    assert deadline is not None  # it expired
    unit.after_commit.append(lambda: metrics.observe_sweep((unit.clock() - deadline).total_seconds()))
