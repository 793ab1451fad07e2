"""Two cards face down (issue 26), pagat's variant of the version with an ante: "Some deal two cards face down to each
player. Then each in turn can either fold without showing their cards, or expose their two cards, place a bet and
receive a third card". Every number is worked by hand from those words and pagat-ante's terms.

Three players p0..p2, ante 10: after the antes everyone holds 990 and the pot is 30. "2S" is place 0 of the canonical
deck, 0 mod 3 is seat 0, so p0 deals and p1 plays first; its posts are the next two cards, dealt face down.
"""

from __future__ import annotations

import hashlib

import msgspec
import pytest

from paytables.inbetween import inbetween_rules
from paytables.inbetween.inbetween_actions import PassNotAllowed, PassTurn, ShowCards, WrongAction
from paytables.inbetween.inbetween_bot import kelly_player
from paytables.inbetween.inbetween_events import (
    InBetweenCardDealtDown,
    InBetweenCardsShown,
    InBetweenShoeRevealed,
    TurnOutcome,
    decode_events,
    encode_events,
)
from paytables.inbetween.inbetween_odds import turn_odds
from paytables.inbetween.inbetween_seat_play import Computer, computer_move, default_move
from paytables.inbetween.inbetween_state import GameStatus, ReplayError, replay
from paytables.inbetween.inbetween_views import own_cards, seat_view
from tests.unit.inbetween_oracle import RELEASED_SHA256
from tests.unit.inbetween_table import Table

DOWN = "inbetween/pagat-down/v1"
P0_DEALS = "2S"


def public_text(t: Table) -> str:
    """Everything public about the game: its state and every record, as JSON."""
    return msgspec.json.encode(t.game).decode() + encode_events(t.events).decode()


def show(t: Table) -> None:
    t.act(ShowCards(player_id=t.player))


def test_the_release_is_pagat_ante_dealt_face_down_and_its_sha256_is_its_terms_as_canonical_json() -> None:
    by_hand = (
        '{"adjacent":{"rule":"pass"},"antes":[5,10,20],"banking":{"rule":"antes"},"face_down":true,'
        '"first_ace":"high","first_dealer":"random","id":"inbetween/pagat-down/v1","max_players":8,"min_bet":"one",'
        '"min_players":2,"pair":{"rule":"push"},"post":"double","rounds":["until_empty",5,10,15],'
        '"starting_chips":1000}'
    )
    assert hashlib.sha256(by_hand.encode()).hexdigest() == RELEASED_SHA256[DOWN]
    assert inbetween_rules.get(DOWN).sha256 == RELEASED_SHA256[DOWN]


def test_the_posts_are_dealt_face_down_and_only_their_seat_sees_them() -> None:
    t = Table(DOWN, P0_DEALS, "4C", "JD")
    assert (t.status, t.player, t.chips, t.pot) == (GameStatus.AWAITING_SHOW, "p1", [990, 990, 990], 30)
    assert t.game.turn is not None
    assert t.game.turn.down == (1, 2)  # the pack's places 1 and 2: the dealer's card was place 0
    assert "4C" not in public_text(t)
    assert "JD" not in public_text(t)
    assert own_cards(t.game, t.shoe, 1) == ("4C", "JD")
    assert own_cards(t.game, t.shoe, 0) == own_cards(t.game, t.shoe, 2) == own_cards(t.game, t.shoe, None) == ()
    downs = [e for e in t.events if isinstance(e, InBetweenCardDealtDown)]
    assert [(e.seat, e.shoe_number, e.shoe_index) for e in downs] == [(1, 1, 1), (1, 1, 2)]


def test_showing_exposes_both_cards_and_a_bet_and_a_third_card_follow() -> None:
    t = Table(DOWN, P0_DEALS, "4C", "JD", "8H")
    show(t)  # "expose their two cards, place a bet and receive a third card"
    assert t.game.turn is not None
    assert (t.game.turn.first_post, t.game.turn.second_post, t.status) == ("4C", "JD", GameStatus.AWAITING_BET)
    t.bet(20)  # an 8 is between 4 and J: p1 takes 20 from the pot of 30
    assert (t.chips, t.pot) == ([990, 1010, 990], 10)
    assert [e.cards for e in t.events if isinstance(e, InBetweenCardsShown)] == [("4C", "JD")]


