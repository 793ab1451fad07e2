"""Verify the audit log straight from the database: every chain (the system's, each table's, each game's), and every
round's stored state against its records.

The chain proves the records were not changed; the reconciliation proves the rounds the API shows (rounds.state)
still say what the records say, so a rewritten round is caught even though its records are intact.
"""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

import msgspec

from audit.chain import ChainReport, envelope, verify
from audit.records import decode_record
from paytables.red_dog.events import BetSettled, Event, RoundOpened, RoundRolledBack, RoundSettled, RoundVoided
from paytables.red_dog.red_dog import Result
from paytables.red_dog.round import Round, RoundStatus
from service.db import Conn, audit_sql, inbetween_sql
from service.db.system_sql import SYSTEM_CHAIN, system_chain_exists

# What a round's stored state must share with its bet_settled records, bet by bet.
SETTLED_FIELDS = ("player_id", "ante", "raise_amount", "decision", "result", "payout", "net", "transactions")
RECONCILED_KINDS = ("round_opened", "bet_settled", "round_settled", "round_voided", "round_rolled_back")
_decode_round = msgspec.json.Decoder(Round).decode


class RoundMismatch(msgspec.Struct, frozen=True, kw_only=True):
    """One way a stored round disagrees with its audit records."""

    round_id: UUID
    table_id: UUID
    problem: str


class RoundsReport(msgspec.Struct, frozen=True, kw_only=True):
    checked: int
    mismatches: list[RoundMismatch]
    unreadable: int = 0  # rounds with records from before schema 2, whose untyped payloads are not reconciled

    @property
    def ok(self) -> bool:
        return not self.mismatches


async def chain_ids(conn: Conn) -> list[UUID]:
    """Every chain in audit_log: the system chain (under the nil UUID), one per table, one per In Between game."""
    system = [SYSTEM_CHAIN] if await system_chain_exists(conn) else []
    return [*system, *await audit_sql.select_table_ids(conn), *await inbetween_sql.select_game_ids(conn)]


async def verify_chains(conn: Conn) -> dict[UUID, ChainReport]:
    """Every chain, checked from its first record."""
    return {
        chain_id: verify(await audit_sql.select_chain(conn, chain_id), table_id=str(chain_id))
        for chain_id in await chain_ids(conn)
    }


def broken(reports: dict[UUID, ChainReport]) -> dict[str, str | None]:
    """The chains that do not verify, with what is wrong with each."""
    return {str(chain_id): report.error for chain_id, report in reports.items() if not report.ok}


_ROUNDS_WITH_RECORDS = (
    "SELECT r.round_id, r.table_id, r.status, r.state::text AS state,"
    " coalesce(array_agg(a.body ORDER BY a.seq) FILTER (WHERE a.body IS NOT NULL), '{}') AS bodies"
    " FROM rounds r LEFT JOIN audit_log a ON a.table_id = r.table_id AND a.round_id = r.round_id"
    " AND a.kind = ANY($1::text[])"
    " GROUP BY r.round_id ORDER BY r.round_id"
)


async def reconcile_rounds(conn: Conn) -> RoundsReport:
    """Every round's stored state and status against its round_opened, bet_settled and round end records; one
    snapshot (a round and its records commit together, so a round settling meanwhile is seen whole or not at all)."""
    mismatches: list[RoundMismatch] = []
    checked = unreadable = 0
    async with conn.transaction(isolation="repeatable_read", readonly=True):
        async for row in conn.cursor(_ROUNDS_WITH_RECORDS, list(RECONCILED_KINDS), prefetch=500):
            checked += 1
            if any(envelope(body).schema < 2 for body in row["bodies"]):
                unreadable += 1
                continue
            try:
                rnd = _decode_round(row["state"])
            except msgspec.ValidationError as exc:
                problems = [f"rounds.state is not a round: {exc}"]
            else:
                events = [decode_record(body).event for body in row["bodies"]]
                problems = round_problems(row["status"], rnd, events)
            mismatches.extend(
                RoundMismatch(round_id=row["round_id"], table_id=row["table_id"], problem=p) for p in problems
            )
    return RoundsReport(checked=checked, mismatches=mismatches, unreadable=unreadable)


