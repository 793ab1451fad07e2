"""The terms issue 23 takes from the source pages, each played with forced cards; every number is worked by hand from
the page's words, quoted beside it (the pages are in /work/shared/sources/: pagat's In Between, the home In-Between
page, the Nepali online table).

Three players p0..p2 (seats numbered clockwise, so a seat's left is seat + 1, its right seat - 1), ante 10: after the
antes everyone holds 990 and the pot is 30.
"""

from __future__ import annotations

import msgspec
import pytest

from paytables.inbetween import inbetween_rules
from paytables.inbetween.inbetween_actions import BetBelowMinimum, BetOverPot, PassNotAllowed, PassTurn, PlaceBet
from paytables.inbetween.inbetween_bot import kelly_player
from paytables.inbetween.inbetween_events import (
    ChipReason,
    DealerDrawn,
    InBetweenChipsMoved,
    InBetweenDealerCard,
    InBetweenDealerChosen,
    InBetweenTurnStarted,
    TurnOutcome,
    computer_names,
    decode_events,
    encode_events,
)
from paytables.inbetween.inbetween_state import Game, GameStatus, replay
from shoe.cards import DECK
from tests.unit.inbetween_table import Table

NEPAL_V2 = "inbetween/nepal/v2"
HALF_POT = "inbetween/nepal-half-pot/v1"
PUSH = "inbetween/pagat-push/v1"
MIN_ANTE = "inbetween/pagat-min-ante/v1"
HOME_V2 = "inbetween/home/v2"
HOME_THREE = "inbetween/home-three/v1"
SIDE_BY_SIDE = ("7S", "8H", "7D", "8C", "7H", "8D")  # three turns that need no decision: no card fits
# pagat's sets draw the first dealer at random: "2S" is place 0 of the canonical deck (2S 2H 2D 2C 3S ... AC), and
# 0 mod 3 players is seat 0, so p0 deals and p1 plays first, as in every other test here.
P0_DEALS = "2S"
# home sets give a card to each player from seat 0, the highest dealing: a king to p2, so p2 deals and p0 plays first.
P2_HIGHEST = ("2C", "3C", "KC")


def turn_seats(t: Table) -> list[int]:
    return [e.seat for e in t.events if isinstance(e, InBetweenTurnStarted)]


def test_the_nepali_table_plays_to_the_dealers_right_and_the_deal_moves_right() -> None:
    # "starting with the player on the dealer's right and going round to the right (anticlockwise). The dealer plays
    # last, and the deal moves one seat to the right every round": p0 deals, so p2 (seat 0 - 1) plays first, then p1,
    # then p0; next round p2 deals and p1, p0, p2 play.
    t = Table(NEPAL_V2, *SIDE_BY_SIDE, "7C", "8S", "9S", "TH", "9D", "TC")
    assert t.game.order == (2, 1, 0)
    t.advance()
    t.advance()
    assert (turn_seats(t), t.status) == ([2, 1, 0], GameStatus.ROUND_OVER)
    t.advance()
    assert (t.game.dealer, t.game.order) == (2, (1, 0, 2))


def test_nepal_v1_still_plays_to_the_dealers_left() -> None:
    t = Table("inbetween/nepal/v1", *SIDE_BY_SIDE, "7C", "8S")
    t.advance()
    t.advance()
    t.advance()
    assert (t.game.dealer, t.game.order) == (1, (2, 0, 1))


def test_a_game_of_the_nepali_table_is_ten_rounds_unless_chosen() -> None:
    # "A game is 10 rounds, or 5 or 15 if you choose"
    v2 = inbetween_rules.get(NEPAL_V2)
    assert (v2.default_rounds, v2.terms.rounds) == (10, [5, 10, 15])
    assert Table(NEPAL_V2, "4S", "JH").game.rounds == 10
    assert inbetween_rules.get("inbetween/nepal/v1").default_rounds == 5  # v1's first choice, as it always was


@pytest.mark.parametrize("posts", [("7S", "8H"), ("8S", "8H"), ("KS", "AH")])
def test_equal_or_adjacent_posts_push_and_the_players_ante_is_returned(posts: tuple[str, str]) -> None:
    # pagat: "if a player's first two cards are equal or adjacent the result is a 'push': with these cards the
    # player's ante is returned": p1 takes back its 10 from the pot of 30. Aces are high ("A (high), K, ..."), so
    # K-A are side by side.
    t = Table(PUSH, P0_DEALS, *posts)
    assert (t.chips, t.pot, t.status) == ([990, 1000, 990], 20, GameStatus.TURN_OVER)
    assert t.game.turn is not None
    pair = posts[0][0] == posts[1][0]
    assert t.game.turn.outcome is (TurnOutcome.PAIR_PUSHED if pair else TurnOutcome.ADJACENT_PUSHED)
    moved = [e for e in t.events if isinstance(e, InBetweenChipsMoved) and e.reason is ChipReason.ANTE_RETURNED]
    assert [(e.seat, e.delta) for e in moved] == [(1, 10)]