def test_a_player_who_showed_must_bet_and_cannot_fold() -> None:
    t = Table(DOWN, P0_DEALS, "4C", "JD")
    show(t)
    with pytest.raises(PassNotAllowed):
        t.pass_turn()


def test_a_fold_shows_nothing_moves_nothing_and_the_packs_reveal_at_the_end_proves_the_cards() -> None:
    t = Table(DOWN, P0_DEALS, "4C", "JD", "5H", "5D", rounds=5)
    t.act(PassTurn(player_id="p1"))  # "fold without showing their cards"
    t.advance()
    assert t.game.turn is not None
    assert (t.status, t.player, t.chips, t.pot) == (GameStatus.AWAITING_SHOW, "p2", [990, 990, 990], 30)
    assert "4C" not in public_text(t)
    assert "JD" not in public_text(t)
    outcomes = [e for e in t.events if getattr(e, "outcome", None) is TurnOutcome.FOLDED]
    assert len(outcomes) == 1
    while t.status is not GameStatus.GAME_OVER:  # everyone folds to the end of the five rounds
        if t.game.to_act is None:
            t.advance()
        else:
            t.pass_turn()
    reveals = [e for e in t.events if isinstance(e, InBetweenShoeRevealed) and e.shoe_number == 1]
    assert reveals[0].order[2:6] == "4CJD"  # the pack as committed holds them at places 1 and 2
    assert replay(decode_events(encode_events(t.events))) == t.game


def test_a_shown_card_that_is_not_the_card_dealt_at_its_place_fails_the_replay() -> None:
    t = Table(DOWN, P0_DEALS, "4C", "JD", "8H", rounds=5)
    show(t)
    t.bet(20)
    while t.status is not GameStatus.GAME_OVER:
        if t.game.to_act is None:
            t.advance()
        else:
            t.pass_turn()
    forged = [
        msgspec.structs.replace(e, cards=("4C", "QD")) if isinstance(e, InBetweenCardsShown) else e for e in t.events
    ]
    with pytest.raises(ReplayError):
        replay(forged)


def test_the_odds_a_seat_sees_count_its_own_cards_and_not_the_ones_folded_by_another() -> None:
    t = Table(DOWN, P0_DEALS, "4C", "JD", "5H", "KD")
    mine = seat_view(t.game, t.shoe, 1)
    odds = turn_odds(mine)  # 49 unseen (52 less 2S and its own two): 5..T win 24, a 4 or a J 3 + 3, the rest 19
    assert odds is not None
    assert (odds.win, odds.post, odds.lose) == (24, 6, 19)
    assert turn_odds(t.game) is None  # anyone else sees no posts
    t.pass_turn()
    t.advance()
    theirs = turn_odds(seat_view(t.game, t.shoe, 2))  # p2 holds 5H KD; p1's folded 4C JD are unseen to it
    assert theirs is not None
    assert (theirs.win, theirs.post, theirs.lose) == (28, 6, 15)  # 6..Q: 7 ranks x 4; 3 fives, 3 kings; 49 - 34
    remembered = seat_view(t.game, t.shoe, 1).unseen()  # p1 remembers the cards it folded: a 4 and a J fewer
    assert (remembered.total(), remembered[4], remembered[11]) == (49, 3, 3)
    assert (seat_view(t.game, t.shoe, 2).unseen()[4], t.game.unseen()[4]) == (4, 4)


def test_the_computer_shows_a_wide_gap_and_folds_a_narrow_one() -> None:
    narrow = Table(DOWN, P0_DEALS, "4C", "JD")  # 24 win, 6 posts, 19 lose: 24 - 19 - 2 x 6 < 0
    assert isinstance(kelly_player(seat_view(narrow.game, narrow.shoe, 1), narrow.rules), PassTurn)
    wide = Table(DOWN, P0_DEALS, "3C", "KD")  # 4..Q: 36 win, 6 posts, 7 lose: 36 - 7 - 12 > 0
    assert isinstance(kelly_player(seat_view(wide.game, wide.shoe, 1), wide.rules), ShowCards)
    assert isinstance(computer_move(seat_view(wide.game, wide.shoe, 1), wide.rules, Computer()), ShowCards)
    assert isinstance(default_move(wide.game, wide.rules), PassTurn)  # a turn's timer folds unseen


def test_a_show_is_refused_when_nothing_is_face_down() -> None:
    t = Table("inbetween/pagat-ante/v1", P0_DEALS, "4C", "JD")
    with pytest.raises(WrongAction):
        show(t)
