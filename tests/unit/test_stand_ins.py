"""At a friends' table the computer and the timer make moves for seats, and the chain says so (`ib_stood_in`): an
auditor tells them from a person's own, and replay derives each one again from the strategy it names, so a record of
a stand-in's move that the strategy would not make is named."""

from __future__ import annotations

import itertools
import math
import random
from datetime import UTC, datetime
from fractions import Fraction

import msgspec
import pytest

from audit.chain import Record
from paytables.inbetween import inbetween_rules
from paytables.inbetween.inbetween_actions import BuyChips, InBetweenError
from paytables.inbetween.inbetween_bot import one_chip_player
from paytables.inbetween.inbetween_events import (
    CalledBy,
    InBetweenAceCalled,
    InBetweenAwaiting,
    InBetweenBetPlaced,
    InBetweenCardsShown,
    InBetweenEvent,
    InBetweenGameStarted,
    InBetweenPairCalled,
    InBetweenPassed,
    InBetweenStoodIn,
    InBetweenStopAgreed,
    SeatSpec,
    StandInBy,
)
from paytables.inbetween.inbetween_game import act, start_game
from paytables.inbetween.inbetween_posts import PostsKind
from paytables.inbetween.inbetween_seat_play import TIMER, Computer, Personality, default_move, play_held_seats
from paytables.inbetween.inbetween_state import Game, GameStatus, apply, begin
from shoe.shoe import new_shoe
from tests.unit.test_game_replay import GAME, replayed

START = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
MOVES = (InBetweenPairCalled, InBetweenBetPlaced, InBetweenPassed, InBetweenCardsShown, InBetweenStopAgreed)
# seat 0 a person who plays for themself; 1 and 2 people the computer holds; 3 a computer seat (friends' tables name
# every seat a person's or the computer's; the computer plays a person's seat while its player is away)
HELD = {
    1: Computer(personality=Personality.BOLD, endgame_tip=True),
    2: Computer(personality=Personality.CAUTIOUS, endgame_tip=False),
    3: Computer(personality=Personality.STEADY),
}


def friends_game(ruleset_id: str, seed: int, *, timer_every: int = 0) -> list[Record[InBetweenEvent]]:
    """A whole game with seat 0 played by its person (the least bet, or its turn left to the timer every
    `timer_every`-th decision) and the other seats by the computer, as a friends' table plays them."""
    rules = inbetween_rules.get(ruleset_id)
    rng = random.Random(seed)
    seats = [SeatSpec(player_id=f"seat-{n}", computer=n == 3) for n in range(4)]
    step = start_game(
        game_id=GAME, ruleset=rules, ante=rules.terms.antes[0], rounds=rules.default_rounds, seats=seats,
        shoe=new_shoe(1, rng), source=rng, now=START,
    )  # fmt: skip
    events, decisions = list(step.events), 0
    while True:
        step = play_held_seats(step.game, step.shoe, ruleset=rules, held=HELD, source=rng, now=START)
        events.extend(step.events)
        if step.game.status is GameStatus.GAME_OVER:
            break
        decisions += 1
        timed_out = timer_every and decisions % timer_every == 0
        move = default_move(step.game, rules) if timed_out else one_chip_player(step.game, rules)
        stand_in = TIMER if timed_out else None
        step = act(step.game, step.shoe, move, ruleset=rules, source=rng, now=START, stand_in=stand_in)
        events.extend(step.events)
    return renumbered(events)


def renumbered(events: list[InBetweenEvent]) -> list[Record[InBetweenEvent]]:
    """The events as the records of one chain, seq 1 onwards (one timestamp: moves do not depend on it)."""
    return [Record(table_id=GAME, seq=n, recorded_at=START, test=False, event=e) for n, e in enumerate(events, 1)]


def is_move(event: InBetweenEvent) -> bool:
    """A record that is a decision's own (an ace called by the rule follows shown posts: not a decision)."""
    return isinstance(event, MOVES) or (isinstance(event, InBetweenAceCalled) and event.by is CalledBy.PLAYER)


