"""Replay an audit export: every round rebuilt from its records alone and re-run through the game core.

Rounds wait for their shoe's reveal, which comes after them in the chain (right after a per-round shoe's round,
much later for a cut-card shoe); then each is re-run from the revealed order at the position its shoe had reached,
with the released paytable, and compared with its records. The shoes themselves are checked too: the reveal
against its commitment, the order against a real shoe, the cut card against the table's penetration.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import NamedTuple

import msgspec

from audit.chain import Record, envelope
from audit.collector import collector_paused
from audit.export_format import BadLine, Line, RecordLine, body_bytes, decode_line
from audit.game_replay import GameReplayer, GamesReplayed
from audit.records import decode_inbetween_record, decode_record
from audit.replay_stats import GroupSummary, ReplayStats
from audit.round_checks import record_problems
from audit.round_fast import fast_rerun
from audit.round_rerun import (
    RecordedRound,
    paytable_problem,
    raise_window_of,
    released_paytable,
    rerun,
    state_of,
)
from audit.shoe_checks import ShoeTrack, TableTrack, name, on_opened, on_revealed, on_shuffled, shoe_at
from paytables.red_dog.events import (
    BetSettled,
    CardDealt,
    Decided,
    DecidedBy,
    Event,
    RoundOpened,
    RoundRolledBack,
    RoundSettled,
    RoundVoided,
    ShoeRevealed,
    ShoeShuffled,
    SpreadAnnounced,
    TableClosed,
    TableCreated,
)
from paytables.red_dog.round import Round
from shoe.shoe import Shoe


class TypedRecordLine(msgspec.Struct, frozen=True, kw_only=True, tag="record", tag_field="type"):
    """A record line decoded with its body as the typed record: one pass over the bytes instead of two."""

    table_id: str
    body: Record[Event]


_typed_line = msgspec.json.Decoder(TypedRecordLine)
# The system chain (service start and stop, settings, migrations, failed sign-ins) is kept in the audit log under the
# nil UUID with events of its own (audit/system_events.py, from the checkpoint work): verify checks it like any
# chain; there is no round in it to replay.
SYSTEM_CHAIN_ID = "00000000-0000-0000-0000-000000000000"
_SYSTEM_RECORD = b'{"type":"record","table_id":"' + SYSTEM_CHAIN_ID.encode() + b'"'
_RECORD = b'{"type":"record"'


class Mismatch(msgspec.Struct, frozen=True, kw_only=True):
    table_id: str
    round_id: str | None
    detail: str


class ReplayReport(msgspec.Struct, frozen=True, kw_only=True):
    ok: bool
    rounds: int  # rounds re-run through the game core
    matched: int  # ... whose every event equals its record
    mismatches: list[Mismatch]
    open_rounds: int  # still in their raise window: nothing to replay yet
    unrevealed_rounds: int  # over, but their cut-card shoe is still in play, so its order is secret
    partial_rounds: int  # opened before the export starts (`--since`)
    schema1_records: int  # untyped records from before schema 2: verified by `verify`, not replayed
    test_rounds: int  # test-table rounds: replayed, but kept out of the summary
    summary: list[GroupSummary]
    system_records: int = 0  # the system chain's: verified by `verify`; no rounds in them
    games: GamesReplayed = msgspec.field(default_factory=GamesReplayed)  # In Between games (audit/game_replay.py)


class RecordedRounds(msgspec.Struct, frozen=True, kw_only=True):
    """What the records say of every round they open: what each stored round must be, and what they contradict."""

    states: dict[str, Round]  # round id -> the state its records fold to
    problems: dict[str, list[str]]  # round id -> how its records contradict each other (rounds with none left out)
    unreadable: frozenset[str]  # rounds with records from before schema 2: untyped, so not folded


ROLLBACK_WINDOW = timedelta(days=7)  # the longest grace period RD_ROLLBACK_GRACE_SECONDS allows
PRUNE_AT = 50_000  # rounds kept for a late rollback before the older ones are let go


class ReplaySection(NamedTuple):
    """What a replayer found in one section of a file (`audit/parallel.py`), to be merged in file order."""

    mismatches: list[Mismatch]
    counts: tuple[int, int, int, int, int]  # replayed, matched, partial, schema-1 and system records
    stats: ReplayStats
    tables: dict[str, TableTrack]
    waiting: tuple[int, int]  # rounds open, and rounds over but unrevealed, at the section's end
    round_ids: set[str]  # every round the section names
    commitments: set[str]  # every shoe it names
    alone: bool  # False: something in it a single pass might see otherwise (a rollback of a pruned round)


class Finished(msgspec.Struct, frozen=True, kw_only=True):
    """A replayed round, kept in case a rollback of it comes later in the chain."""

    recorded: RecordedRound
    shoe: Shoe  # as it stood when the round was dealt from it
    matched: bool


class Replayer:
    """Feed it an export's lines; `report()` says which rounds re-ran to exactly their records and which did not."""

    # Every attribute `merge` takes from a section, checks across sections (`round_ids`, `shoes`, `revealed`,
    # `alone`), or has no need to: the rest only serve the feed itself or `keep_states` (the database reconciliation,
    # which never runs in sections). A new attribute must be added here and merged (tests/unit/test_audit_parallel.py
    # holds the list to the class).
    MERGED = frozenset(
        {
            "tables", "shoes", "revealed", "rounds", "finished", "prune_at", "mismatches", "stats", "replayed",
            "matched", "partial", "schema1", "system", "states", "problems", "opened_again", "schema1_rounds",
            "rerun", "round_ids", "alone", "newest_opened", "waiting", "games",
        }
    )  # fmt: skip

    def __init__(self, *, keep_states: bool = False, rerun: bool = True, track_keys: bool = False) -> None:
        self.tables: dict[str, TableTrack] = {}
        self.shoes: dict[str, ShoeTrack] = {}
        self.revealed: set[str] = set()  # commitments already revealed: no card may come from them any more
        self.rounds: dict[str, RecordedRound] = {}  # opened and not yet replayed
        self.finished: dict[str, Finished] = {}  # replayed, and may yet be rolled back
        self.prune_at = PRUNE_AT  # `finished` is pruned when it grows past this
        self.mismatches: list[Mismatch] = []
        self.stats = ReplayStats()
        self.replayed = self.matched = self.partial = self.schema1 = self.system = 0
        self.states: dict[str, Round] | None = {} if keep_states else None  # the recorded state of every round
        self.problems: dict[str, list[str]] = {}  # (keep_states) how each finished round's records contradict
        self.opened_again: Counter[str] = Counter()  # round_opened records past a round's first
        self.schema1_rounds: set[str] = set()  # rounds with untyped records
        self.rerun = rerun  # False: only read the rounds (their recorded states), re-run none
        # A section's replayer (`audit/parallel.py`) notes every round it meets, and anything whose outcome could
        # depend on what other sections hold, so that the merge can tell whether it equals a single pass.
        self.round_ids: set[str] | None = set() if track_keys else None
        self.alone = True
        self.newest_opened: datetime | None = None
        self.waiting = (0, 0)  # rounds open and unrevealed that merged sections left
        self.games = GameReplayer()  # In Between games' chains: their records fail the Red Dog decoder, so come here

    def feed(self, lines: Iterable[Line | BadLine]) -> None:
        """Lines already decoded (from the database, say)."""
        with collector_paused():
            for line in lines:
                if type(line) is RecordLine:
                    self.record_line(line)

    def feed_bytes(self, raw_lines: Iterable[bytes]) -> None:
        """An export's lines as bytes: each record line is decoded once, straight into its typed event."""
        with collector_paused():
            self._feed_bytes(raw_lines)

    def _feed_bytes(self, raw_lines: Iterable[bytes]) -> None:
        decode = _typed_line.decode
        for data in raw_lines:
            if not data.startswith(_RECORD):
                continue
            if data.startswith(_SYSTEM_RECORD):
                self.system += 1
                continue
            try:
                line = decode(data)
            except msgspec.DecodeError:
                self._slow_line(data)
                continue
            self.record(line.table_id, line.body)

    def _slow_line(self, data: bytes) -> None:
        """A record line whose body is no typed record (schema 1, base64, damaged): read it the general way."""
        try:
            found = decode_line(data)
        except msgspec.DecodeError as exc:
            self._mismatch("?", None, f"a line is not an export line ({exc}); verify names it")
            return
        if type(found) is RecordLine:
            self.record_line(found)

    def record_line(self, line: RecordLine) -> None:
        if line.table_id == SYSTEM_CHAIN_ID:
            self.system += 1
            return
        try:
            record = decode_record(body_bytes(line))
        except msgspec.DecodeError as exc:
            if line.kind.startswith("ib_") and self._game_record(line):
                return
            self._undecodable(line, exc)
            return
        self.record(line.table_id, record)

    def _game_record(self, line: RecordLine) -> bool:
        """A record of an In Between game's chain, handed to the game replay; False when it is none."""
        try:
            record = decode_inbetween_record(body_bytes(line))
        except msgspec.DecodeError:
            return False
        if self.rerun:
            self.games.record(line.table_id, record)
        return True

    def record(self, table_id: str, record: Record[Event]) -> None:
        event = record.event
        match event:
            case CardDealt():
                self._round(table_id, event.round_id, record.test).events.append(event)
                shoe = self.shoes.get(event.commitment)
                if shoe is not None and shoe.dealt <= event.shoe_index:
                    shoe.dealt = event.shoe_index + 1
            case Decided():
                recorded = self._round(table_id, event.round_id, record.test)
                recorded.events.append(event)
                if event.by is DecidedBy.PLAYER:
                    recorded.decided_at.append(record.recorded_at)
            case RoundSettled() | RoundVoided():
                recorded = self._round(table_id, event.round_id, record.test)
                recorded.events.append(event)
                recorded.ended = event
            case RoundRolledBack() if event.round_id in self.finished:
                self._rolled_back_later(event)
            case RoundRolledBack():
                if event.round_id not in self.rounds:  # a round pruned from `finished`, or opened before the export
                    self.alone = False
                recorded = self._round(table_id, event.round_id, record.test)
                recorded.events.append(event)
                recorded.rolled_back = event
            case SpreadAnnounced() | BetSettled():
                self._round(table_id, event.round_id, record.test).events.append(event)
            case RoundOpened():
                self._opened(table_id, event, record.test)
            case ShoeShuffled():
                self._shuffled(table_id, event)
            case ShoeRevealed():
                self._revealed(table_id, event)
            case TableCreated():
                self._table_created(table_id, event)
            case TableClosed():
                self._table(table_id).closed = True

    def _round(self, table_id: str, round_id: str, test: bool) -> RecordedRound:
        """The round a record belongs to; one opened before the export starts is kept aside as partial."""
        recorded = self.rounds.get(round_id)
        if recorded is None:
            recorded = self.rounds[round_id] = RecordedRound(round_id, table_id, test)
            self.partial += 1
            if self.round_ids is not None:
                self.round_ids.add(round_id)
        return recorded

    def _undecodable(self, line: RecordLine, exc: Exception) -> None:
        try:
            schema = envelope(body_bytes(line)).schema
        except msgspec.DecodeError:
            schema = 0
        if schema == 1:
            self.schema1 += 1
            if line.round_id is not None:
                self.schema1_rounds.add(line.round_id)
            return
        self._mismatch(line.table_id, line.round_id, f"seq {line.seq}: the body is not a record of a known kind: {exc}")

    def _mismatch(self, table_id: str, round_id: str | None, detail: str) -> None:
        self.mismatches.append(Mismatch(table_id=table_id, round_id=round_id, detail=detail))

    def _table(self, table_id: str) -> TableTrack:
        table = self.tables.get(table_id)
        if table is None:
            table = self.tables[table_id] = TableTrack()
        return table

    def _table_created(self, table_id: str, event: TableCreated) -> None:
        self._table(table_id).settings = event.settings
        problem = paytable_problem(event.settings.paytable, event.settings.paytable_sha256)
        if problem is not None:
            self._mismatch(table_id, None, f"table_created: {problem}")

    def _shuffled(self, table_id: str, event: ShoeShuffled) -> None:
        self.shoes[event.commitment] = ShoeTrack(event)
        for problem in on_shuffled(self._table(table_id), event):
            self._mismatch(table_id, event.round_id, problem)

    def _opened(self, table_id: str, event: RoundOpened, test: bool) -> None:
        if self._was_opened(event.round_id):
            self.opened_again[event.round_id] += 1
            self._mismatch(table_id, event.round_id, "round_opened again: the round was opened before")
        recorded = RecordedRound(event.round_id, table_id, test)
        recorded.opened = event
        recorded.events.append(event)
        self.rounds[event.round_id] = recorded
        if self.round_ids is not None:
            self.round_ids.add(event.round_id)
        if self.newest_opened is None or event.opened_at > self.newest_opened:
            self.newest_opened = event.opened_at
        if event.commitment in self.revealed:
            self._mismatch(table_id, event.round_id, f"dealt from {name(event.commitment)} after it was revealed")
        shoe = self.shoes.get(event.commitment)
        if shoe is None:
            shoe = self.shoes[event.commitment] = ShoeTrack(None)
        shoe.rounds.append(recorded)
        for problem in on_opened(shoe, event):
            self._mismatch(table_id, event.round_id, problem)

    def _was_opened(self, round_id: str) -> bool:
        earlier = self.rounds.get(round_id)
        if earlier is not None and earlier.opened is not None:
            return True
        return round_id in self.finished or (self.states is not None and round_id in self.states)

    def _revealed(self, table_id: str, event: ShoeRevealed) -> None:
        shoe = self.shoes.pop(event.commitment, None) or ShoeTrack(None)
        self.revealed.add(event.commitment)
        decks = len(event.order) // 104 if shoe.shuffled is None else shoe.shuffled.decks
        for problem in on_revealed(self._table(table_id), shoe, event, decks):
            self._mismatch(table_id, event.round_id, problem)
        position = self._replay_shoe(table_id, shoe, event, decks)
        if position is not None and position != event.dealt:
            detail = f"{name(event.commitment)}: the reveal says {event.dealt} cards were dealt, its rounds {position}"
            self._mismatch(table_id, event.round_id, detail)

    def _replay_shoe(self, table_id: str, shoe: ShoeTrack, revealed: ShoeRevealed, decks: int) -> int | None:
        """Re-run every round dealt from the shoe, in order; the position the shoe ended at (None: not known)."""
        shuffled = shoe.shuffled
        position: int | None = 0 if shuffled is not None else None
        cut = None if shuffled is None else shuffled.cut_position
        for recorded in shoe.rounds:
            self.rounds.pop(recorded.round_id, None)
            if not recorded.finished:
                detail = f"its {name(revealed.commitment)} was revealed while the round was open"
                self._mismatch(table_id, recorded.round_id, detail)
                continue
            start = recorded.first_shoe_index()
            if start is None or recorded.opened is None:  # opened before the export starts: not re-run
                position = None if start is None else start + recorded.card_count()
                continue
            if position is None:
                # The shoe was shuffled where replay cannot read it (before a --since export, or in a schema-1
                # record before an upgrade): the round is re-run from where its own cards say the shoe stood,
                # and the rounds after it from where it left the shoe.
                position = start
            position = self._replay_round(recorded, shoe_at(revealed, decks, position, cut))
        return position

    def _replay_round(self, recorded: RecordedRound, shoe: Shoe) -> int:
        """Re-run one round from the shoe at its position; the position after it."""
        opened = recorded.opened
        assert opened is not None
        if self.states is not None:
            self.states[recorded.round_id] = state_of(recorded)
            self.problems[recorded.round_id] = record_problems(recorded)
        if not self.rerun:  # a rollback later in the chain must still reach the state kept here
            self._keep_for_a_rollback(recorded, shoe, matched=True)
            return shoe.position + recorded.card_count()
        table = self.tables.get(recorded.table_id)
        settings = None if table is None else table.settings
        paytable = released_paytable(opened.paytable)
        self.replayed += 1
        problem = paytable_problem(opened.paytable, opened.paytable_sha256)
        if problem is not None or isinstance(paytable, str):
            self._mismatch(recorded.table_id, recorded.round_id, problem or "no paytable")
            return shoe.position + recorded.card_count()
        if settings is not None and (settings.paytable, settings.decks) != (opened.paytable, opened.decks):
            detail = (
                f"{opened.paytable} with {opened.decks} deck(s) at a {settings.paytable} {settings.decks}-deck table"
            )
            self._mismatch(recorded.table_id, recorded.round_id, detail)
        window = raise_window_of(recorded, settings)
        after = fast_rerun(recorded, shoe.order, shoe.position, shoe.commitment, shoe.decks, paytable, window)
        if after is not None:  # exactly the game core's events (audit/round_fast.py): what a matching re-run does
            self.matched += 1
            self.stats.add(opened.paytable, opened.decks, recorded.test, recorded.events)
            self._keep_for_a_rollback(recorded, shoe, matched=True)
            return after
        step, problems = rerun(recorded, shoe, paytable, window)
        for problem in problems:
            self._mismatch(recorded.table_id, recorded.round_id, problem)
        if not problems:
            self.matched += 1
        self.stats.add(opened.paytable, opened.decks, recorded.test, recorded.events)
        self._keep_for_a_rollback(recorded, shoe, matched=not problems)
        return shoe.position + recorded.card_count() if step is None else step.shoe.position

    def _keep_for_a_rollback(self, recorded: RecordedRound, shoe: Shoe, *, matched: bool) -> None:
        """A round that ended may still be rolled back, later in the chain but within the grace period (at most
        ROLLBACK_WINDOW of chain time): keep what re-running it again needs until then."""
        if recorded.rolled_back is not None or recorded.opened is None:
            return
        self.finished[recorded.round_id] = Finished(recorded=recorded, shoe=shoe, matched=matched)
        if len(self.finished) > self.prune_at:
            oldest = recorded.opened.opened_at - ROLLBACK_WINDOW
            self.finished = {
                k: f for k, f in self.finished.items() if f.recorded.opened and f.recorded.opened.opened_at >= oldest
            }
            # Next time only once as many again have finished: when every kept round is still inside the window,
            # pruning at each round past PRUNE_AT rebuilt the whole dict per round (16 ms a round at 50,000 kept).
            self.prune_at = max(PRUNE_AT, 2 * len(self.finished))

    def _rolled_back_later(self, event: RoundRolledBack) -> None:
        """A round replayed when it ended was rolled back since: take back what it counted and re-run it whole."""
        done = self.finished.pop(event.round_id)
        recorded, opened = done.recorded, done.recorded.opened
        assert opened is not None
        if self.newest_opened is not None and opened.opened_at < self.newest_opened - ROLLBACK_WINDOW:
            self.alone = False  # a single pass, holding more rounds, may have pruned this one by now
        if self.rerun:  # only a re-run counted the round
            self.stats.remove(opened.paytable, opened.decks, recorded.test, recorded.events)
            self.replayed -= 1
            self.matched -= done.matched
        recorded.events.append(event)
        recorded.rolled_back = event
        self._replay_round(recorded, done.shoe)

    def recorded_rounds(self) -> RecordedRounds:
        """Every round as its records describe it (`keep_states`): what the stored rounds must equal."""
        states, problems = dict(self.states or {}), dict(self.problems)
        for recorded in self.rounds.values():
            if recorded.opened is not None:
                states[recorded.round_id] = state_of(recorded)
                problems[recorded.round_id] = record_problems(recorded)
        for round_id, again in self.opened_again.items():
            problems[round_id] = [f"{again + 1} round_opened records, not 1", *problems.get(round_id, [])]
        return RecordedRounds(
            states=states,
            problems={round_id: found for round_id, found in problems.items() if found},
            unreadable=frozenset(self.schema1_rounds),
        )

    def section(self) -> ReplaySection:
        """What this replayer found, fed one section of a file, for `merge`."""
        return ReplaySection(
            mismatches=self.mismatches,
            counts=(self.replayed, self.matched, self.partial, self.schema1, self.system),
            stats=self.stats,
            tables=self.tables,
            waiting=self._waiting(),
            round_ids=self.round_ids or set(),
            commitments={*self.shoes, *self.revealed},
            # In Between games are not merged across sections: a section that met one asks for the single pass
            alone=self.alone and self.games.records == 0,
        )

    def merge(self, sections: Sequence[ReplaySection]) -> bool:
        """Take in the sections of a file, in file order, as if one pass had read them one after another; False
        when a table, round or shoe is in more than one section, or a section was not alone, which only one pass
        over the file can replay."""
        tables: set[str] = set()
        rounds: set[str] = set()
        shoes: set[str] = set()
        for found in sections:
            if (
                not found.alone
                or not tables.isdisjoint(found.tables)
                or not rounds.isdisjoint(found.round_ids)
                or not shoes.isdisjoint(found.commitments)
            ):
                return False
            tables.update(found.tables)
            rounds.update(found.round_ids)
            shoes.update(found.commitments)
        for found in sections:
            self.mismatches.extend(found.mismatches)
            replayed, matched, partial, schema1, system = found.counts
            self.replayed += replayed
            self.matched += matched
            self.partial += partial
            self.schema1 += schema1
            self.system += system
            self.stats.merge(found.stats)
            self.tables.update(found.tables)
            self.waiting = (self.waiting[0] + found.waiting[0], self.waiting[1] + found.waiting[1])
        return True

    def _waiting(self) -> tuple[int, int]:
        open_rounds = sum(1 for r in self.rounds.values() if not r.finished and r.opened is not None)
        unrevealed = sum(1 for r in self.rounds.values() if r.finished and r.opened is not None)
        return open_rounds + self.waiting[0], unrevealed + self.waiting[1]

    def report(self) -> ReplayReport:
        open_rounds, unrevealed = self._waiting()
        mismatches = list(self.mismatches)
        for table_id, table in self.tables.items():
            if table.early is not None:
                mismatches.append(
                    Mismatch(
                        table_id=table_id,
                        round_id=None,
                        detail=f"shoe {table.early[:16]} was retired before its cut card came out",
                    )
                )
        games = self.games.report()
        return ReplayReport(
            ok=not mismatches and not games.mismatches,
            rounds=self.replayed,
            matched=self.matched,
            mismatches=mismatches,
            open_rounds=open_rounds,
            unrevealed_rounds=unrevealed,
            partial_rounds=self.partial,
            schema1_records=self.schema1,
            system_records=self.system,
            test_rounds=self.stats.test_rounds,
            summary=self.stats.summary(),
            games=games,
        )


def replay_lines(lines: Iterable[Line | BadLine]) -> ReplayReport:
    replayer = Replayer()
    replayer.feed(lines)
    return replayer.report()
