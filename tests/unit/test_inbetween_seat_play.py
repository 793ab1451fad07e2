"""How the computer plays a friends' table's seats: three personalities sized from Kelly's share, the end-game tip,
the timer's default move, and the loop that plays the seats the table gives it.

With a fresh nepal/v1 pack and posts s ranks apart a chip bet gains (8s - 56) / 50 over a second moment of 68 / 50
(tests/unit/test_inbetween_bot.py says why), so Kelly's share of the chips is (8s - 56) / 68.
"""

from __future__ import annotations

import math
from fractions import Fraction

import msgspec
import pytest

from paytables.inbetween.inbetween_actions import CallAce, CallPair, PassTurn, PlaceBet
from paytables.inbetween.inbetween_events import AceCall, PairCall
from paytables.inbetween.inbetween_seat_play import (
    Computer,
    Personality,
    computer_move,
    default_move,
    leads_in_last_round,
    play_held_seats,
    share_bet,
)
from paytables.inbetween.inbetween_state import GameStatus
from tests.unit.inbetween_table import NOW, Table
from tests.unit.test_inbetween_bot import NEPAL, posts_table

CHIPS = [500, 990, 500]  # the pot then holds 1010: room for every bet below


@pytest.mark.parametrize(("personality", "share"), [("cautious", Fraction(1, 2)), ("steady", 1), ("bold", 2)])
@pytest.mark.parametrize("gap", [8, 9, 10])
def test_each_personality_bets_its_share_of_kellys_bet(personality: str, share: Fraction, gap: int) -> None:
    t = posts_table(2, gap + 3, chips=CHIPS)
    expected = math.floor(Fraction(share) * Fraction(8 * gap - 56, 68) * 990)
    move = computer_move(t.game, t.rules, Computer(personality=Personality(personality), endgame_tip=False))
    assert move == PlaceBet(player_id="p1", amount=expected)


@pytest.mark.parametrize("personality", list(Personality))
def test_every_personality_passes_where_a_chip_bet_gains_nothing(personality: Personality) -> None:
    t = posts_table(5, 12, chips=CHIPS)  # six ranks between: (48 - 56) / 50 per chip, a loss
    assert computer_move(t.game, t.rules, Computer(personality=personality)) == PassTurn(player_id="p1")


def test_share_bet_keeps_within_the_least_and_most_bet() -> None:
    assert share_bet(Fraction(2), Fraction(1, 2), 990, 1, 30) == 30
    assert share_bet(Fraction(1, 2), Fraction(1, 100), 100, 5, 30) == 5
    assert share_bet(Fraction(1), Fraction(1, 4), 100, 1, 30) == 25


def last_round(t: Table) -> Table:
    t.game = msgspec.structs.replace(t.game, round=t.game.rounds or 0)
    return t


def test_late_in_the_game_the_leader_passes_a_bet_it_wins_less_than_two_times_in_three() -> None:
    # Eight ranks between: 32 of the 50 unseen cards win (64%); nine between: 36 of 50 (72%).
    narrow, wide = last_round(posts_table(2, 11, chips=CHIPS)), last_round(posts_table(2, 12, chips=CHIPS))
    assert leads_in_last_round(narrow.game, 1)
    assert computer_move(narrow.game, narrow.rules, Computer()) == PassTurn(player_id="p1")
    assert isinstance(computer_move(wide.game, wide.rules, Computer()), PlaceBet)
    untipped = computer_move(narrow.game, narrow.rules, Computer(endgame_tip=False))
    assert untipped == PlaceBet(player_id="p1", amount=math.floor(Fraction(8, 68) * 990))


def test_the_tip_speaks_only_to_the_leader_and_only_in_the_last_round() -> None:
    early = posts_table(2, 11, chips=CHIPS)
    assert not leads_in_last_round(early.game, 1)  # round 1 of 5
    trailing = last_round(posts_table(2, 11, chips=[990, 500, 500]))
    assert not leads_in_last_round(trailing.game, 1)
    assert isinstance(computer_move(trailing.game, trailing.rules, Computer()), PlaceBet)
    level = last_round(posts_table(2, 11, chips=[990, 990, 10]))
    assert not leads_in_last_round(level.game, 1)  # a tie for the lead is no lead


def test_the_timer_calls_an_ace_high_a_pair_higher_or_lower_for_aces_and_otherwise_passes() -> None:
    ace = Table(NEPAL, "AS", "KH")
    assert ace.game.status is GameStatus.AWAITING_ACE_CALL
    assert default_move(ace.game, ace.rules) == CallAce(player_id="p1", call=AceCall.HIGH)
    fives = Table(NEPAL, "5S", "5H")
    assert default_move(fives.game, fives.rules) == CallPair(player_id="p1", call=PairCall.HIGHER)
    aces = Table(NEPAL, "AS", "AH")
    aces.call_ace(AceCall.HIGH)
    assert aces.game.status is GameStatus.AWAITING_PAIR_CALL
    assert default_move(aces.game, aces.rules) == CallPair(player_id="p1", call=PairCall.LOWER)
    bet = posts_table(2, 14)
    assert default_move(bet.game, bet.rules) == PassTurn(player_id="p1")


def test_the_loop_plays_only_the_seats_it_is_given_and_stops_at_the_first_other() -> None:
    t = Table(NEPAL, "2S", "KH", players=3)  # seat 1 to act first (the dealer's left)
    held = {1: Computer(), 2: Computer(personality=Personality.BOLD)}
    step = play_held_seats(t.game, t.shoe, ruleset=t.rules, held=held, source=t.rng, now=NOW)
    assert step.game.status is GameStatus.GAME_OVER or (step.game.turn is not None and step.game.turn.seat == 0)
    assert {e.seat for e in step.events if hasattr(e, "seat") and type(e).__name__ == "InBetweenBetPlaced"} <= {1, 2}
    none = play_held_seats(t.game, t.shoe, ruleset=t.rules, held={}, source=t.rng, now=NOW)
    assert none.events == ()


def test_where_passing_is_not_allowed_the_timer_bets_the_least_bet_instead_of_a_pass() -> None:
    # home/v2 plays the home page's "must bet at least a single chip": a missed turn bets that one chip.
    for seed in range(50):
        t = Table("inbetween/home/v2", seed=seed)
        if t.game.status is GameStatus.AWAITING_BET:
            break
    assert t.game.status is GameStatus.AWAITING_BET
    assert t.game.to_act is not None
    assert default_move(t.game, t.rules) == PlaceBet(player_id=t.game.to_act, amount=1)


@pytest.mark.parametrize("personality", list(Personality))
def test_where_passing_is_not_allowed_the_computer_bets_the_least_bet_on_posts_it_would_pass(
    personality: Personality,
) -> None:
    # Three ranks between 5 and 9: 12 of the 50 unseen cards win, so a chip bet loses on average and the computer
    # would pass; home/v2's players "have to usually bet a minimal of a single chip": it bets that chip (a pass there
    # was refused by the engine, and with it the person's move that the computer's turn followed).
    t = Table("inbetween/home/v2", "2C", "3C", "KC", "5S", "9H")  # the highest card deals: KC; then the posts
    assert t.game.status is GameStatus.AWAITING_BET
    assert t.game.to_act is not None
    move = computer_move(t.game, t.rules, Computer(personality=personality))
    assert move == PlaceBet(player_id=t.game.to_act, amount=1)
