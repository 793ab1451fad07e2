"""The In Between engine under nepal/v1 with forced cards: every branch of a turn, a round and a game, chips by hand.

Three players p0..p2, ante 10, p0 deals: after the antes each holds 990 and the pot is 30; p1 plays first, p0 last.
"""

from __future__ import annotations

import pytest

from paytables.inbetween.inbetween_events import (
    AceCall,
    CalledBy,
    ChipReason,
    Decision,
    EndReason,
    InBetweenAceCalled,
    InBetweenAwaiting,
    InBetweenCardDealt,
    InBetweenChipsMoved,
    InBetweenGameEnded,
    InBetweenShoeRevealed,
    InBetweenShoeShuffled,
    PairCall,
    TurnOutcome,
)
from paytables.inbetween.inbetween_state import GameStatus
from shoe.shoe import verify_reveal
from tests.unit.inbetween_table import Table

NEPAL = "inbetween/nepal/v1"
ADJACENT_PAIRS = [
    (low + suit, high + suit) for low, high in ("23", "45", "67", "89", "TJ", "QK") for suit in "SHDC"
]  # 24 turns of posts side by side, every card but the aces


def flat(pairs: list[tuple[str, str]]) -> list[str]:
    return [card for pair in pairs for card in pair]


def test_everyone_antes_and_the_dealers_left_neighbour_plays_first_the_dealer_last() -> None:
    t = Table(NEPAL, "4S", "JH")
    assert (t.chips, t.pot) == ([990, 990, 990], 30)
    assert t.game.order == (1, 2, 0)
    assert (t.status, t.player) == (GameStatus.AWAITING_BET, "p1")
    assert t.game.turn is not None
    assert (t.game.turn.first_post, t.game.turn.second_post) == ("4S", "JH")
    assert (t.game.turn.min_bet, t.game.turn.max_bet) == (1, 30)
    antes = [e for e in t.events if isinstance(e, InBetweenChipsMoved)]
    assert [(e.seat, e.delta, e.reason) for e in antes] == [(s, -10, ChipReason.ANTE) for s in (1, 2, 0)]


def test_a_third_card_between_the_posts_wins_the_bet_out_of_the_pot() -> None:
    t = Table(NEPAL, "4S", "JH", "7D")
    t.bet(20)
    assert (t.chips, t.pot) == ([990, 1010, 990], 10)
    assert t.status is GameStatus.TURN_OVER
    assert t.game.turn is not None
    assert (t.game.turn.third_card, t.game.turn.outcome) == ("7D", TurnOutcome.WIN)


def test_a_third_card_outside_the_posts_loses_the_bet_into_the_pot() -> None:
    t = Table(NEPAL, "4S", "JH", "KC")
    t.bet(20)
    assert (t.chips, t.pot) == ([990, 970, 990], 50)


def test_a_third_card_of_a_posts_rank_hits_the_post_and_pays_twice_the_bet() -> None:
    t = Table(NEPAL, "4S", "JH", "4D")
    t.bet(20)
    assert (t.chips, t.pot) == ([990, 950, 990], 70)
    assert t.game.turn is not None
    assert t.game.turn.outcome is TurnOutcome.POST


def test_a_post_the_player_cannot_pay_twice_takes_everything_they_have_left() -> None:
    t = Table(NEPAL, "4S", "JH", "JD")
    t.rebalance([990, 30, 990])  # pot 990
    t.bet(20)
    assert (t.chips, t.pot) == ([990, 0, 990], 1020)


def test_a_player_with_no_chips_sits_out_of_the_next_round_and_the_deal_passes_them_by() -> None:
    t = Table(NEPAL, "4S", "JH", "JD", "7S", "8S", "7H", "8H")
    t.rebalance([990, 30, 990])
    t.bet(20)  # p1 hits the post and is out
    t.advance()  # p2: 7-8, passes
    t.advance()  # p0: 7-8, passes
    assert t.status is GameStatus.ROUND_OVER
    t.advance()
    assert (t.game.round, t.game.dealer, t.game.order) == (2, 2, (0, 2))
    assert (t.chips, t.pot) == ([980, 0, 980], 1040)


def test_a_first_post_ace_waits_for_the_call_before_the_second_post_is_turned() -> None:
    t = Table(NEPAL, "AS", "9H", "5C")
    assert t.status is GameStatus.AWAITING_ACE_CALL
    assert t.game.turn is not None
    assert t.game.turn.second_post is None
    assert isinstance(t.events[-1], InBetweenAwaiting)
    assert t.events[-1].decision is Decision.ACE_CALL
    t.call_ace(AceCall.LOW)  # 1..9: the five is between
    assert t.game.status is GameStatus.AWAITING_BET
    t.bet(10)
    assert t.chips[1] == 1000


