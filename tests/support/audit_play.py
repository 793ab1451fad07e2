"""Real audit chains made in-process: real shoes, rounds through the game core, records through the real chain code.

It does what the service's use cases do around the game core (which shoe a round gets, when a shoe is revealed,
which events are appended in which order), without HTTP or SQL, so tests and benchmarks can make thousands of
rounds quickly. The API tests check the service itself; these chains check the auditors' tools.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

from audit.chain import GENESIS, Link, Record, extend
from audit.export_format import ExportEnd, ExportHeader, Line, RecordLine, TableHead, record_line
from paytables.red_dog import loader, shoe_lifecycle
from paytables.red_dog import round as red_dog_round
from paytables.red_dog.events import Event, TableClosed, TableCreated, bet_id_of, kind_of, round_id_of
from paytables.red_dog.round import Step
from paytables.red_dog.table import TableMode, TableSettings
from shoe.shoe import Shoe, ShoePolicy, new_shoe

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def settings(
    paytable: str = "standard/v1",
    *,
    decks: int = 6,
    policy: ShoePolicy = ShoePolicy.PER_ROUND,
    penetration: int | None = None,
    mode: TableMode = TableMode.LIVE,
    window: int = 30,
) -> TableSettings:
    return TableSettings(
        name="audit test",
        paytable=paytable,
        paytable_sha256=loader.get(paytable).sha256,
        decks=decks,
        shoe_policy=policy,
        penetration=(penetration or 75) if policy is ShoePolicy.CUT_CARD else None,
        currency="EUR",
        min_ante=1,
        max_ante=1000,
        max_bets=7,
        raise_window_seconds=window,
        mode=mode,
    )


class TablePlay:
    """One table's life: its records, chained as the service chains them."""

    def __init__(
        self, table_settings: TableSettings, rng: random.Random, *, operator: str = "op-test", place: int | None = None
    ) -> None:
        self.settings = table_settings
        self.rng = rng
        self.operator = operator
        self.table_id = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        if place is not None:  # the id begins with the table's place, so tables made in place order are in id order
            self.table_id = f"{place:08x}{self.table_id[8:]}"
        self.now = START
        self.links: list[Link] = []
        self.records: list[Record[Event]] = []
        self.head = GENESIS
        self.table_shoe: Shoe | None = None
        self.closed = False
        created: list[Event] = [TableCreated(operator_id=operator, created_at=self.now, settings=table_settings)]
        if table_settings.shoe_policy is ShoePolicy.CUT_CARD:
            self.table_shoe = self._shuffle(())
            created.append(shoe_lifecycle.shuffled(self.table_shoe, round_id=None))
        self.append(created)

    def tick(self, seconds: float = 1.0) -> datetime:
        self.now += timedelta(seconds=seconds)
        return self.now

    def append(self, events: list[Event]) -> None:
        records = [
            Record(
                table_id=self.table_id,
                seq=len(self.records) + i + 1,
                recorded_at=self.now,
                test=self.settings.test,
                event=event,
            )
            for i, event in enumerate(events)
        ]
        links = extend(self.head, records)
        self.records.extend(records)
        self.links.extend(links)
        if links:
            self.head = links[-1].hash

    def _shuffle(self, forced: tuple[str, ...]) -> Shoe:
        s = self.settings
        return new_shoe(s.decks, self.rng, policy=s.shoe_policy, penetration=s.penetration or 75, forced=forced)

    def play(
        self,
        antes: list[int],
        *,
        end: str = "player",
        raises: list[bool | int] | None = None,
        forced: tuple[str, ...] = (),
    ) -> str:
        """One round: `end` is how a spread finishes (player, dealer, timeout, void); returns the round id."""
        round_id = str(uuid.UUID(int=self.rng.getrandbits(128), version=4))
        shoe, opened = self._shoe_for(round_id, forced)
        paytable = loader.get(self.settings.paytable)
        players = [(f"player-{self.rng.randrange(10**6)}-{i}", ante) for i, ante in enumerate(antes)]
        step = red_dog_round.open_round(
            round_id=round_id,
            table_id=self.table_id,
            paytable=paytable,
            shoe=shoe,
            antes=players,
            now=self.tick(),
            window_seconds=self.settings.raise_window_seconds,
            test=self.settings.test,
            actor=self.operator,
        )
        self._persist(step, opened)
        if step.ended:
            return round_id
        plans = raises or [self.rng.random() < 0.5 for _ in antes]
        deciding = len(antes) if end == "player" else self.rng.randrange(len(antes))
        for bet, plan in list(zip(step.round.bets, plans, strict=False))[:deciding]:
            decision: red_dog_round.PlayerDecision = (
                red_dog_round.Call(bet_id=bet.bet_id)
                if plan is False or plan == 0
                else red_dog_round.Raise(bet_id=bet.bet_id, amount=None if plan is True else int(plan))
            )
            step = red_dog_round.decide(step.round, step.shoe, paytable, decision, now=self.tick(), actor=self.operator)
            self._persist(step, [])
        if step.ended:
            return round_id
        if end == "dealer":
            step = red_dog_round.close_window(step.round, step.shoe, paytable, now=self.tick(), actor=self.operator)
        elif end == "void":
            step = red_dog_round.void_round(
                step.round, step.shoe, paytable, reason="dealer error", now=self.tick(), actor=self.operator
            )
        else:
            later = self.tick(self.settings.raise_window_seconds + 1)
            expired = red_dog_round.settle_if_expired(step.round, step.shoe, paytable, now=later)
            assert expired is not None
            step = expired
        self._persist(step, [])
        return round_id

    def _shoe_for(self, round_id: str, forced: tuple[str, ...]) -> tuple[Shoe, list[Event]]:
        events: list[Event] = []
        if self.settings.shoe_policy is ShoePolicy.CUT_CARD:
            current = self.table_shoe
            if not shoe_lifecycle.needs_new_shoe(current, forced):
                assert current is not None
                return current, events
            if current is not None:
                events.append(shoe_lifecycle.revealed(current))
        shoe = self._shuffle(forced)
        events.append(shoe_lifecycle.shuffled(shoe, round_id=round_id, forced=forced))
        return shoe, events

    def _persist(self, step: Step, opened: list[Event]) -> None:
        events = [*opened, *step.events]
        if step.ended:
            fate = shoe_lifecycle.at_round_end(step.shoe, round_id=step.round.round_id, table_closed=self.closed)
            events.extend(fate.revealed)
            if fate.table_holds_shoes:
                self.table_shoe = fate.table_shoe
        elif shoe_lifecycle.held_by_table(step.shoe):
            self.table_shoe = step.shoe
        self.append(events)

    def close(self) -> None:
        self.closed = True
        events: list[Event] = [TableClosed(closed_at=self.tick(), actor=self.operator)]
        if self.table_shoe is not None:
            events.append(shoe_lifecycle.revealed(self.table_shoe))
            self.table_shoe = None
        self.append(events)

    def lines(self) -> Iterator[Line]:
        """The table's export lines: its head, then every record."""
        yield TableHead(table_id=self.table_id, operator_id=self.operator, seq=len(self.links), hash=self.head.hex())
        for link, record in zip(self.links, self.records, strict=True):
            yield line_of(link, record)


