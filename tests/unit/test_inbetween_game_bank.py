"""pagat's banker game as the page plays it (issue 26), released as pagat-bank/v1 beside pagat-banker/v1 (the bank
moving every round). Every number is worked by hand from the page's words: "The dealer begins each game by putting
chips into the pot ... The game will continue with the same dealer until either the pot is empty ... or a
predetermined end point is reached (for example three complete deals or 'rounds'), at which time the dealer collects
whatever is in the pot and the game ends"; "the dealer deals one card face up to each of the other players"; "If
anyone bets the whole pot and wins it, that is the end of the game"; "the dealer gathers the cards, they are shuffled
and cut again, the chips in the pot remain there"; "Players may introduce money into the game (buy more chips)
whenever they wish to".

Three players p0..p2, ante 10, so the stake is ten antes, 100. "2S" is place 0 of the canonical deck, 0 mod 3 is
seat 0: p0 deals and banks; p1 and p2 play, p1 first.
"""

from __future__ import annotations

import hashlib

import pytest

from paytables.inbetween import inbetween_rules
from paytables.inbetween.inbetween_actions import BuyChips, BuyNotAllowed, BuyOverLimit
from paytables.inbetween.inbetween_events import (
    ChipReason,
    EndReason,
    InBetweenChipsBought,
    InBetweenChipsMoved,
    InBetweenFirstCard,
    InBetweenRoundStarted,
    InBetweenShoeShuffled,
    InBetweenTurnStarted,
    decode_events,
    encode_events,
)
from paytables.inbetween.inbetween_state import GameStatus, replay
from tests.unit.inbetween_oracle import RELEASED_SHA256
from tests.unit.inbetween_table import Table

BANK = "inbetween/pagat-bank/v1"
P0_DEALS = "2S"


def fold_to_the_end(t: Table) -> None:
    while t.status is not GameStatus.GAME_OVER:
        if t.game.to_act is None:
            t.advance()
        else:
            t.pass_turn()


def test_the_release_banks_the_whole_game_and_its_sha256_is_its_terms_as_canonical_json() -> None:
    by_hand = (
        '{"adjacent":{"rule":"pass"},"antes":[5,10,20],"banking":{"rule":"dealer_game","stake_antes":10},'
        '"buy_chips":{"limit":1000},"first_ace":"high","first_dealer":"random","id":"inbetween/pagat-bank/v1",'
        '"max_players":8,"min_bet":"one","min_players":2,"pair":{"rule":"push"},"post":"double","rounds":[3,5,10],'
        '"starting_chips":1000}'
    )
    assert hashlib.sha256(by_hand.encode()).hexdigest() == RELEASED_SHA256[BANK]
    assert inbetween_rules.get(BANK).sha256 == RELEASED_SHA256[BANK]
    assert inbetween_rules.get("inbetween/pagat-banker/v1").sha256 == RELEASED_SHA256["inbetween/pagat-banker/v1"]


def test_the_dealer_stakes_and_every_player_gets_a_first_card_before_the_first_turn() -> None:
    t = Table(BANK, P0_DEALS, "4C", "JD", "TH")
    assert (t.chips, t.pot) == ([900, 1000, 1000], 100)  # the dealer's stake; nobody antes
    firsts = [(e.seat, e.card) for e in t.events if isinstance(e, InBetweenFirstCard)]
    assert firsts == [(1, "4C"), (2, "JD")]
    first_turn = next(i for i, e in enumerate(t.events) if isinstance(e, InBetweenTurnStarted))
    assert all(i < first_turn for i, e in enumerate(t.events) if isinstance(e, InBetweenFirstCard))
    assert t.game.turn is not None
    assert (t.player, t.game.turn.first_post, t.game.turn.second_post) == ("p1", "4C", "TH")
    assert t.game.order == (1, 2)  # "The dealer does not receive any cards"


