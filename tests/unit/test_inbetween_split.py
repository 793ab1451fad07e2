"""Splitting a pair (issue 26), pagat's variant of the version with an ante: "if a player's first two cards are
equal, they have the option to pay an extra ante (or sometimes a smaller amount) to the pot to split them into two
hands, which they then play separately". Every number is worked by hand from those words and pagat-ante's terms.

Three players p0..p2, ante 10: after the antes everyone holds 990 and the pot is 30. pagat's sets draw the first
dealer at random: "2S" is place 0 of the canonical deck, 0 mod 3 is seat 0, so p0 deals and p1 plays first.
"""

from __future__ import annotations

import hashlib

import pytest

from paytables.inbetween import inbetween_rules
from paytables.inbetween.inbetween_actions import KeepPair, PassTurn, SplitPair, WrongAction
from paytables.inbetween.inbetween_bot import kelly_player, one_chip_player
from paytables.inbetween.inbetween_events import (
    ChipReason,
    EndReason,
    InBetweenChipsMoved,
    InBetweenHandEnded,
    InBetweenPairSplit,
    TurnOutcome,
    decode_events,
    encode_events,
)
from paytables.inbetween.inbetween_seat_play import default_move
from paytables.inbetween.inbetween_state import GameStatus, replay
from tests.unit.inbetween_oracle import RELEASED_SHA256
from tests.unit.inbetween_table import Table

SPLIT = "inbetween/pagat-split/v1"
P0_DEALS = "2S"


def split(t: Table) -> None:
    t.act(SplitPair(player_id=t.player))


def keep(t: Table) -> None:
    t.act(KeepPair(player_id=t.player))


def test_the_release_is_pagat_ante_with_one_more_ante_to_split_and_its_sha256_is_its_terms_as_canonical_json() -> None:
    by_hand = (
        '{"adjacent":{"rule":"pass"},"antes":[5,10,20],"banking":{"rule":"antes"},"first_ace":"high",'
        '"first_dealer":"random","id":"inbetween/pagat-split/v1","max_players":8,"min_bet":"one","min_players":2,'
        '"pair":{"rule":"push"},"post":"double","rounds":["until_empty",5,10,15],"split":{"cost":"ante"},'
        '"starting_chips":1000}'
    )
    assert hashlib.sha256(by_hand.encode()).hexdigest() == RELEASED_SHA256[SPLIT]
    assert inbetween_rules.get(SPLIT).sha256 == RELEASED_SHA256[SPLIT]


def test_a_pair_waits_for_the_player_to_split_or_keep_it() -> None:
    t = Table(SPLIT, P0_DEALS, "8S", "8H")
    assert (t.status, t.player, t.chips, t.pot) == (GameStatus.AWAITING_SPLIT, "p1", [990, 990, 990], 30)


def test_a_split_pays_an_extra_ante_and_each_hand_gets_its_own_second_post_and_bet() -> None:
    # p1 splits 8S 8H: "pay an extra ante ... to the pot": 980, pot 40. First hand 8S with its second post 2D, a
    # spread: bet 20, the 5C lies between and wins (1000, pot 20). Second hand 8H with its own second post KD: bet
    # 20 (the pot now holds 20, the most a bet may be), the 8D is a post's rank: "the player loses double", 40 (960,
    # pot 60). 990 + 960 + 990 + 60 = 3000.
    t = Table(SPLIT, P0_DEALS, "8S", "8H", "2D", "5C", "KD", "8D")
    split(t)
    assert (t.status, t.chips, t.pot) == (GameStatus.AWAITING_BET, [990, 980, 990], 40)
    assert t.game.turn is not None
    assert (t.game.turn.first_post, t.game.turn.second_post, t.game.turn.split_card) == ("8S", "2D", "8H")
    t.bet(20)
    assert (t.status, t.chips, t.pot) == (GameStatus.AWAITING_BET, [990, 1000, 990], 20)
    turn = t.game.turn
    assert turn is not None
    assert (turn.hand, turn.first_post, turn.second_post, turn.max_bet) == (2, "8H", "KD", 20)
    assert [(h.first_post, h.second_post, h.bet, h.third_card, h.outcome) for h in turn.hands] == [
        ("8S", "2D", 20, "5C", TurnOutcome.WIN)
    ]
    t.bet(20)
    assert (t.status, t.chips, t.pot) == (GameStatus.TURN_OVER, [990, 960, 990], 60)
    assert t.game.turn is not None
    assert t.game.turn.outcome is TurnOutcome.POST
    moves = [(e.reason, e.delta) for e in t.events if isinstance(e, InBetweenChipsMoved) and e.seat == 1]
    assert moves[1:] == [(ChipReason.SPLIT, -10), (ChipReason.WIN, 20), (ChipReason.POST, -40)]  # after the ante
    assert [e.hand for e in t.events if isinstance(e, InBetweenHandEnded)] == [1]
    assert replay(decode_events(encode_events(t.events))) == t.game


