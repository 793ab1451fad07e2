"""`reddog audit replay` re-plays In Between games: whole computer games under every released rule set re-play to
exactly their records, and a changed chip movement, card or move is named."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import msgspec
import pytest

from audit.chain import Record
from audit.game_replay import GameReplayer
from paytables.inbetween import inbetween_rules
from paytables.inbetween.inbetween_actions import InBetweenError
from paytables.inbetween.inbetween_bot import play_computers
from paytables.inbetween.inbetween_events import (
    ChipReason,
    InBetweenBetPlaced,
    InBetweenChipsMoved,
    InBetweenEvent,
    InBetweenGameStarted,
    InBetweenShoeRevealed,
    InBetweenShoeShuffled,
    SeatSpec,
)
from paytables.inbetween.inbetween_game import start_game
from paytables.inbetween.inbetween_state import GameStatus
from shoe.shoe import new_shoe

START = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
GAME = "00000000-0000-4000-8000-00000000ab01"


def computer_game(ruleset_id: str, seed: int, players: int = 3) -> list[Record[InBetweenEvent]]:
    """A whole game of computers, its events as the records a chain would hold (one second per step)."""
    rules = inbetween_rules.get(ruleset_id)
    rng = random.Random(seed)
    seats = [SeatSpec(player_id=f"c{n}", computer=True) for n in range(players)]
    rounds = rules.default_rounds
    step = start_game(
        game_id=GAME, ruleset=rules, ante=rules.terms.antes[0], rounds=rounds, seats=seats,
        shoe=new_shoe(1, rng), source=rng, now=START,
    )  # fmt: skip
    events = list(step.events)
    step = play_computers(step.game, step.shoe, ruleset=rules, source=rng, now=START)
    events.extend(step.events)
    assert step.game.status is GameStatus.GAME_OVER
    return [
        Record(table_id=GAME, seq=n, recorded_at=START, test=False, event=event)
        for n, event in enumerate(events, start=1)
    ]


def replayed(records: list[Record[InBetweenEvent]]) -> tuple[int, int, list[str]]:
    replayer = GameReplayer()
    for record in records:
        replayer.record(GAME, record)
    report = replayer.report()
    return report.games, report.matched, [m.detail for m in report.mismatches]


@pytest.mark.parametrize("ruleset_id", sorted(inbetween_rules.released()))
def test_a_whole_game_under_every_released_rule_set_replays_to_its_records(ruleset_id: str) -> None:
    for seed in range(3):
        assert replayed(computer_game(ruleset_id, seed)) == (1, 1, [])


@pytest.mark.parametrize(("ruleset_id", "seed"), [("inbetween/nepal/v2", 0), ("inbetween/pagat-twice/v1", 2)])
def test_a_game_that_reshuffles_a_spent_pack_replays_from_the_revealed_packs(ruleset_id: str, seed: int) -> None:
    records = computer_game(ruleset_id, seed)
    assert sum(type(r.event) is InBetweenShoeShuffled for r in records) == 2
    assert replayed(records) == (1, 1, [])


def test_a_revealed_pack_that_does_not_hold_the_cards_off_the_table_is_named() -> None:
    records = computer_game("inbetween/nepal/v2", 0)
    at = [i for i, r in enumerate(records) if type(r.event) is InBetweenShoeRevealed][-1]
    event = records[at].event
    assert isinstance(event, InBetweenShoeRevealed)
    assert event.shoe_number == 2
    order = event.order[2:] + event.order[:2]  # another order: it no longer hashes to the commitment
    records[at] = msgspec.structs.replace(records[at], event=msgspec.structs.replace(event, order=order))
    assert replayed(records)[2] == ["pack 2's salt and order do not hash to its commitment"]


def test_a_chip_movement_written_differently_is_named_with_its_seq() -> None:
    records = computer_game("inbetween/nepal/v1", 1)
    antes = [i for i, r in enumerate(records) if type(r.event) is InBetweenChipsMoved]
    at = next(i for i in antes if records[i].event.reason is ChipReason.ANTE)  # type: ignore[union-attr]
    event = records[at].event
    assert isinstance(event, InBetweenChipsMoved)
    forged = msgspec.structs.replace(event, delta=event.delta - 1, chips=event.chips - 1, pot=event.pot + 1)
    records[at] = msgspec.structs.replace(records[at], event=forged)
    games, matched, problems = replayed(records)
    assert (games, matched) == (1, 0)
    assert problems[0].startswith(f"seq {at + 1}: recorded ")


def test_a_bet_the_rules_refuse_is_named() -> None:
    records = computer_game("inbetween/nepal/v2", 0)
    at = next(i for i, r in enumerate(records) if type(r.event) is InBetweenBetPlaced)
    bet = records[at].event
    assert isinstance(bet, InBetweenBetPlaced)
    records[at] = msgspec.structs.replace(records[at], event=InBetweenBetPlaced(seat=bet.seat, amount=10**6))
    assert replayed(records)[2][0].startswith("the engine refuses it:")


def test_a_game_without_its_end_is_counted_open_and_not_replayed() -> None:
    records = computer_game("inbetween/nepal/v1", 3)[:-2]
    replayer = GameReplayer()
    for record in records:
        replayer.record(GAME, record)
    assert (replayer.report().games, replayer.report().open_games) == (0, 1)


def test_a_game_begun_before_the_export_and_ended_in_it_is_counted_open_and_not_replayed() -> None:
    """A `--since` export holds a game's last records only: its start is not there to re-play it from."""
    records = computer_game("inbetween/nepal/v1", 3)[5:]
    replayer = GameReplayer()
    for record in records:
        replayer.record(GAME, record)
    report = replayer.report()
    assert (report.games, report.open_games, report.records) == (0, 1, len(records))