@pytest.mark.parametrize("ruleset_id", sorted(inbetween_rules.released()))
def test_every_move_the_computer_makes_for_a_seat_follows_a_record_naming_it_and_a_persons_none(
    ruleset_id: str,
) -> None:
    for seed in range(2):
        events = [r.event for r in friends_game(ruleset_id, seed)]
        for before, event in itertools.pairwise(events):
            if not is_move(event):
                continue
            seat = getattr(event, "seat")  # noqa: B009  # every move record names its seat
            if seat == 0:
                assert not isinstance(before, InBetweenStoodIn), (before, event)
            else:
                computer = HELD[seat]
                assert before == InBetweenStoodIn(
                    seat=seat, by=StandInBy.COMPUTER, personality=computer.personality.value,
                    endgame_tip=computer.endgame_tip,
                )  # fmt: skip
        stood = [e for e in events if isinstance(e, InBetweenStoodIn)]
        assert stood
        assert all(e.seat in HELD for e in stood)
        assert replayed(friends_game(ruleset_id, seed)) == (1, 1, [])


def test_a_move_the_timer_made_is_recorded_as_the_timers_and_replays() -> None:
    records = friends_game("inbetween/nepal/v2", 0, timer_every=2)
    events = [r.event for r in records]
    timed = [i for i, e in enumerate(events) if isinstance(e, InBetweenStoodIn) and e.by is StandInBy.TIMER]
    assert timed
    for i in timed:
        assert events[i] == InBetweenStoodIn(seat=0, by=StandInBy.TIMER, personality=None, endgame_tip=None)
        move = events[i + 1]
        if isinstance(move, InBetweenAceCalled):  # "an ace called high"
            assert move.call == "high"
        assert not isinstance(move, InBetweenBetPlaced)  # nepal lets a player pass: the timer never bets there
    assert replayed(records) == (1, 1, [])


def bet_by_the_bold_seat(records: list[Record[InBetweenEvent]]) -> int:
    """The index of a marker before a bet of the bold seat strictly between its least and its most bet."""
    events = [r.event for r in records]
    for i, event in enumerate(events[:-1]):
        bet = events[i + 1]
        if isinstance(event, InBetweenStoodIn) and event.seat == 1 and isinstance(bet, InBetweenBetPlaced):
            awaiting = next(e for e in reversed(events[:i]) if isinstance(e, InBetweenAwaiting))
            assert awaiting.min_bet is not None
            assert awaiting.max_bet is not None
            if awaiting.min_bet < bet.amount < awaiting.max_bet:
                return i
    raise AssertionError("no bet of the bold seat between its limits")


def test_a_stand_in_record_naming_another_strategy_than_the_move_made_is_a_mismatch() -> None:
    records = friends_game("inbetween/nepal/v2", 4)
    at = bet_by_the_bold_seat(records)
    bet = records[at + 1].event
    assert isinstance(bet, InBetweenBetPlaced)
    stood = records[at].event
    assert isinstance(stood, InBetweenStoodIn)
    # Bold stakes twice Kelly's share; cautious half of it: an amount bold chose inside the limits (so not rounded
    # up to the least or down to the most) is more than cautious would stake, or cautious passes.
    for changed in (
        msgspec.structs.replace(stood, personality="cautious"),
        msgspec.structs.replace(stood, by=StandInBy.TIMER, personality=None, endgame_tip=None),  # the timer bets least
    ):
        edited = [*records[:at], msgspec.structs.replace(records[at], event=changed), *records[at + 1 :]]
        games, matched, problems = replayed(edited)
        assert (games, matched) == (1, 0)
        assert problems[0].startswith(f'seq {at + 2}: recorded {{"kind":"ib_bet_placed"'), problems


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"personality": "reckless"}, "no personality the engine has"),
        ({"endgame_tip": None}, "no end-game tip"),
        ({"by": StandInBy.TIMER}, "the timer's move names a computer's personality"),
        ({"seat": 0}, "a move made for seat 0 where the game awaits no move of that seat"),
    ],
)
def test_a_stand_in_record_that_cannot_be_a_strategys_is_named(change: dict[str, object], named: str) -> None:
    records = friends_game("inbetween/nepal/v2", 4)
    at = bet_by_the_bold_seat(records)
    changed = msgspec.structs.replace(records[at].event, **change)
    edited = [*records[:at], msgspec.structs.replace(records[at], event=changed), *records[at + 1 :]]
    games, matched, problems = replayed(edited)
    assert (games, matched) == (1, 0)
    assert named in problems[0], problems


def test_records_written_before_stand_ins_were_recorded_replay_with_their_moves_as_recorded() -> None:
    # what a friends' game wrote before ib_stood_in: the same moves, no record of who made them
    events = [r.event for r in friends_game("inbetween/nepal/v2", 0, timer_every=3)]
    assert replayed(renumbered([e for e in events if not isinstance(e, InBetweenStoodIn)])) == (1, 1, [])