def test_a_first_ace_called_high_ranks_above_the_king() -> None:
    t = Table(NEPAL, "AS", "9H", "5C")
    t.call_ace(AceCall.HIGH)  # 9..A: the five is outside
    t.bet(10)
    assert (t.chips[1], t.pot) == (980, 40)


def test_a_low_ace_and_a_second_ace_make_the_widest_gap_where_every_two_to_king_wins() -> None:
    t = Table(NEPAL, "AS", "AH", "KC")
    t.call_ace(AceCall.LOW)
    assert t.status is GameStatus.AWAITING_BET  # not a pair: a low ace and a high ace
    t.bet(10)
    assert t.chips[1] == 1000


def test_a_third_ace_against_a_low_and_a_high_ace_still_hits_the_post() -> None:
    t = Table(NEPAL, "AS", "AH", "AD")
    t.call_ace(AceCall.LOW)
    t.bet(10)
    assert (t.chips[1], t.pot) == (970, 50)


def test_an_ace_turned_as_second_post_is_high_without_a_call() -> None:
    t = Table(NEPAL, "5H", "AS", "9C")
    assert t.status is GameStatus.AWAITING_BET
    assert not any(isinstance(e, InBetweenAceCalled) for e in t.events)
    t.bet(10)
    assert t.chips[1] == 1000


@pytest.mark.parametrize(
    ("call", "third", "delta"),
    [
        (PairCall.HIGHER, "TC", 10),  # above the eights: wins
        (PairCall.LOWER, "3C", 10),  # below: wins
        (PairCall.LOWER, "KC", -10),  # above when lower was called: loses
        (PairCall.HIGHER, "8D", -20),  # a third eight hits the post: twice the bet
    ],
)
def test_posts_of_a_pair_are_called_higher_or_lower_then_bet(call: PairCall, third: str, delta: int) -> None:
    t = Table(NEPAL, "8S", "8H", third)
    assert t.status is GameStatus.AWAITING_PAIR_CALL
    t.call_pair(call)
    assert t.game.status is GameStatus.AWAITING_BET
    t.bet(10)
    assert (t.chips[1], t.pot) == (990 + delta, 30 - delta)


def test_a_player_may_pass_on_a_pair_instead_of_calling_it() -> None:
    t = Table(NEPAL, "8S", "8H")
    t.pass_turn()
    assert (t.status, t.chips, t.pot) == (GameStatus.TURN_OVER, [990, 990, 990], 30)
    assert t.game.turn is not None
    assert t.game.turn.outcome is TurnOutcome.PASSED


@pytest.mark.parametrize(
    ("cards", "ace"), [(("7S", "8H"), None), (("AS", "2H"), AceCall.LOW), (("AS", "KH"), AceCall.HIGH)]
)
def test_posts_next_to_each_other_pass_the_turn_and_nothing_is_paid(
    cards: tuple[str, str], ace: AceCall | None
) -> None:
    t = Table(NEPAL, *cards)
    if ace is not None:
        t.call_ace(ace)
    assert (t.status, t.chips, t.pot) == (GameStatus.TURN_OVER, [990, 990, 990], 30)
    assert t.game.turn is not None
    assert (t.game.turn.outcome, t.game.turn.third_card) == (TurnOutcome.ADJACENT_PASSED, None)


def test_a_bet_that_empties_the_pot_makes_everyone_ante_again_at_once_and_the_round_carries_on() -> None:
    t = Table(NEPAL, "2S", "KH", "7D", "4S", "JH")
    step = t.bet(30)
    reantes = [(e.seat, e.delta) for e in step.events if isinstance(e, InBetweenChipsMoved) and e.reason == "reante"]
    assert reantes == [(1, -10), (2, -10), (0, -10)]
    assert (t.chips, t.pot, t.status) == ([980, 1010, 980], 30, GameStatus.TURN_OVER)
    t.advance()
    assert (t.player, t.game.round) == ("p2", 1)


def test_a_pot_emptied_on_the_rounds_last_turn_is_refilled_by_the_next_rounds_antes_only() -> None:
    t = Table(NEPAL, "7S", "8S", "2H", "KH", "7C", "4S", "JH", players=2)  # p1, then p0 deals and plays last
    t.advance()
    t.bet(20)
    assert (t.status, t.chips, t.pot) == (GameStatus.ROUND_OVER, [1010, 990], 0)
    t.advance()
    assert (t.game.round, t.game.dealer, t.game.order) == (2, 1, (0, 1))
    assert (t.chips, t.pot) == ([1000, 980], 20)