def test_timestamps_do_not_matter_to_moves_but_the_end_time_is_compared() -> None:
    records = computer_game("inbetween/nepal/v1", 4)
    later = [msgspec.structs.replace(r, recorded_at=START + timedelta(seconds=r.seq)) for r in records]
    problems = replayed(later)[2]
    assert len(problems) == 1
    assert "ib_game_ended" in problems[0]


FORCED = ("AS", "KH", "2D")


def forced_game(test: bool, recorded: int) -> list[Record[InBetweenEvent]]:
    """A whole computer game on a pack made with FORCED in front, its first shuffle record saying `recorded` were
    forced, its records saying `test`."""
    rules = inbetween_rules.get("inbetween/nepal/v1")
    rng = random.Random(7)
    seats = [SeatSpec(player_id=f"c{n}", computer=True) for n in range(3)]
    step = start_game(
        game_id=GAME, ruleset=rules, ante=rules.terms.antes[0], rounds=rules.default_rounds, seats=seats,
        shoe=new_shoe(1, rng, forced=FORCED), source=rng, now=START, test=True, forced=len(FORCED),
    )  # fmt: skip
    events = list(step.events)
    events.extend(play_computers(step.game, step.shoe, ruleset=rules, source=rng, now=START).events)
    events = [
        msgspec.structs.replace(e, forced=recorded) if type(e) is InBetweenShoeShuffled and e.shoe_number == 1 else e
        for e in events
    ]
    events = [msgspec.structs.replace(e, test=test) if type(e) is InBetweenGameStarted else e for e in events]
    return [Record(table_id=GAME, seq=n, recorded_at=START, test=test, event=e) for n, e in enumerate(events, 1)]


def test_a_test_games_record_says_how_many_cards_it_forced_and_they_are_its_revealed_packs_first() -> None:
    records = forced_game(True, len(FORCED))
    (shuffled,) = [r.event for r in records if type(r.event) is InBetweenShoeShuffled and r.event.shoe_number == 1]
    (revealed,) = [r.event for r in records if type(r.event) is InBetweenShoeRevealed and r.event.shoe_number == 1]
    assert isinstance(shuffled, InBetweenShoeShuffled)
    assert isinstance(revealed, InBetweenShoeRevealed)
    assert shuffled.forced == 3  # the count, never the cards: the reveal at the end shows which
    assert revealed.order.startswith("".join(FORCED))
    assert replayed(records) == (1, 1, [])
    # A live game whose record says cards were forced is one the engine refuses
    games, matched, problems = replayed(forced_game(False, len(FORCED)))
    assert (games, matched) == (1, 0)
    assert problems == ["the engine refuses it: forced cards are for test games only, and no more than the pack holds"]


def test_the_engine_refuses_forced_cards_in_a_live_game_or_more_than_the_pack_holds() -> None:
    rules = inbetween_rules.get("inbetween/nepal/v1")
    rng = random.Random(8)
    seats = [SeatSpec(player_id=f"p{n}") for n in range(2)]
    shoe = new_shoe(1, rng, forced=FORCED)
    for test, forced in ((False, 3), (True, 53), (True, -1)):
        with pytest.raises(InBetweenError, match="forced cards are for test games only"):
            start_game(
                game_id=GAME, ruleset=rules, ante=10, rounds=5, seats=seats, shoe=shoe, source=rng, now=START,
                test=test, forced=forced,
            )  # fmt: skip