def test_no_computer_or_timer_buys_chips() -> None:
    rules = inbetween_rules.get("inbetween/nepal/v2")
    rng = random.Random(0)
    seats = [SeatSpec(player_id="seat-0"), SeatSpec(player_id="seat-1")]
    step = start_game(
        game_id=GAME, ruleset=rules, ante=rules.terms.antes[0], rounds=rules.default_rounds, seats=seats,
        shoe=new_shoe(1, rng), source=rng, now=START,
    )  # fmt: skip
    with pytest.raises(InBetweenError, match="does not buy chips"):
        act(step.game, step.shoe, BuyChips(player_id="seat-0", amount=10), ruleset=rules, source=rng, now=START,
            stand_in=TIMER)  # fmt: skip


@pytest.mark.parametrize("ruleset_id", ["inbetween/home/v2", "inbetween/home-three/v1"])
def test_the_computer_bets_the_least_where_the_rule_set_allows_no_pass(ruleset_id: str) -> None:
    # "passing is not allowed": a computer whose odds say pass once asked for one, and the engine refused it, so
    # the person whose move came before was refused too
    assert inbetween_rules.get(ruleset_id).terms.passing.value == "never"
    for seed in range(4):
        events = [r.event for r in friends_game(ruleset_id, seed)]
        assert not any(isinstance(e, InBetweenPassed) for e in events)
        assert replayed(renumbered(events)) == (1, 1, [])


SHARE = {"cautious": Fraction(1, 2), "steady": Fraction(1), "bold": Fraction(2)}


def bet_by_the_page(game: Game, ruleset_id: str, stood: InBetweenStoodIn) -> int | None:
    """The computer's bet on spread posts without an ace, by docs/audit.md's six steps (None: a pass)."""
    rules, turn = inbetween_rules.get(ruleset_id), game.turn
    assert turn is not None
    assert turn.posts is not None
    assert turn.min_bet is not None
    assert turn.max_bet is not None
    low, high = turn.posts.low, turn.posts.high
    unseen = game.unseen()
    w = sum(unseen[r] for r in range(low + 1, high))
    p = unseen[low] + unseen[high]
    n = sum(unseen.values())
    lose = n - w - p
    m, c, least, most = rules.terms.post.multiple, game.seats[turn.seat].chips, turn.min_bet, turn.max_bet
    no_pass = rules.terms.passing.value == "never"
    leads = game.rounds is not None and game.round >= game.rounds
    leads = leads and all(c > s.chips for i, s in enumerate(game.seats) if i != turn.seat)
    if most < 1 or Fraction(w - lose - m * p, n) <= 0:
        return least if no_pass else None
    if stood.endgame_tip and leads and Fraction(w, n) < Fraction(2, 3):
        return least if no_pass else None
    k = Fraction(w - lose - m * p, w + lose + m * m * p)
    a = max(least, min(most, math.floor(SHARE[str(stood.personality)] * k * c)))
    if Fraction(w * a - lose * a - p * min(m * a, c), n) <= 0:
        return least if no_pass else None
    return a


@pytest.mark.parametrize("ruleset_id", ["inbetween/nepal/v2", "inbetween/pagat-ante/v2", "inbetween/home/v2"])
def test_every_bet_the_computer_makes_is_the_one_the_audit_page_spells_out(ruleset_id: str) -> None:
    checked = 0
    for seed in range(6):
        events = [r.event for r in friends_game(ruleset_id, seed)]
        first = events[0]
        assert isinstance(first, InBetweenGameStarted)
        game = begin(first)
        for at, event in enumerate(events[1:], start=1):
            posts = game.turn.posts if game.turn is not None else None
            spread = posts is not None and posts.kind is PostsKind.SPREAD and posts.low > 1 and posts.high < 14
            if isinstance(event, InBetweenStoodIn) and game.status is GameStatus.AWAITING_BET and spread:
                move = events[at + 1]
                made = move.amount if isinstance(move, InBetweenBetPlaced) else None
                assert isinstance(move, InBetweenBetPlaced | InBetweenPassed)
                assert made == bet_by_the_page(game, ruleset_id, event), (seed, at)
                checked += 1
            game = apply(game, event)
    assert checked >= 20  # the games hold that many of the computer's bets on such posts at least