def test_an_ante_returned_is_no_more_than_the_pot_holds() -> None:
    # Two players, ante 5, pot 10. "2H" is place 1 of the deck: 1 mod 2 is seat 1, so p1 deals and p0 plays first.
    # Each holds 995 after the antes. p0 bets 9 on 2S-KH and the 7D wins (1004): the pot holds 1. p1's posts 8S-8H
    # push, and the 1 chip left is all that can come back (996): the pot is empty and the round over.
    t = Table(PUSH, "2H", "2S", "KH", "7D", "8S", "8H", players=2, ante=5, rounds=5)
    t.bet(9)
    t.advance()
    assert (t.chips, t.pot, t.status) == ([1004, 996], 0, GameStatus.ROUND_OVER)


def test_an_ante_returned_does_not_end_a_game_played_until_the_pot_is_won() -> None:
    # pagat: "The game ends when a player wins the whole pot". The same cards until the pot is empty: the push takes
    # the last chip, and the next round's antes refill the pot (5 each) instead of the game ending.
    t = Table(PUSH, "2H", "2S", "KH", "7D", "8S", "8H", "4S", "JH", players=2, ante=5, rounds="until_empty")
    t.bet(9)
    t.advance()
    assert (t.status, t.pot) == (GameStatus.ROUND_OVER, 0)
    t.advance()
    assert (t.chips, t.pot) == ([999, 991], 10)


def test_where_every_player_must_bet_a_pass_is_refused() -> None:
    # the home page: "they have to usually bet a minimal of a single chip"
    t = Table(HOME_V2, *P2_HIGHEST, "5S", "9H", "7D")
    assert (t.game.dealer, t.game.turn and t.game.turn.seat) == (2, 0)
    with pytest.raises(PassNotAllowed):
        t.pass_turn()
    assert t.game.turn is not None
    assert t.game.turn.min_bet == 1
    t.bet(1)  # the 7 is between: p0 990 + 1
    assert (t.chips, t.pot) == ([991, 990, 990], 29)


def test_the_computer_bets_the_least_where_passing_is_not_allowed() -> None:
    # Posts 5 and 9 leave three ranks (12 cards of the 47 unseen) between; a chip bet loses on average, so where it
    # may pass it passes, and where it may not it bets the least, 1 chip.
    t = Table(HOME_V2, *P2_HIGHEST, "5S", "9H")
    assert kelly_player(t.game, t.rules) == PlaceBet(player_id="p0", amount=1)
    t = Table("inbetween/home/v1", "5S", "9H")
    assert kelly_player(t.game, t.rules) == PassTurn(player_id="p1")


def test_the_player_with_the_highest_card_deals_first() -> None:
    # the home page: "Any player deals 1 card face up to every single player in turn, and the player with the highest
    # card deals first": 2C to p0, 3C to p1, KC to p2; p2 deals, and p0 (on its left) plays first.
    t = Table(HOME_V2, *P2_HIGHEST, "4S", "JH")
    drawn = [(e.seat, e.card) for e in t.events if isinstance(e, InBetweenDealerCard)]
    assert drawn == [(0, "2C"), (1, "3C"), (2, "KC")]
    chosen = [(e.dealer, e.by) for e in t.events if isinstance(e, InBetweenDealerChosen)]
    assert chosen == [(2, DealerDrawn.HIGHEST_CARD)]
    assert (t.game.dealer, t.game.order) == (2, (0, 1, 2))
    assert t.game.count == 5  # the three cards drawn and the first turn's posts are all in the public count
    assert replay(t.events) == t.game  # recorded in the chain: the events alone choose the same dealer


def test_players_tied_for_the_highest_card_draw_again() -> None:
    # p1 and p2 both turn a king; they take another card each (3S, 4S) and p2's four is higher, so p2 deals.
    t = Table(HOME_V2, "5C", "KD", "KH", "3S", "4S", "9S", "TH")
    drawn = [(e.seat, e.card) for e in t.events if isinstance(e, InBetweenDealerCard)]
    assert drawn == [(0, "5C"), (1, "KD"), (2, "KH"), (1, "3S"), (2, "4S")]
    assert t.game.dealer == 2