def test_after_its_rounds_the_game_ends_and_the_odd_chip_of_the_pot_goes_first_from_the_dealers_left() -> None:
    side_by_side = [pair for pair in ADJACENT_PAIRS if not {"4S", "9H", "KC"} & set(pair)][:14]
    t = Table(NEPAL, "4S", "9H", "KC", *flat(side_by_side), rounds=5)
    t.bet(7)  # lost: the pot will hold 5 x 30 + 7 = 157
    while t.status is not GameStatus.GAME_OVER:
        t.advance()
    # Before the share: p0 and p2 paid 50 in antes, p1 57. 157 = 3 x 52 + 1 and p1 dealt round 5: p2 gets the odd chip.
    assert (t.game.round, t.game.dealer) == (5, 1)
    assert (t.chips, t.pot) == ([1002, 995, 1003], 0)
    ended = t.events[-1]
    assert isinstance(ended, InBetweenGameEnded)
    assert (ended.reason, ended.chips, ended.winners) == (EndReason.ROUNDS_PLAYED, (1002, 995, 1003), (2,))
    shares = [(e.seat, e.delta) for e in t.events if isinstance(e, InBetweenChipsMoved) and e.reason == "shared"]
    assert shares == [(2, 53), (0, 52), (1, 52)]


def test_the_game_ends_early_when_one_player_holds_every_chip() -> None:
    t = Table(NEPAL, "2S", "KH", "AC", players=2, ante=20)
    t.rebalance([980, 20])  # pot 1000
    t.bet(20)
    assert (t.status, t.chips, t.pot) == (GameStatus.GAME_OVER, [2000, 0], 0)
    assert t.game.ended_reason is EndReason.ONE_PLAYER_LEFT
    assert t.game.winners == (0,)


def test_the_shoe_is_revealed_when_the_game_ends_and_matches_its_commitment() -> None:
    t = Table(NEPAL, "2S", "KH", "AC", players=2, ante=20)
    t.rebalance([980, 20])
    step = t.bet(20)
    revealed = [e for e in step.events if isinstance(e, InBetweenShoeRevealed)]
    assert len(revealed) == 1
    assert revealed[0].commitment == t.game.shoe_commitment == t.shoe.commitment
    assert verify_reveal(revealed[0].commitment, t.shoe.reveal)


def test_when_the_pack_runs_out_the_cards_off_the_table_are_shuffled_into_a_new_committed_pack() -> None:
    aces = ["AS", "AH", "AD", "AC"]
    t = Table(NEPAL, *flat(ADJACENT_PAIRS), *aces, players=2, rounds=15)
    first_commitment = t.shoe.commitment
    while t.status is not GameStatus.AWAITING_ACE_CALL:  # 24 turns of posts side by side
        t.advance()
    t.call_ace(AceCall.LOW)  # AS low, AH: the widest gap; pass
    t.pass_turn()
    t.advance()  # AD: call it low; AC is the pack's last card
    t.call_ace(AceCall.LOW)
    assert (t.game.count, t.shoe.position) == (52, 52)
    before = t.chips[0]
    step = t.bet(10)
    revealed, shuffled = (e for e in step.events if isinstance(e, InBetweenShoeRevealed | InBetweenShoeShuffled))
    assert isinstance(revealed, InBetweenShoeRevealed)
    assert isinstance(shuffled, InBetweenShoeShuffled)
    assert (revealed.shoe_number, revealed.commitment, revealed.dealt) == (1, first_commitment, 52)
    assert (shuffled.shoe_number, shuffled.size, shuffled.excluded) == (2, 50, ("AD", "AC"))
    assert shuffled.commitment == t.shoe.commitment != first_commitment
    assert "AD" not in t.shoe.order
    assert "AC" not in t.shoe.order
    third = next(e for e in step.events if isinstance(e, InBetweenCardDealt))
    assert (third.shoe_number, third.shoe_index) == (2, 0)
    assert t.chips[0] == before + 10  # every card of the new pack is a two to a king: between a low and a high ace
    assert (t.game.count, t.game.seen) == (1, ("AD", "AC", third.card))
    assert t.game.unseen().total() == 49


def test_every_card_is_an_event_with_its_place_in_the_shoe() -> None:
    t = Table(NEPAL, "4S", "JH", "7D")
    t.bet(5)
    dealt = [(e.card, e.role, e.shoe_index) for e in t.events if isinstance(e, InBetweenCardDealt)]
    assert dealt == [("4S", "first_post", 0), ("JH", "second_post", 1), ("7D", "third_card", 2)]
    assert t.game.count == 3


def test_an_ace_called_by_the_player_is_recorded_as_theirs() -> None:
    t = Table(NEPAL, "AS", "9H")
    step = t.call_ace(AceCall.LOW)
    called = [e for e in step.events if isinstance(e, InBetweenAceCalled)]
    assert [(e.seat, e.call, e.by) for e in called] == [(1, AceCall.LOW, CalledBy.PLAYER)]