def test_a_bet_that_wins_the_whole_pot_ends_the_game() -> None:
    t = Table(BANK, P0_DEALS, "4C", "JD", "TH", "7S", "3D", "8C")
    t.bet(50)  # a 7 between 4 and 10: p1 takes 50 of the 100
    assert (t.chips, t.pot) == ([900, 1050, 1000], 50)
    t.advance()
    assert t.game.turn is not None
    assert (t.player, t.game.turn.first_post, t.game.turn.second_post) == ("p2", "JD", "3D")
    t.bet(50)  # the whole pot; an 8 between 3 and J wins it
    assert (t.status, t.game.ended_reason, t.chips, t.pot) == (
        GameStatus.GAME_OVER,
        EndReason.POT_EMPTIED,
        [900, 1050, 1050],
        0,
    )


def test_the_same_dealer_banks_every_round_from_a_fresh_pack_and_collects_the_pot_after_the_last() -> None:
    t = Table(BANK, P0_DEALS, "4C", "JD", "TH", "7S", rounds=3)
    t.bet(50)  # p1 wins 50 of the stake
    fold_to_the_end(t)  # then everyone folds for the rest of the three rounds
    rounds = [e for e in t.events if isinstance(e, InBetweenRoundStarted)]
    assert [(r.round, r.dealer, r.order) for r in rounds] == [(1, 0, (1, 2)), (2, 0, (1, 2)), (3, 0, (1, 2))]
    shuffles = [e.shoe_number for e in t.events if isinstance(e, InBetweenShoeShuffled)]
    assert shuffles == [1, 2, 3]  # "they are shuffled and cut again" each round, with nothing kept out
    assert all(e.excluded == () for e in t.events if isinstance(e, InBetweenShoeShuffled))
    collected = [e for e in t.events if isinstance(e, InBetweenChipsMoved) and e.reason is ChipReason.BANK_RETURNED]
    assert [(c.seat, c.delta) for c in collected] == [(0, 50)]  # "the dealer collects whatever is in the pot"
    assert (t.game.ended_reason, t.chips, t.pot) == (EndReason.ROUNDS_PLAYED, [950, 1050, 1000], 0)
    assert replay(decode_events(encode_events(t.events))) == t.game


def test_a_player_buys_chips_whenever_they_wish_and_the_buys_are_counted_with_the_starting_chips() -> None:
    t = Table(BANK, P0_DEALS, "4C", "JD", "TH", "7S", rounds=3)
    t.act(BuyChips(player_id="p2", amount=300))  # out of turn: p1 is to act
    assert (t.player, t.chips, t.pot) == ("p1", [900, 1000, 1300], 100)
    assert sum(t.chips) + t.pot == 3 * 1000 + 300
    t.act(BuyChips(player_id="p2", amount=700))  # 1,000 a player in a game: all of it now bought
    with pytest.raises(BuyOverLimit):
        t.act(BuyChips(player_id="p2", amount=1))
    with pytest.raises(BuyOverLimit):
        t.act(BuyChips(player_id="p1", amount=1001))
    with pytest.raises(BuyOverLimit):
        t.act(BuyChips(player_id="p1", amount=0))
    bought = [(e.seat, e.amount, e.chips, e.bought) for e in t.events if isinstance(e, InBetweenChipsBought)]
    assert bought == [(2, 300, 1300, 300), (2, 700, 2000, 1000)]
    fold_to_the_end(t)
    assert sum(t.chips) == 4000
    assert replay(decode_events(encode_events(t.events))) == t.game


def test_no_chips_are_bought_where_the_rule_set_has_no_buying() -> None:
    t = Table("inbetween/pagat-banker/v1", "4C", "JD", "TH")
    with pytest.raises(BuyNotAllowed):
        t.act(BuyChips(player_id="p1", amount=10))


def test_a_player_who_lost_everything_buys_back_in_and_plays_the_next_round() -> None:
    t = Table(BANK, P0_DEALS, "4C", "JD", "TH", "KS", "JH", rounds=3)
    t.rebalance([900, 10, 1000])  # p1 down to its last 10 chips (the pot holds the other 1,090)
    t.bet(10)  # a king is outside 4..10: p1 loses its last chips
    assert t.chips == [900, 0, 1000]
    t.act(BuyChips(player_id="p1", amount=200))  # between turns: "whenever they wish to"
    t.advance()  # p2's jacks: a pair pays nothing, and the round is over
    t.advance()
    assert (t.game.round, t.game.order, t.chips[1]) == (2, (1, 2), 200)