def test_a_random_first_dealer_is_a_card_from_the_committed_pack() -> None:
    # pagat: the dealer may "be chosen by some convenient random method". AC is place 51 of the deck, among the last
    # 52 mod 3 = 1 places, so it is turned again; 3S is place 4, and 4 mod 3 is seat 1: p1 deals, p2 plays first.
    t = Table(PUSH, "AC", "3S", "4S", "JH")
    assert [(e.seat, e.card) for e in t.events if isinstance(e, InBetweenDealerCard)] == [(None, "AC"), (None, "3S")]
    assert (t.game.dealer, t.game.order) == (1, (2, 0, 1))


@pytest.mark.parametrize("players", range(2, 9))
def test_a_random_first_dealer_gives_every_seat_the_same_number_of_cards(players: int) -> None:
    # Of the 52 places, the first 52 - 52 mod n are kept and place p names seat p mod n: floor(52 / n) places each.
    counts = [0] * players
    for card in DECK[: 52 - 52 % players]:
        counts[Table(PUSH, card, players=players).game.dealer] += 1
    assert counts == [52 // players] * players


def test_a_minimum_bet_equal_to_the_ante_on_its_own() -> None:
    # pagat: "Some require each player to place at least a minimum bet equal to the ante."
    t = Table(MIN_ANTE, P0_DEALS, "4S", "JH", "7D")
    assert t.game.turn is not None
    assert (t.game.turn.min_bet, t.game.turn.max_bet) == (10, 30)
    with pytest.raises(BetBelowMinimum):
        t.bet(9)
    t.bet(10)
    assert (t.chips, t.pot) == ([990, 1000, 990], 20)


def test_only_half_the_pot_may_be_taken_in_the_first_round() -> None:
    # the Nepali table's house rule: "allow only half the pot in the first round": a pot of 30 lets a bet take 15.
    # Play goes right, so p2 plays first.
    t = Table(HALF_POT, "2S", "AH", "7D")
    assert t.game.turn is not None
    assert (t.game.turn.seat, t.game.turn.max_bet) == (2, 15)
    with pytest.raises(BetOverPot):
        t.bet(16)
    assert kelly_player(t.game, t.rules) == PlaceBet(player_id="p2", amount=15)  # 2..A: Kelly wants more than 15
    t.bet(15)
    assert (t.chips, t.pot) == ([990, 990, 1005], 15)


def test_after_every_player_has_had_a_turn_a_bet_may_take_the_whole_pot() -> None:
    # Round 1: three side-by-side turns, nothing paid, pot 30. Round 2 (p2 deals, p1 first): antes make it 60, and
    # the whole of it may be bet.
    t = Table(HALF_POT, *SIDE_BY_SIDE, "2S", "AH")
    t.advance()
    t.advance()
    t.advance()
    assert t.game.turn is not None
    assert (t.game.round, t.game.turn.seat, t.pot, t.game.turn.max_bet) == (2, 1, 60, 60)


def test_some_games_pay_three_chips_for_a_pair() -> None:
    # the home page: "If the two face-up cards are the same, the player wins two chips ... (In some games, the player
    # is paid 3 chips when this happens.)": p0's pair of eights takes 3 of the 30.
    t = Table(HOME_THREE, *P2_HIGHEST, "8S", "8H")
    assert (t.chips, t.pot) == ([993, 990, 990], 27)
    assert t.game.turn is not None
    assert (t.game.turn.outcome, t.game.turn.third_card) == (TurnOutcome.PAIR_PAID, None)


def test_a_computer_is_named_by_its_seat_unless_a_seat_asked_for_that_name() -> None:
    assert computer_names(["computer-1", None, None]) == ["computer-1", "computer-1-2", "computer-2"]
    # seat 0's computer-0 and computer-0-2 are both asked for by the seats after it: it is computer-0-3
    assert computer_names([None, "computer-0-2", "computer-0"]) == ["computer-0-3", "computer-0-2", "computer-0"]


def test_records_and_states_written_before_the_new_terms_still_decode_and_new_ones_under_old_sets_match_them() -> None:
    # A round start as every record before issue 23 spells it: no first_shoe, and none is written unless a bank plays
    # twice through the deck, so a nepal/v1 game's records keep their bytes.
    old = b'[{"kind":"ib_round_started","round":1,"dealer":0,"order":[1,0]}]'
    assert encode_events(decode_events(old)) == old
    t = Table("inbetween/nepal/v1", "4S", "JH")
    state = msgspec.json.encode(t.game).replace(b',"round_shoe":0', b"")  # a row stored before the field existed
    assert b"round_shoe" not in state
    assert msgspec.json.decode(state, type=Game) == t.game
