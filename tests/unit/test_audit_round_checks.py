"""What the records say of each round, for `audit verify --db` to hold the stored rows to: every round's state, and
the ways a round's records contradict each other that no stored row could be compared with."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec

from audit.chain import Record
from audit.export_format import Line, RecordLine
from audit.replay import RecordedRounds, Replayer
from audit.round_checks import record_problems
from audit.round_rerun import RecordedRound
from paytables.red_dog.events import (
    BetSettled,
    Decided,
    DecidedBy,
    Event,
    OpenedBet,
    RolledBackBet,
    RoundOpened,
    RoundRolledBack,
)
from paytables.red_dog.red_dog import Decision
from tests.support.audit_play import export, rechained
from tests.unit.test_audit_replay import TABLES

AT = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def recorded(lines: list[Line]) -> RecordedRounds:
    """What verify --db folds: the states alone, nothing re-run."""
    folder = Replayer(keep_states=True, rerun=False)
    folder.feed(lines)
    return folder.recorded_rounds()


def renumbered(records: list[Record[Event]]) -> list[Record[Event]]:
    """An owner's rewrite that moves every later record up or down: the chain itself stays consistent."""
    return [msgspec.structs.replace(r, seq=seq) for seq, r in enumerate(records, start=1)]


def first(records: list[Record[Event]], kind: type[Event]) -> int:
    return next(i for i, r in enumerate(records) if isinstance(r.event, kind))


def test_a_clean_chain_describes_every_round_and_contradicts_itself_nowhere() -> None:
    rounds = recorded(export(TABLES))
    opened = {r.event.round_id for t in TABLES for r in t.records if isinstance(r.event, RoundOpened)}
    assert set(rounds.states) == opened
    assert (rounds.problems, rounds.unreadable) == ({}, frozenset())


def test_an_ended_round_whose_bet_settled_record_was_dropped_is_named() -> None:
    table = TABLES[0]
    records = list(table.records)
    dropped = records.pop(first(records, BetSettled)).event
    assert isinstance(dropped, BetSettled)
    problems = recorded(rechained(table, renumbered(records))).problems
    assert problems == {dropped.round_id: [f"bet {dropped.bet_id} has no bet_settled record"]}


def test_a_bet_settled_twice_is_named() -> None:
    table = TABLES[0]
    records = list(table.records)
    at = first(records, BetSettled)
    settled = records[at].event
    assert isinstance(settled, BetSettled)
    records.insert(at + 1, records[at])
    problems = recorded(rechained(table, renumbered(records))).problems
    assert problems == {settled.round_id: [f"bet {settled.bet_id} has 2 bet_settled records"]}


def test_a_bet_settled_that_the_round_never_opened_is_named() -> None:
    table = TABLES[0]
    records = list(table.records)
    at = first(records, BetSettled)
    settled = records[at].event
    assert isinstance(settled, BetSettled)
    records[at] = msgspec.structs.replace(records[at], event=msgspec.structs.replace(settled, bet_id="stranger"))
    problems = recorded(rechained(table, renumbered(records))).problems[settled.round_id]
    assert "its bet_settled names bet stranger, which its round_opened does not open" in problems
    assert f"bet {settled.bet_id} has no bet_settled record" in problems


def test_a_round_opened_twice_is_named_by_the_fold_and_by_the_replay() -> None:
    table = TABLES[0]
    records = list(table.records)
    at = first(records, RoundOpened)
    opened = records[at].event
    assert isinstance(opened, RoundOpened)
    records.insert(at + 1, records[at])  # right after the first: the state it folds to is the same
    lines = rechained(table, renumbered(records))
    assert recorded(lines).problems == {opened.round_id: ["2 round_opened records, not 1"]}
    replayer = Replayer()
    replayer.feed(lines)
    details = [m.detail for m in replayer.report().mismatches if m.round_id == opened.round_id]
    assert "round_opened again: the round was opened before" in details


def test_a_round_with_records_from_before_schema_two_is_left_unreconciled() -> None:
    body = (
        b'{"bet_id":"r1.1","kind":"bet_settled","payload":{"net":-20},"recorded_at":"2024-05-01T12:00:00Z",'
        b'"round_id":"r1","seq":1,"table_id":"table-a","test":false}'
    )
    line = msgspec.json.decode(
        b'{"type":"record","table_id":"table-a","seq":1,"prev_hash":"00","hash":"00",'
        b'"recorded_at":"2024-05-01T12:00:00Z","kind":"bet_settled","round_id":"r1","bet_id":"r1.1","test":false,'
        b'"encoding":"json","body":' + body + b"}",
        type=RecordLine,
    )
    assert recorded([line]).unreadable == frozenset({"r1"})


def opened_round(*bet_ids: str) -> RecordedRound:
    recorded = RecordedRound("r1", "t1", test=True)
    bets = tuple(OpenedBet(bet_id=bet_id, player_id=f"p{i}", ante=10) for i, bet_id in enumerate(bet_ids))
    recorded.opened = RoundOpened(
        round_id="r1", paytable="standard/v1", paytable_sha256="0" * 64, decks=6, commitment="c0", opened_at=AT,
        bets=bets, actor="op",
    )  # fmt: skip
    recorded.events.append(recorded.opened)
    return recorded


def test_a_rollback_that_leaves_a_bet_out_is_named() -> None:
    recorded = opened_round("r1.1", "r1.2")
    recorded.rolled_back = RoundRolledBack(
        round_id="r1", reason="wallet debit failed", rolled_back_at=AT, actor="op", previous_status="raise_window",
        bets=(RolledBackBet(bet_id="r1.1", player_id="p0", transactions=()),),
    )  # fmt: skip
    recorded.events.append(recorded.rolled_back)
    assert record_problems(recorded) == ["bet r1.2 is missing from round_rolled_back"]


def test_a_decision_for_a_bet_the_round_never_opened_is_named_while_the_round_is_open() -> None:
    recorded = opened_round("r1.1")
    recorded.events.append(
        Decided(round_id="r1", bet_id="r1.9", action=Decision.CALL, raise_amount=0, by=DecidedBy.PLAYER, actor="op")
    )
    assert record_problems(recorded) == ["its decision names bet r1.9, which its round_opened does not open"]
    assert record_problems(opened_round("r1.1")) == []  # open, nothing settled yet: nothing owed
