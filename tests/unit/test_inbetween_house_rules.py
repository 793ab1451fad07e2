"""Every house rule of every released rule set, played with forced cards; the chip counts are worked out by hand.

Three players p0..p2, ante 10, p0 deals. Everyone-antes sets: 990 each and a pot of 30 after the antes, p1 first.
pagat-banker/v1: p0 stakes ten antes (100) as the pot and holds 900; p1 and p2 play against it twice round.
"""

from __future__ import annotations

import pytest

from paytables.inbetween import inbetween_rules
from paytables.inbetween.inbetween_actions import BetBelowMinimum, InvalidGame
from paytables.inbetween.inbetween_events import (
    AceCall,
    CalledBy,
    ChipReason,
    EndReason,
    InBetweenAceCalled,
    InBetweenChipsMoved,
    PairCall,
    TurnOutcome,
)
from paytables.inbetween.inbetween_state import GameStatus
from tests.unit.inbetween_oracle import FIRST_RELEASES as RULESET_IDS
from tests.unit.inbetween_oracle import HOUSE_RULES
from tests.unit.inbetween_table import Table

ANTES = [r for r in RULESET_IDS if not HOUSE_RULES[r].banker]
ACE_CHOICE = [r for r in RULESET_IDS if HOUSE_RULES[r].ace_choice]
PAIR_CALLED = [r for r in RULESET_IDS if HOUSE_RULES[r].pair == "call"]
ADJACENT_PASSES = [r for r in RULESET_IDS if HOUSE_RULES[r].adjacent_loses == 0]
MIN_ONE = [r for r in RULESET_IDS if not HOUSE_RULES[r].min_bet_is_ante]
COUNTED = [r for r in RULESET_IDS if r != "inbetween/sheets/v1"]
BANKER = "inbetween/pagat-banker/v1"


def start(ruleset_id: str) -> tuple[list[int], int]:
    """The chips and pot once the first round has begun, by hand."""
    return ([900, 1000, 1000], 100) if ruleset_id == BANKER else ([990, 990, 990], 30)


@pytest.mark.parametrize("ruleset_id", ANTES)
def test_everyone_with_chips_antes_and_the_dealer_plays_last(ruleset_id: str) -> None:
    t = Table(ruleset_id, "4S", "JH")
    assert (t.chips, t.pot, t.game.order) == ([990, 990, 990], 30, (1, 2, 0))


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
@pytest.mark.parametrize(("third", "delta"), [("7D", 10), ("KC", -10), ("2C", -10)])
def test_a_bet_wins_between_the_posts_and_loses_outside_them(ruleset_id: str, third: str, delta: int) -> None:
    t = Table(ruleset_id, "4S", "JH", third)
    chips, pot = start(ruleset_id)
    t.bet(10)
    assert (t.chips[1], t.pot) == (chips[1] + delta, pot - delta)


@pytest.mark.parametrize(
    ("ruleset_id", "cost"),
    [
        ("inbetween/nepal/v1", 20),  # double
        ("inbetween/pay-the-bet/v1", 10),  # the bet
        ("inbetween/pagat-banker/v1", 20),  # double
        ("inbetween/home/v1", 10),  # the bet
        ("inbetween/sheets/v1", 30),  # triple
    ],
)
def test_hitting_a_post_costs_the_rule_sets_multiple_of_the_bet(ruleset_id: str, cost: int) -> None:
    t = Table(ruleset_id, "4S", "JH", "4D")
    chips, pot = start(ruleset_id)
    t.bet(10)
    assert (t.chips[1], t.pot) == (chips[1] - cost, pot + cost)
    assert t.game.turn is not None
    assert t.game.turn.outcome is TurnOutcome.POST