def round_problems(status: str, rnd: Round, events: Sequence[Event]) -> list[str]:
    """What in a round's status column and stored state disagrees with its audit events (empty when nothing)."""
    problems: list[str] = []
    recorded = _recorded_status(events)
    if status != recorded.value:
        problems.append(f"rounds.status is {status!r} but the audit log says {recorded.value!r}")
    if rnd.status is not recorded:
        problems.append(f"rounds.state says {rnd.status.value!r} but the audit log says {recorded.value!r}")
    opened = [e for e in events if isinstance(e, RoundOpened)]
    if len(opened) != 1:
        problems.append(f"{len(opened)} round_opened records, not 1")
    else:
        problems.extend(_opening_problems(rnd, opened[0]))
    settled = {e.bet_id: e for e in events if isinstance(e, BetSettled)}
    rolled = [e for e in events if isinstance(e, RoundRolledBack)]
    if rolled:
        problems.extend(_rollback_problems(rnd, rolled[-1]))
    elif recorded is not RoundStatus.RAISE_WINDOW or settled:
        problems.extend(_bet_problems(rnd, settled, still_open=recorded is RoundStatus.RAISE_WINDOW))
    for event in events:
        if isinstance(event, RoundSettled) and (rnd.outcome, rnd.settled_at) != (event.outcome, event.settled_at):
            problems.append("rounds.state's outcome or settled_at differs from round_settled")
        if isinstance(event, RoundVoided) and (rnd.void_reason, rnd.settled_at) != (event.reason, event.voided_at):
            problems.append("rounds.state's void reason or time differs from round_voided")
    return problems


def _recorded_status(events: Sequence[Event]) -> RoundStatus:
    if any(isinstance(e, RoundRolledBack) for e in events):
        return RoundStatus.ROLLED_BACK
    if any(isinstance(e, RoundVoided) for e in events):
        return RoundStatus.VOID
    if any(isinstance(e, RoundSettled) for e in events):
        return RoundStatus.SETTLED
    return RoundStatus.RAISE_WINDOW


def _opening_problems(rnd: Round, opened: RoundOpened) -> list[str]:
    stored = (rnd.paytable, rnd.paytable_sha256, rnd.decks, rnd.commitment, rnd.opened_at)
    recorded = (opened.paytable, opened.paytable_sha256, opened.decks, opened.commitment, opened.opened_at)
    problems = [] if stored == recorded else ["rounds.state's terms, shoe or opening time differ from round_opened"]
    if [(b.bet_id, b.player_id, b.ante) for b in rnd.bets] != [(b.bet_id, b.player_id, b.ante) for b in opened.bets]:
        problems.append("rounds.state's bets differ from round_opened")
    return problems


def _bet_problems(rnd: Round, settled: dict[str, BetSettled], *, still_open: bool) -> list[str]:
    problems: list[str] = []
    for bet in rnd.bets:
        record = settled.get(bet.bet_id)
        if record is None:
            if not (still_open and bet.result is None):  # a per-seat round's spread bet waits while others settled
                problems.append(f"bet {bet.bet_id} has no bet_settled record")
            continue
        differ = [name for name in SETTLED_FIELDS if getattr(bet, name) != getattr(record, name)]
        if differ:
            problems.append(f"bet {bet.bet_id}: rounds.state's {', '.join(differ)} differ from bet_settled")
    problems.extend(f"bet_settled for {bet_id}, a bet rounds.state lacks" for bet_id in settled.keys() - _ids(rnd))
    return problems


def _rollback_problems(rnd: Round, rolled: RoundRolledBack) -> list[str]:
    """A rolled-back round's bets hold what the rollback record lists: every movement and its reversal."""
    problems: list[str] = []
    if (rnd.rollback_reason, rnd.rolled_back_at) != (rolled.reason, rolled.rolled_back_at):
        problems.append("rounds.state's rollback reason or time differs from round_rolled_back")
    recorded = {b.bet_id: b for b in rolled.bets}
    for bet in rnd.bets:
        record = recorded.get(bet.bet_id)
        if record is None:
            problems.append(f"bet {bet.bet_id} is missing from round_rolled_back")
        elif (bet.player_id, bet.result, bet.transactions) != (
            record.player_id,
            Result.ROLLED_BACK,
            record.transactions,
        ):
            problems.append(f"bet {bet.bet_id}: rounds.state's result or transactions differ from round_rolled_back")
    return problems


def _ids(rnd: Round) -> set[str]:
    return {bet.bet_id for bet in rnd.bets}


def print_reports(reports: dict[UUID, ChainReport], rounds: RoundsReport | None = None) -> bool:
    """One line per chain (the system's, a table's or a game's), then the rounds that disagree with their records;
    True when all is well."""
    for chain_id, report in reports.items():
        status = "ok" if report.ok else f"BROKEN: {report.error}"
        print(f"{chain_id}  {report.records:>7} records  head {report.head[:16]}  {status}")
    if rounds is not None:
        for mismatch in rounds.mismatches:
            print(f"round {mismatch.round_id} (table {mismatch.table_id})  MISMATCH: {mismatch.problem}")
        bad = len({m.round_id for m in rounds.mismatches})
        skipped = f", {rounds.unreadable} with pre-schema-2 records not reconciled" if rounds.unreadable else ""
        print(f"rounds: {rounds.checked} checked against their audit records, {bad} disagree{skipped}")
    return all(report.ok for report in reports.values()) and (rounds is None or rounds.ok)
