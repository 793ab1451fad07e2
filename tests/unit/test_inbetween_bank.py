"""pagat-banker/v1: the dealer stakes ten antes as the pot and plays every other player twice round, chips by hand.

Three players p0..p2, ante 10, p0 deals first: p0 stakes 100 and holds 900; the order is p1, p2, p1, p2.
"""

from __future__ import annotations

from paytables.inbetween.inbetween_events import ChipReason, EndReason, InBetweenChipsMoved
from paytables.inbetween.inbetween_state import GameStatus
from tests.unit.inbetween_table import Table

BANKER = "inbetween/pagat-banker/v1"


def moves(t: Table, reason: ChipReason) -> list[tuple[int, int]]:
    return [(e.seat, e.delta) for e in t.events if isinstance(e, InBetweenChipsMoved) and e.reason == reason]


def test_the_dealer_stakes_ten_antes_as_the_pot_and_nobody_else_antes() -> None:
    t = Table(BANKER, "4S", "JH")
    assert (t.chips, t.pot) == ([900, 1000, 1000], 100)
    assert moves(t, ChipReason.STAKE) == [(0, -100)]
    assert moves(t, ChipReason.ANTE) == []


def test_the_bank_plays_every_other_player_twice_round_and_never_its_dealer() -> None:
    t = Table(BANKER, "4S", "JH")
    assert t.game.order == (1, 2, 1, 2)
    assert t.player == "p1"


def test_after_its_orbits_the_dealer_takes_back_what_is_left_and_the_bank_moves_on() -> None:
    t = Table(BANKER, "4S", "JH", "KC", "7S", "8S", "7H", "8H", "2S", "KS", "7D")
    t.bet(10)  # p1 loses 10: pot 110
    t.advance()  # p2: 7-8 passes
    t.advance()  # p1: 7-8 passes
    t.advance()
    t.bet(20)  # p2 wins 20: pot 90
    assert t.status is GameStatus.ROUND_OVER
    assert moves(t, ChipReason.BANK_RETURNED) == [(0, 90)]
    assert (t.chips, t.pot) == ([990, 990, 1020], 0)
    t.advance()
    assert (t.game.round, t.game.dealer, t.game.order) == (2, 1, (2, 0, 2, 0))
    assert (t.chips, t.pot) == ([990, 890, 1020], 100)


def test_a_bet_that_empties_the_bank_ends_the_round_at_once_with_no_ante() -> None:
    t = Table(BANKER, "2S", "KH", "7D")
    t.bet(100)
    assert (t.status, t.chips, t.pot) == (GameStatus.ROUND_OVER, [900, 1100, 1000], 0)
    assert moves(t, ChipReason.BANK_RETURNED) == []
    assert moves(t, ChipReason.REANTE) == []


def test_a_dealer_short_of_ten_antes_stakes_everything_they_hold() -> None:
    t = Table(BANKER, "2S", "KH", "7D")
    t.bet(100)
    t.rebalance([900, 30, 2070])  # the next dealer, p1, holds only 30
    t.advance()
    assert (t.game.dealer, t.chips, t.pot) == (1, [900, 0, 2070], 30)
    assert moves(t, ChipReason.STAKE)[-1] == (1, -30)


def test_a_banker_game_ends_when_the_bank_has_taken_every_other_players_chips() -> None:
    t = Table(BANKER, "4S", "JH", "KC", players=2)
    t.rebalance([900, 10])  # pot 1090
    t.bet(10)  # p1 loses their last chips: the bank is over and p0 holds everything
    assert (t.status, t.chips, t.pot) == (GameStatus.GAME_OVER, [2000, 0], 0)
    assert t.game.ended_reason is EndReason.ONE_PLAYER_LEFT
