"""The computer player: it bets from the exact odds of the unseen cards, sizes bets by Kelly, and beats a 1-chip player.

"Gap" is the number of ranks strictly between the posts. With a fresh pack (only the two posts seen) a gap of s ranks
wins on 4s of the 50 unseen cards, hits a post on 6 and loses on 44 - 4s, so with a post costing double a chip bet
gains (4s - (44 - 4s) - 2 x 6) / 50 = (8s - 56) / 50: positive from s = 8, exactly zero at s = 7. The bot bets on gaps
of 8 or more and passes on every narrower gap, such as the posts 5 and 9 (three ranks between).
"""

from __future__ import annotations

import math
import os
import random

import msgspec
import pytest

from paytables.inbetween import inbetween_rules
from paytables.inbetween.inbetween_actions import CallAce, CallPair, PassTurn, PlaceBet
from paytables.inbetween.inbetween_bot import (
    ace_call_value,
    best_ace_call,
    kelly_player,
    one_chip_player,
    play_computers,
)
from paytables.inbetween.inbetween_events import AceCall, PairCall, SeatSpec
from paytables.inbetween.inbetween_game import act, start_game
from paytables.inbetween.inbetween_simulate import play_game
from paytables.inbetween.inbetween_state import GameStatus, replay
from shoe.cards import RANKS
from shoe.shoe import new_shoe
from tests.unit.inbetween_oracle import RULESET_IDS
from tests.unit.inbetween_table import NOW, Table

NEPAL = "inbetween/nepal/v1"
Z_ONE_SIDED_0_0005 = 3.29
# Games a rule set plays against the one-chip player: 400 in `make test` (the smallest lead seen is 4.7 standard errors
# at 400 games, so the test keeps its power), 800 in `make fuzz`.
BOT_GAMES = int(os.environ.get("RD_BOT_GAMES", "400"))


def posts_table(low: int, high: int, chips: list[int] | None = None) -> Table:
    """A fresh nepal/v1 pack whose first two cards are posts of these ranks (1: an ace called low)."""
    first = "AS" if low == 1 else RANKS[low - 2] + "S"
    t = Table(NEPAL, first, RANKS[high - 2] + "H")
    if low == 1:
        t.call_ace(AceCall.LOW)
    if chips is not None:
        t.rebalance(chips)
    return t


@pytest.mark.parametrize(("low", "high"), [(low, high) for low in range(1, 14) for high in range(low + 2, 15)])
def test_with_post_double_and_a_fresh_pack_it_bets_on_gaps_of_eight_or_more_and_passes_below(
    low: int, high: int
) -> None:
    t = posts_table(low, high)
    gap = high - low - 1
    action = kelly_player(t.game, t.rules)
    if gap >= 8:
        assert isinstance(action, PlaceBet)
        assert action.amount >= 1
    else:
        assert action == PassTurn(player_id="p1")


def test_it_passes_on_the_posts_five_and_nine() -> None:
    t = posts_table(5, 9)
    assert kelly_player(t.game, t.rules) == PassTurn(player_id="p1")


@pytest.mark.parametrize(("gap", "bet"), [(8, 116), (9, 232), (10, 349), (11, 465)])
def test_its_bet_grows_with_the_edge_as_kellys_share_of_its_chips(gap: int, bet: int) -> None:
    # Edge (8s - 56) / 50 over a second moment of 68 / 50 at every gap: Kelly (8s - 56) / 68 of its 990 chips.
    t = posts_table(2, gap + 3, chips=[500, 990, 500])  # pot 1010: room for any of these bets
    assert kelly_player(t.game, t.rules) == PlaceBet(player_id="p1", amount=bet)


def test_its_bet_is_capped_by_the_pot_and_sized_by_its_own_chips() -> None:
    t = posts_table(2, 14)  # eleven ranks between: Kelly 32/68 of 990 is 465, but the pot holds 30
    assert kelly_player(t.game, t.rules) == PlaceBet(player_id="p1", amount=30)
    t = posts_table(2, 14, chips=[1500, 20, 1400])  # pot 80, but 32/68 of 20 chips is 9.4
    assert kelly_player(t.game, t.rules) == PlaceBet(player_id="p1", amount=9)


def test_under_sheets_rules_it_bets_at_least_the_ante() -> None:
    t = Table("inbetween/sheets/v1", "2S", "KH")
    # Eleven ranks between, a post triple: edge 26/50, second moment (44 + 9 x 6)/50, Kelly 26/98 of 20 chips is 5.3.
    t.rebalance([990, 20, 990])
    action = kelly_player(t.game, t.rules)
    assert action == PlaceBet(player_id="p1", amount=10)


@pytest.mark.parametrize(
    ("pair", "call"),
    [
        ("2", PairCall.HIGHER),
        ("5", PairCall.HIGHER),
        ("7", PairCall.HIGHER),
        ("9", PairCall.LOWER),
        ("Q", PairCall.LOWER),
    ],
)
def test_it_calls_a_pair_the_way_that_gains(pair: str, call: PairCall) -> None:
    # A pair of p with a fresh pack: higher gains (60 - 8p) / 50 a chip, lower (8p - 68) / 50.
    t = Table(NEPAL, pair + "S", pair + "H")
    assert kelly_player(t.game, t.rules) == CallPair(player_id="p1", call=call)