def test_a_kept_pair_is_played_as_pagat_ante_plays_a_pair_and_pays_nothing() -> None:
    t = Table(SPLIT, P0_DEALS, "8S", "8H")
    keep(t)
    assert (t.status, t.chips, t.pot) == (GameStatus.TURN_OVER, [990, 990, 990], 30)
    assert t.game.turn is not None
    assert t.game.turn.outcome is TurnOutcome.PAIR_PUSHED
    assert not any(isinstance(e, InBetweenPairSplit) for e in t.events)


def test_a_hand_may_pass_and_the_other_still_plays() -> None:
    # First hand 8S-9D: side by side, no card fits, nothing paid (pagat-ante's adjacent rule). Second hand 8H-2C:
    # p1 passes. Only the split's ante moved: 980, pot 40.
    t = Table(SPLIT, P0_DEALS, "8S", "8H", "9D", "2C")
    split(t)
    assert t.status is GameStatus.AWAITING_BET
    assert t.game.turn is not None
    assert (t.game.turn.hand, [h.outcome for h in t.game.turn.hands]) == (2, [TurnOutcome.ADJACENT_PASSED])
    t.pass_turn()
    assert (t.status, t.chips, t.pot) == (GameStatus.TURN_OVER, [990, 980, 990], 40)


def test_a_split_hand_dealt_the_pairs_rank_again_is_a_pair_and_is_not_split_again() -> None:
    # First hand 8S with second post 8D: a pair again, which pagat-ante pushes; the second hand 8H-3C-... follows.
    t = Table(SPLIT, P0_DEALS, "8S", "8H", "8D", "3C")
    split(t)
    assert t.status is GameStatus.AWAITING_BET
    assert t.game.turn is not None
    assert [h.outcome for h in t.game.turn.hands] == [TurnOutcome.PAIR_PUSHED]


def test_a_first_hand_that_wins_the_whole_pot_ends_a_game_played_until_the_pot_is_won() -> None:
    # "If anyone bets the whole pot and wins it, that is the end of the game": p1 splits (980, pot 40), bets the 40
    # on 8S-2D and the 5C wins (1020, pot 0). The second hand is never dealt.
    t = Table(SPLIT, P0_DEALS, "8S", "8H", "2D", "5C", rounds="until_empty")
    split(t)
    t.bet(40)
    assert (t.status, t.game.ended_reason, t.chips, t.pot) == (
        GameStatus.GAME_OVER,
        EndReason.POT_EMPTIED,
        [990, 1020, 990],
        0,
    )
    assert not any(isinstance(e, InBetweenHandEnded) for e in t.events)


def test_in_a_game_of_rounds_a_first_hand_that_empties_the_pot_ends_the_turn_and_everyone_antes_again() -> None:
    # The same cards in a game of 5 rounds: the pot is empty with p2 and p0 still to play, so all three ante 10 again
    # at once (980, 1010, 980, pot 30) and the turn is over; the second hand is not played.
    t = Table(SPLIT, P0_DEALS, "8S", "8H", "2D", "5C", rounds=5)
    split(t)
    t.bet(40)
    assert (t.status, t.chips, t.pot) == (GameStatus.TURN_OVER, [980, 1010, 980], 30)
    assert t.game.turn is not None
    assert (t.game.turn.outcome, t.game.turn.split_card) == (TurnOutcome.WIN, "8H")


def test_a_split_is_not_offered_to_a_player_with_no_more_chips_than_its_cost() -> None:
    # p1's turn (4S JH) is over after a pass; p2 holds exactly the 10 a split costs when its pair 9S 9H comes: no chip
    # would be left to bet, so the pair is played at once as pagat-ante says (nothing paid).
    t = Table(SPLIT, P0_DEALS, "4S", "JH", "9S", "9H")
    t.pass_turn()
    t.rebalance([990, 990, 10])
    t.advance()
    assert t.game.turn is not None
    assert (t.game.turn.seat, t.status, t.game.turn.outcome) == (2, GameStatus.TURN_OVER, TurnOutcome.PAIR_PUSHED)


