"""Stopping by agreement (issue 26), pagat's second ending of the version with an ante: "The game ends when a player
wins the whole pot, or when the players agree to stop playing and divide the contents of the pot between them".
Every number is worked by hand from those words and the share docs/inbetween.md settles (equal shares, the odd chips
one each in turn order from the dealer's left).

Three players p0..p2, ante 10: after the antes everyone holds 990 and the pot is 30. "2S" is place 0 of the
canonical deck, 0 mod 3 is seat 0, so p0 deals and p1 plays first, its posts 4S JH.
"""

from __future__ import annotations

import hashlib

import pytest

from paytables.inbetween import inbetween_rules
from paytables.inbetween.inbetween_actions import AgreeToStop, NotYourTurn, StopNotAllowed, WrongAction
from paytables.inbetween.inbetween_bot import computers_agreeing
from paytables.inbetween.inbetween_events import (
    ChipReason,
    EndReason,
    InBetweenChipsMoved,
    decode_events,
    encode_events,
)
from paytables.inbetween.inbetween_seat_play import Computer, play_held_seats
from paytables.inbetween.inbetween_state import GameStatus, replay
from tests.unit.inbetween_oracle import RELEASED_SHA256
from tests.unit.inbetween_table import NOW, Table

AGREE = "inbetween/pagat-ante/v2"
CARDS = ("2S", "4S", "JH")


def agree(t: Table, player: str) -> None:
    t.act(AgreeToStop(player_id=player))


def test_the_release_is_pagat_ante_with_stopping_by_agreement_and_its_sha256_is_its_terms_as_canonical_json() -> None:
    by_hand = (
        '{"adjacent":{"rule":"pass"},"antes":[5,10,20],"banking":{"rule":"antes"},"first_ace":"high",'
        '"first_dealer":"random","id":"inbetween/pagat-ante/v2","max_players":8,"min_bet":"one","min_players":2,'
        '"pair":{"rule":"push"},"post":"double","rounds":["until_empty",5,10,15],"starting_chips":1000,'
        '"stop_by_agreement":true}'
    )
    assert hashlib.sha256(by_hand.encode()).hexdigest() == RELEASED_SHA256[AGREE]
    assert inbetween_rules.get(AGREE).sha256 == RELEASED_SHA256[AGREE]


def test_each_player_agrees_whoever_s_turn_it_is_and_the_last_agreement_shares_the_pot() -> None:
    t = Table(AGREE, *CARDS)
    agree(t, "p2")  # not p2's turn: an agreement is no turn's move
    agree(t, "p0")
    assert (t.status, t.player, t.game.agreed) == (GameStatus.AWAITING_BET, "p1", (2, 0))
    agree(t, "p1")
    # "divide the contents of the pot between them": 30 in three is 10 each
    assert (t.status, t.game.ended_reason, t.chips, t.pot) == (GameStatus.GAME_OVER, EndReason.AGREED, [1000] * 3, 0)
    shared = [
        (e.seat, e.delta) for e in t.events if isinstance(e, InBetweenChipsMoved) and e.reason is ChipReason.SHARED
    ]
    assert shared == [(1, 10), (2, 10), (0, 10)]
    assert t.game.winners == (0, 1, 2)
    assert replay(decode_events(encode_events(t.events))) == t.game


def test_a_pot_that_does_not_divide_gives_its_odd_chips_from_the_dealers_left() -> None:
    # 31 in the pot: 10 each and the odd chip to p1, on the dealer's left.
    t = Table(AGREE, *CARDS)
    t.rebalance([990, 990, 989])
    for player in ("p0", "p1", "p2"):
        agree(t, player)
    assert (t.chips, t.pot) == ([1000, 1001, 999], 0)


def test_a_holdout_who_loses_their_last_chip_leaves_everyone_with_chips_agreed_and_the_game_ends() -> None:
    # p0 and p2 agree; p1 has not, holds 10 and bets them on 4S JH: the 2C is outside, p1 has nothing (the pot
    # 1010 + 10 = 1020). Everyone with chips has agreed: 510 each to p2 and p0 (p1, on the dealer's left, has none).
    t = Table(AGREE, *CARDS, "2C")
    t.rebalance([990, 10, 990])
    agree(t, "p0")
    agree(t, "p2")
    t.bet(10)
    assert (t.status, t.game.ended_reason, t.chips, t.pot) == (
        GameStatus.GAME_OVER,
        EndReason.AGREED,
        [1500, 0, 1500],
        0,
    )


def test_an_agreement_is_refused_twice_from_a_stranger_and_where_the_rule_set_has_no_such_ending() -> None:
    t = Table(AGREE, *CARDS)
    agree(t, "p2")
    with pytest.raises(WrongAction):
        agree(t, "p2")
    with pytest.raises(NotYourTurn):
        agree(t, "stranger")
    old = Table("inbetween/pagat-ante/v1", *CARDS)
    with pytest.raises(StopNotAllowed):
        agree(old, "p2")


def test_a_player_with_no_chips_takes_no_part_in_the_agreement() -> None:
    t = Table(AGREE, *CARDS)
    t.rebalance([990, 990, 0])
    with pytest.raises(WrongAction):
        agree(t, "p2")


def test_the_computer_agrees_once_every_person_has_and_never_before() -> None:
    # p1 is the only person; the computer holds p0 and p2. Before p1 agrees no computer does; after, both do and the
    # game ends with the pot shared, 10 each.
    t = Table(AGREE, *CARDS)
    held = {0: Computer(), 2: Computer()}
    assert computers_agreeing(t.game, t.rules, held) is None
    agree(t, "p1")
    assert computers_agreeing(t.game, t.rules, held) == AgreeToStop(player_id="p0")
    step = play_held_seats(t.game, t.shoe, ruleset=t.rules, held=held, source=t.rng, now=NOW)
    assert (step.game.status, step.game.ended_reason, step.game.agreed) == (
        GameStatus.GAME_OVER,
        EndReason.AGREED,
        (1, 0, 2),
    )
    assert [s.chips for s in step.game.seats] == [1000, 1000, 1000]
