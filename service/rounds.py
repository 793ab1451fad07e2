"""Round use cases: load -> game core step -> persist + audit append, inside the caller's Unit."""

from __future__ import annotations

import uuid
from uuid import UUID

import structlog

from paytables import loader
from paytables import round as game
from paytables.round import Decision, Round, RoundStatus, Step
from service import metrics
from service.api import wire
from service.db import audit, rounds, tables
from service.db.rounds import StoredRound
from service.db.tables import TableRow
from service.errors import ApiError, not_found, validation
from service.shoes import shuffle
from service.uow import CommitThenRaise, Unit, utcnow
from service.views import round_out
from shoe import shoe as shoes
from shoe.shoe import Shoe, ShoeError, ShoePolicy

log = structlog.get_logger("reddog.rounds")


async def open_round(unit: Unit, table_id: UUID, data: wire.CreateRound) -> wire.RoundOut:
    """Take the antes and deal the posts; the table row lock orders rounds and the audit chain."""
    locked = await tables.lock_table(unit.conn, unit.operator_id, table_id)
    if locked is None:
        raise not_found("table")
    table, head = locked
    _check_bets(table, data)
    if table.status != "open":
        raise ApiError(409, "TABLE_CLOSED", "the table is closed to new rounds")
    forced = tuple(data.forced_cards or ())
    if forced and (table.mode != "test" or not unit.settings.allow_test_tables):
        raise ApiError(403, "FORCED_CARDS_NOT_ALLOWED", "forced cards are accepted only on a test table")
    shoe, events = await _shoe_for_round(unit, table, forced)
    round_id = str(uuid.uuid4())
    structlog.contextvars.bind_contextvars(round_id=round_id)
    step = game.open_round(
        round_id=round_id,
        table_id=str(table.table_id),
        paytable=loader.get(table.paytable_id),
        shoe=shoe,
        antes=[(b.player_id, b.ante) for b in data.bets],
        now=unit.now,
        window_seconds=table.raise_window_seconds,
        test=table.mode == "test",
    )
    unit.defer([rounds.insert_round(step.round, step.shoe, unit.operator_id)])
    if table.shoe_policy == ShoePolicy.CUT_CARD:
        active = None if step.round.status is RoundStatus.SETTLED else UUID(round_id)
        await tables.update_table_shoe(unit.conn, table.table_id, shoes.dump(step.shoe), active)
    all_events = (*events, *step.events)
    unit.defer(
        await audit.append_events(unit.conn, table.table_id, all_events, test=step.round.test, now=unit.now, head=head)
    )
    _after_step(unit, table.currency, step)
    # A cut-card table's current shoe is this round's: not retired, so not revealed (round_out ignores it per round).
    return round_out(step.round, step.shoe, step.shoe.commitment)


def _check_bets(table: TableRow, data: wire.CreateRound) -> None:
    if len(data.bets) > table.max_bets:
        raise ApiError(422, "BET_LIMIT", f"this table takes at most {table.max_bets} bets a round")
    for bet in data.bets:
        if not table.min_ante <= bet.ante <= table.max_ante:
            raise ApiError(422, "BET_LIMIT", f"ante {bet.ante} is outside {table.min_ante}..{table.max_ante}")
    if len({b.player_id for b in data.bets}) != len(data.bets):
        raise validation("each player may place one bet a round")


async def _shoe_for_round(unit: Unit, table: TableRow, forced: tuple[str, ...]) -> tuple[Shoe, list[game.Event]]:
    """A fresh committed shoe per round, or the table's cut-card shoe (replaced once the cut card is out)."""
    events: list[game.Event] = []
    policy = ShoePolicy(table.shoe_policy)
    if policy is ShoePolicy.CUT_CARD:
        if table.active_round_id is not None:
            raise ApiError(409, "ROUND_IN_PROGRESS", "a cut-card table plays one round at a time")
        data = await tables.select_table_shoe(unit.conn, table.table_id)
        current = None if data is None else shoes.load(data)
        if current is not None and not forced and not current.needs_reshuffle():
            return current, events
        if current is not None:
            events.extend(game.reveal_events(current))
    try:
        shoe = shuffle(table.decks, policy, table.penetration, forced)
    except ShoeError as exc:
        raise validation(str(exc)) from None
    events.extend(game.shuffled_events(shoe, policy=policy.value))
    return shoe, events


async def decide(unit: Unit, round_id: UUID, data: wire.DecisionIn) -> wire.RoundOut:
    stored = await _locked_round(unit, round_id)
    if await _timeout_if_expired(unit, stored) is not None:
        raise CommitThenRaise(game.RaiseWindowClosed(f"the raise window of round {round_id} closed"))
    paytable = loader.get(stored.round.paytable_id)
    action = Decision(data.action)
    step = game.decide(
        stored.round, stored.shoe, paytable, bet_id=data.bet_id, action=action, amount=data.amount, now=unit.now
    )
    return await _persist(unit, stored, step)