@pytest.mark.parametrize("ruleset_id", ACE_CHOICE)
@pytest.mark.parametrize(("call", "delta"), [(AceCall.LOW, 10), (AceCall.HIGH, -10)])
def test_a_first_ace_is_called_high_or_low_by_the_player(ruleset_id: str, call: AceCall, delta: int) -> None:
    t = Table(ruleset_id, "AS", "9H", "5C")
    chips, _ = start(ruleset_id)
    assert t.status is GameStatus.AWAITING_ACE_CALL
    t.call_ace(call)
    t.bet(10)
    assert t.chips[1] == chips[1] + delta


def test_under_home_rules_a_first_ace_is_always_high_and_nobody_is_asked() -> None:
    t = Table("inbetween/home/v1", "AS", "9H", "5C")
    assert t.status is GameStatus.AWAITING_BET
    called = [(e.call, e.by) for e in t.events if isinstance(e, InBetweenAceCalled)]
    assert called == [(AceCall.HIGH, CalledBy.RULE)]
    t.bet(10)  # 9..A: the five is outside
    assert t.chips[1] == 980


@pytest.mark.parametrize("ruleset_id", PAIR_CALLED)
@pytest.mark.parametrize(("call", "third", "delta"), [(PairCall.HIGHER, "QC", 10), (PairCall.LOWER, "QC", -10)])
def test_a_pair_is_called_higher_or_lower(ruleset_id: str, call: PairCall, third: str, delta: int) -> None:
    t = Table(ruleset_id, "8S", "8H", third)
    chips, _ = start(ruleset_id)
    t.call_pair(call)
    t.bet(10)
    assert t.chips[1] == chips[1] + delta


def test_under_home_rules_a_pair_wins_two_chips_from_the_pot_with_no_third_card() -> None:
    t = Table("inbetween/home/v1", "8S", "8H", "4C", "JC")
    assert (t.chips, t.pot) == ([990, 992, 990], 28)
    assert t.game.turn is not None
    assert (t.game.turn.outcome, t.game.turn.third_card) == (TurnOutcome.PAIR_PAID, None)
    t.advance()
    assert t.game.turn is not None
    assert t.game.turn.first_post == "4C"  # the next card went to the next turn


def test_under_home_rules_a_pair_takes_no_more_than_the_pot() -> None:
    t = Table("inbetween/home/v1", "2S", "KH", "7D", "8S", "8H", players=2, ante=5)  # pot 10
    t.bet(9)  # p1 wins 9: the pot holds 1
    t.advance()  # p0 deals and plays last: a pair of eights takes the 1 left
    assert (t.chips, t.pot, t.status) == ([996, 1004], 0, GameStatus.ROUND_OVER)


def test_under_sheets_rules_a_pair_pushes_and_the_turn_passes() -> None:
    t = Table("inbetween/sheets/v1", "8S", "8H")
    assert (t.status, t.chips, t.pot) == (GameStatus.TURN_OVER, [990, 990, 990], 30)
    assert t.game.turn is not None
    assert t.game.turn.outcome is TurnOutcome.PAIR_PUSHED


@pytest.mark.parametrize("ruleset_id", ADJACENT_PASSES)
def test_posts_side_by_side_pass_the_turn(ruleset_id: str) -> None:
    t = Table(ruleset_id, "7S", "8H")
    chips, pot = start(ruleset_id)
    assert (t.status, t.chips, t.pot) == (GameStatus.TURN_OVER, chips, pot)


@pytest.mark.parametrize("cards", [("7S", "8H"), ("KS", "AH"), ("AS", "KH")])
def test_under_home_rules_posts_side_by_side_lose_a_chip(cards: tuple[str, str]) -> None:
    t = Table("inbetween/home/v1", *cards)  # aces are always high, so K-A and A-K are side by side
    assert (t.status, t.chips, t.pot) == (GameStatus.TURN_OVER, [990, 989, 990], 31)
    assert t.game.turn is not None
    assert t.game.turn.outcome is TurnOutcome.ADJACENT_LOST


