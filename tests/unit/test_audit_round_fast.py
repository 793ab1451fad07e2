"""The replay's shortcut for the usual round (`audit/round_fast.py`) against the game core it stands in for.

The shortcut may say "exactly the game core's events" only where the game core's re-run of the same round, from the
same shoe, matches its records and ends at the same shoe position. Here both are run over every round of tables of
every paytable and shoe, as recorded and with each field of a record changed, and they must agree.
"""

from __future__ import annotations

import functools
import random
from typing import Any

import msgspec
import pytest

from audit import replay as audit_replay
from audit import round_fast
from audit.round_rerun import RecordedRound, rerun
from paytables.red_dog.events import Decided, DecidedBy, Event
from paytables.red_dog.paytable import Paytable
from shoe.shoe import Shoe, ShoePolicy
from tests.support.audit_play import TablePlay, export, mixed_play, settings
from tests.unit.test_audit_replay import replay

Call = tuple[RecordedRound, str, int, str, int, Paytable, int]


@functools.cache
def rounds_of_every_kind() -> list[Call]:
    """What the replay hands the shortcut, for every round of tables of every paytable, deck count and policy."""
    rng = random.Random(2929)
    tables = []
    for paytable, policy, decks in (
        ("standard/v1", ShoePolicy.PER_ROUND, 6),
        ("post-double/v1", ShoePolicy.PER_ROUND, 8),
        ("post-double/v1", ShoePolicy.CUT_CARD, 1),
        ("generous/v1", ShoePolicy.CUT_CARD, 2),
    ):
        table = TablePlay(settings(paytable, decks=decks, policy=policy, penetration=60), rng)
        mixed_play(rng, 150, table)
        table.close()
        tables.append(table)
    calls: list[Call] = []
    shortcut = round_fast.fast_rerun

    def spy(*args: Any) -> int | None:
        calls.append(args)
        return shortcut(*args)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(audit_replay, "fast_rerun", spy)
        assert replay(export(tables)).ok
    return calls


def core(call: Call) -> int | None:
    """The game core's answer for the same round: the shoe position after it when it matches, else None."""
    recorded, order, position, commitment, decks, paytable, window = call
    shoe = Shoe(decks=decks, order=order, salt="", commitment=commitment, position=position)
    step, problems = rerun(recorded, shoe, paytable, window)
    return None if problems or step is None else step.shoe.position


def with_events(recorded: RecordedRound, events: list[Event]) -> RecordedRound:
    """The round with other events; a decision changed to be the player's gets a time, as its record's would be."""
    changed = RecordedRound(recorded.round_id, recorded.table_id, recorded.test)
    players = sum(1 for e in events if type(e) is Decided and e.by is DecidedBy.PLAYER)
    assert recorded.opened is not None
    times = [*recorded.decided_at, *[recorded.opened.opened_at] * players][:players]
    changed.opened, changed.events, changed.decided_at = recorded.opened, events, times
    changed.ended, changed.rolled_back = recorded.ended, recorded.rolled_back
    return changed


def changes(event: Event) -> list[Event]:
    """The event with one field changed at a time: an int by one, a string, an enum to its other values."""
    found: list[Event] = []
    for name, value in msgspec.structs.asdict(event).items():
        if name in ("kind",):
            continue
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, int):
            found.extend(msgspec.structs.replace(event, **{name: v}) for v in (value + 1, value - 1))
        elif isinstance(value, str) and type(value) is not str:  # an enum
            found.extend(msgspec.structs.replace(event, **{name: v}) for v in type(value) if v != value)  # type: ignore[attr-defined]
        elif isinstance(value, str):
            found.append(msgspec.structs.replace(event, **{name: value + "x"}))
    return found


def test_the_shortcut_takes_nearly_every_usual_round_and_ends_where_the_game_core_does() -> None:
    taken = rounds_of_every_kind()
    assert len(taken) == 600
    answers = [(round_fast.fast_rerun(*call), core(call)) for call in taken]
    assert all(fast is None or fast == slow for fast, slow in answers)
    assert sum(fast is not None for fast, _ in answers) == len(taken)  # every round of these tables is usual


def test_a_round_with_any_field_of_any_record_changed_is_never_taken_where_the_game_core_refuses_it() -> None:
    tried = refused = 0
    for call in rounds_of_every_kind()[::3]:
        recorded = call[0]
        for index, event in enumerate(recorded.events):
            for changed in changes(event):
                events = [*recorded.events[:index], changed, *recorded.events[index + 1 :]]
                altered: Call = (with_events(recorded, events), *call[1:])
                fast, slow = round_fast.fast_rerun(*altered), core(altered)
                tried += 1
                refused += slow is None
                assert fast is None or fast == slow, (changed, fast, slow)
    assert tried > 3000
    assert refused > tried * 0.9  # nearly every change is one the game core catches