def test_it_passes_a_pair_of_eights_where_neither_call_gains() -> None:
    t = Table(NEPAL, "8S", "8H")  # higher: (60 - 64) / 50; lower: (64 - 68) / 50
    assert kelly_player(t.game, t.rules) == PassTurn(player_id="p1")


def test_with_a_fresh_pack_an_ace_is_worth_the_same_high_or_low_and_it_calls_high() -> None:
    # Low ace + c and high ace + (15 - c) leave the same number of ranks between and the same post cards; a second
    # ace makes 2..K win either way (the widest gap, or a pair of aces called lower).
    t = Table(NEPAL, "AS", "9H")
    assert ace_call_value(t.game, t.rules, AceCall.HIGH) == ace_call_value(t.game, t.rules, AceCall.LOW)
    assert kelly_player(t.game, t.rules) == CallAce(player_id="p1", call=AceCall.HIGH)


def test_with_the_high_cards_thinned_it_calls_an_ace_low() -> None:
    # Three of each king, queen and jack seen: a high ace's gaps reach into the thinned ranks, a low ace's do not.
    t = Table(NEPAL, "AS", "9H")
    seen = ("AS", "KS", "KH", "KD", "QS", "QH", "QD", "JS", "JH", "JD")
    game = msgspec.structs.replace(t.game, seen=seen)
    assert ace_call_value(game, t.rules, AceCall.LOW) > ace_call_value(game, t.rules, AceCall.HIGH)
    assert best_ace_call(game, t.rules) is AceCall.LOW


def test_the_one_chip_player_always_bets_the_least_it_may() -> None:
    t = Table(NEPAL, "4S", "6H")
    assert one_chip_player(t.game, t.rules) == PlaceBet(player_id="p1", amount=1)
    sheets = Table("inbetween/sheets/v1", "4S", "6H")
    assert one_chip_player(sheets.game, sheets.rules) == PlaceBet(player_id="p1", amount=10)


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_it_beats_a_player_who_always_bets_one_chip(ruleset_id: str) -> None:
    """Two-seat games, seats and the deal alternating: the bot's mean lead is over 3.29 standard errors above 0."""
    rules, rng, games = inbetween_rules.get(ruleset_id), random.Random(20241012), BOT_GAMES
    leads = []
    for number in range(games):
        bot = number % 2
        strategies = [kelly_player, one_chip_player] if bot == 0 else [one_chip_player, kelly_player]
        game = play_game(rules, strategies, ante=5, rounds=rules.terms.rounds[0], dealer=(number // 2) % 2, source=rng)
        assert game.status is GameStatus.GAME_OVER
        leads.append(game.seats[bot].chips - game.seats[1 - bot].chips)
    mean = sum(leads) / games
    sd = math.sqrt(sum((x - mean) ** 2 for x in leads) / (games - 1))
    assert mean / (sd / math.sqrt(games)) > Z_ONE_SIDED_0_0005


def test_computer_seats_play_on_until_a_human_must_act() -> None:
    rules, rng = inbetween_rules.get(NEPAL), random.Random(8)
    seats = [
        SeatSpec(player_id="human"),
        SeatSpec(player_id="bot1", computer=True),
        SeatSpec(player_id="bot2", computer=True),
    ]
    step = start_game(
        game_id="g", ruleset=rules, ante=10, rounds=5, seats=seats, shoe=new_shoe(1, rng), source=rng, now=NOW
    )
    for _ in range(40):
        step = play_computers(step.game, step.shoe, ruleset=rules, source=rng, now=NOW)
        game = step.game
        if game.status is GameStatus.GAME_OVER:
            break
        assert game.to_act == "human"  # the bots never stop the game: only the human seat does
        move = CallAce(player_id="human", call=AceCall.HIGH) if game.status is GameStatus.AWAITING_ACE_CALL else None
        step = act(game, step.shoe, move or PassTurn(player_id="human"), ruleset=rules, source=rng, now=NOW)
    assert step.game.status is GameStatus.GAME_OVER
    assert step.game.round == 5


def test_a_table_of_computers_plays_to_the_end_in_one_call() -> None:
    rules, rng = inbetween_rules.get("inbetween/pagat-banker/v1"), random.Random(8)
    seats = [SeatSpec(player_id=f"bot{i}", computer=True) for i in range(4)]
    step = start_game(
        game_id="g", ruleset=rules, ante=5, rounds=5, seats=seats, shoe=new_shoe(1, rng), source=rng, now=NOW
    )
    done = play_computers(step.game, step.shoe, ruleset=rules, source=rng, now=NOW)
    assert done.game.status is GameStatus.GAME_OVER
    assert replay([*step.events, *done.events]) == done.game