@pytest.mark.parametrize("ruleset_id", MIN_ONE)
def test_the_least_bet_is_one_chip(ruleset_id: str) -> None:
    t = Table(ruleset_id, "4S", "JH", "7D")
    chips, _ = start(ruleset_id)
    assert t.game.turn is not None
    assert t.game.turn.min_bet == 1
    t.bet(1)
    assert t.chips[1] == chips[1] + 1


def test_under_sheets_rules_the_least_bet_is_the_ante() -> None:
    t = Table("inbetween/sheets/v1", "4S", "JH", "7D")
    with pytest.raises(BetBelowMinimum):
        t.bet(9)
    t.bet(10)
    assert t.chips[1] == 1000


def test_under_sheets_rules_the_least_bet_is_what_the_pot_and_the_chips_allow() -> None:
    t = Table("inbetween/sheets/v1", "4S", "JH", "7D")
    t.rebalance([990, 4, 990])  # pot 1016, but p1 holds only 4
    t.bet(4)
    assert t.chips[1] == 8


def test_under_sheets_rules_the_game_ends_when_a_bet_takes_the_whole_pot() -> None:
    t = Table("inbetween/sheets/v1", "2S", "KH", "7D")
    t.bet(30)
    assert (t.status, t.chips, t.pot) == (GameStatus.GAME_OVER, [990, 1020, 990], 0)
    assert t.game.ended_reason is EndReason.POT_EMPTIED
    assert not any(isinstance(e, InBetweenChipsMoved) and e.reason == ChipReason.REANTE for e in t.events)


def test_under_sheets_rules_rounds_go_on_with_fresh_antes_until_the_pot_is_taken() -> None:
    t = Table("inbetween/sheets/v1", "7S", "8S", "7H", "8H", "7D", "8D")
    t.advance()
    t.advance()
    assert t.status is GameStatus.ROUND_OVER
    t.advance()
    assert (t.game.round, t.chips, t.pot) == (2, [980, 980, 980], 60)


@pytest.mark.parametrize("ruleset_id", COUNTED)
@pytest.mark.parametrize("rounds", [5, 10, 15])
def test_a_game_of_counted_rounds_ends_after_its_last_round(ruleset_id: str, rounds: int) -> None:
    t = Table(ruleset_id, players=2, rounds=rounds, seed=rounds)
    while t.status is not GameStatus.GAME_OVER:
        if t.status is GameStatus.AWAITING_ACE_CALL:
            t.call_ace(AceCall.HIGH)
        elif t.status in (GameStatus.AWAITING_BET, GameStatus.AWAITING_PAIR_CALL):
            t.pass_turn()
        else:
            t.advance()
    assert (t.game.round, t.game.ended_reason) == (rounds, EndReason.ROUNDS_PLAYED)
    assert sum(t.chips) == 2000


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
@pytest.mark.parametrize("ante", [5, 10, 20])
def test_each_offered_ante_is_what_everyone_puts_in_or_a_tenth_of_the_bank(ruleset_id: str, ante: int) -> None:
    t = Table(ruleset_id, "4S", "JH", ante=ante)
    expected = 10 * ante if ruleset_id == BANKER else 3 * ante
    assert t.pot == expected
    assert sum(t.chips) + t.pot == 3000  # everyone started with 1,000


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
@pytest.mark.parametrize("players", [1, 2, 8, 9])
def test_a_game_seats_two_to_eight_players(ruleset_id: str, players: int) -> None:
    if 2 <= players <= 8:
        assert len(Table(ruleset_id, players=players).game.seats) == players
    else:
        with pytest.raises(InvalidGame):
            Table(ruleset_id, players=players)


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_a_rule_set_refuses_rounds_it_does_not_offer(ruleset_id: str) -> None:
    offered = inbetween_rules.get(ruleset_id).terms.rounds
    for rounds in (4, 20, "until_empty"):
        if rounds not in offered:
            with pytest.raises(InvalidGame):
                Table(ruleset_id, rounds=rounds)