def test_a_split_or_a_keep_is_refused_when_no_pair_waits_and_a_pass_is_refused_while_one_does() -> None:
    t = Table(SPLIT, P0_DEALS, "4S", "JH")
    with pytest.raises(WrongAction):
        split(t)
    with pytest.raises(WrongAction):
        keep(t)
    t = Table(SPLIT, P0_DEALS, "8S", "8H")
    with pytest.raises(WrongAction):
        t.act(PassTurn(player_id=t.player))


def test_the_card_waiting_for_the_second_hand_is_on_the_table_and_seen() -> None:
    # The waiting 8H is one of the turn's table cards (kept out of a pack shuffled mid-turn; the property test plays
    # packs out under every rule set) and the count has seen it: 52 less the 2S turned for the deal and three cards.
    t = Table(SPLIT, P0_DEALS, "8S", "8H", "2D")
    split(t)
    assert t.game.turn is not None
    assert set(t.game.turn.table_cards) == {"8S", "8H", "2D"}
    assert t.game.unseen().total() == 52 - 4  # the 2S turned for the deal, and the three on the table


def test_rule_sets_that_split_a_pair_in_a_dealers_bank_or_for_nothing_are_refused() -> None:
    base = (inbetween_rules.RULESETS_DIR / "pagat-split" / "v1.toml").read_text(encoding="utf-8")
    chips = base.replace('split = { cost = "ante" }', "split = { cost = 3 }")
    assert inbetween_rules.parse(chips, "x").split_cost(20) == 3  # "or sometimes a smaller amount"
    assert inbetween_rules.get(SPLIT).split_cost(20) == 20  # "an extra ante"
    assert inbetween_rules.get("inbetween/pagat-ante/v1").split_cost(20) is None
    for bad in ("split = { cost = 0 }", 'split = { cost = "half" }', 'split = { cost = "ante", again = true }'):
        with pytest.raises(inbetween_rules.RuleSetError):
            inbetween_rules.parse(base.replace('split = { cost = "ante" }', bad), "x")
    bank = base.replace('banking = { rule = "antes" }', 'banking = { rule = "dealer", stake_antes = 10, orbits = 2 }')
    bank = bank.replace('rounds = ["until_empty", 5, 10, 15]', "rounds = [5, 10, 15]")
    with pytest.raises(inbetween_rules.RuleSetError, match="split"):
        inbetween_rules.parse(bank, "x")


def test_the_computer_splits_only_when_two_hands_are_worth_more_than_the_ante_and_the_timer_keeps_the_pair() -> None:
    # p1 holds AS AH (aces high). A hand is a first post A and a second post y from the 50 unseen cards (48 twos to
    # kings, 2 aces); a gap of s = 13 - y ranks then has 4s winners among the 49 left, 5 posts (2 aces, 3 y's) and
    # 44 - 4s losers, so a chip bet gains (8s - 54) / 49 with a post costing double: positive for y = 2..6 (s = 11..7).
    # Kelly's share (edge over second moment) is 2/64 of 990 chips at s = 7, 30 chips; wider gaps are capped by the
    # pot. With the pot at 30 every bet is 30 and a hand is worth 4/50 x (34 + 26 + 18 + 10 + 2)/49 x 30 = 4.41
    # chips: two are 8.8, less than the 10 a split costs, so it keeps the pair. With 100 in the pot, the bets on y =
    # 2..5 take 100 and y = 6 still 30: 4/50 x ((34 + 26 + 18 + 10) x 100 + 2 x 30)/49 = 14.47 a hand, 28.9 for two,
    # more than 10: it splits.
    t = Table(SPLIT, P0_DEALS, "AS", "AH")
    assert kelly_player(t.game, t.rules) == KeepPair(player_id="p1")
    assert one_chip_player(t.game, t.rules) == default_move(t.game, t.rules) == KeepPair(player_id="p1")
    t.rebalance([990, 990, 920])
    assert t.pot == 100
    assert kelly_player(t.game, t.rules) == SplitPair(player_id="p1")