async def close_round(unit: Unit, round_id: UUID) -> wire.RoundOut:
    """The dealer closes the raise window now; undecided bets call."""
    stored = await _locked_round(unit, round_id)
    by = "timeout" if game.is_expired(stored.round, unit.now) else "dealer"
    paytable = loader.get(stored.round.paytable_id)
    return await _persist(unit, stored, game.close_window(stored.round, stored.shoe, paytable, now=unit.now, by=by))


async def void_round(unit: Unit, round_id: UUID, data: wire.VoidIn) -> wire.RoundOut:
    stored = await _locked_round(unit, round_id)
    if await _timeout_if_expired(unit, stored) is not None:
        raise CommitThenRaise(game.NotInRaiseWindow(f"round {round_id} settled when its raise window closed"))
    return await _persist(unit, stored, game.void_round(stored.round, stored.shoe, reason=data.reason, now=unit.now))


async def get_round(unit: Unit, round_id: UUID) -> wire.RoundOut:
    """A read; a round whose window has passed is settled first, so nobody sees a stale open window."""
    structlog.contextvars.bind_contextvars(round_id=str(round_id))  # the request log line names the round
    stored = await rounds.select_round(unit.conn, unit.operator_id, round_id)
    if stored is None:
        raise not_found("round")
    if not game.is_expired(stored.round, unit.now):
        return round_out(stored.round, stored.shoe, stored.table_shoe_commitment)
    return await settle_expired(unit, await _locked_round(unit, round_id))


async def settle_expired(unit: Unit, stored: StoredRound) -> wire.RoundOut:
    """Settle a locked round whose deadline passed (re-checked under the lock: another replica may have won)."""
    settled = await _timeout_if_expired(unit, stored)
    return settled or round_out(stored.round, stored.shoe, stored.table_shoe_commitment)


async def _timeout_if_expired(unit: Unit, stored: StoredRound) -> wire.RoundOut | None:
    """Settle a locked round whose deadline has passed, its undecided bets calling; None while the window is open."""
    if not game.is_expired(stored.round, unit.now):
        return None
    paytable = loader.get(stored.round.paytable_id)
    return await _persist(
        unit, stored, game.close_window(stored.round, stored.shoe, paytable, now=unit.now, by="timeout")
    )


async def list_rounds(unit: Unit, f: rounds.RoundFilter) -> list[StoredRound]:
    return await rounds.select_rounds(unit.conn, f)


async def _locked_round(unit: Unit, round_id: UUID) -> StoredRound:
    structlog.contextvars.bind_contextvars(round_id=str(round_id))
    stored = await rounds.select_round(unit.conn, unit.operator_id, round_id, lock=True)
    if stored is None:
        raise not_found("round")
    unit.now = utcnow()  # read the clock again: waiting for the lock may have carried us past the deadline
    return stored


async def _persist(unit: Unit, stored: StoredRound, step: Step) -> wire.RoundOut:
    """Write the round, give a cut-card shoe back to its table when the round ends, append the audit records."""
    rnd = step.round
    table_id = UUID(rnd.table_id)
    unit.defer([rounds.update_round(rnd, step.shoe)])
    events = list(step.events)
    table_commitment = stored.table_shoe_commitment
    if step.shoe.cut_position is not None and rnd.status is not RoundStatus.RAISE_WINDOW:
        retired = await _return_cut_card_shoe(unit, table_id, step.shoe)
        events.extend(retired)
        table_commitment = None if retired else step.shoe.commitment
    unit.defer(await audit.append_events(unit.conn, table_id, events, test=rnd.test, now=unit.now, head=stored.head))
    _after_step(unit, stored.currency, step)
    return round_out(rnd, step.shoe, table_commitment)


async def _return_cut_card_shoe(unit: Unit, table_id: UUID, shoe: Shoe) -> tuple[game.Event, ...]:
    """The round is over: the table gets its shoe back, or, once the table has closed, the shoe retires."""
    if await tables.lock_table_status(unit.conn, table_id) == "closed":  # a close may have raced this round
        await tables.update_table_shoe(unit.conn, table_id, None, None)
        return game.reveal_events(shoe)
    await tables.update_table_shoe(unit.conn, table_id, shoes.dump(shoe), None)
    return ()


def _after_step(unit: Unit, currency: str, step: Step) -> None:
    rnd: Round = step.round
    if rnd.status is RoundStatus.RAISE_WINDOW:
        return

    def record() -> None:
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

    unit.after_commit.append(record)