def line_of(link: Link, record: Record[Event]) -> RecordLine:
    """A record as the export writes an audit_log row: the columns the service stores beside the body."""
    return record_line(
        table_id=record.table_id,
        seq=link.seq,
        prev_hash=link.prev_hash,
        hash=link.hash,
        recorded_at=record.recorded_at,
        kind=kind_of(record.event),
        round_id=round_id_of(record.event),
        bet_id=bet_id_of(record.event),
        test=record.test,
        body=link.body,
    )


def export(tables: list[TablePlay]) -> list[Line]:
    """A whole export file's lines, the tables in table_id order as the spec says."""
    lines: list[Line] = [ExportHeader(exported_at=START)]
    for table in sorted(tables, key=lambda t: t.table_id):
        lines.extend(table.lines())
    records = sum(len(t.links) for t in tables)
    lines.append(ExportEnd(tables=len(tables), records=records))
    return lines


def mixed_play(rng: random.Random, rounds: int, table: TablePlay) -> None:
    """Rounds of every kind of ending, 1-3 bets, random antes and decisions."""
    ends = ["player"] * 6 + ["dealer", "timeout", "void"]
    for _ in range(rounds):
        antes = [rng.randrange(1, 200) for _ in range(rng.choice((1, 1, 1, 2, 3)))]
        table.play(antes, end=rng.choice(ends))


def rechained(table: TablePlay, records: list[Record[Event]]) -> list[Line]:
    """The table's lines after an owner rewrote its records and chained them again: every hash consistent."""
    links = extend(GENESIS, records)
    head = TableHead(table_id=table.table_id, operator_id=table.operator, seq=len(links), hash=links[-1].hash.hex())
    return [head, *(line_of(link, record) for link, record in zip(links, records, strict=True))]
