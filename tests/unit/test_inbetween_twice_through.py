"""pagat's banking game "twice through the deck" (pagat-twice/v1), counted by hand.

pagat: "after everyone has played the dealer does not shuffle but continues to deal another round from the remainder
of the deck. If there are not enough cards remaining to deal everyone their first card, at that point all the cards
are shuffled and the deal is restarted. If the deck runs out after everyone has received their first card, then all
the used cards are shuffled and play continues. When the deck runs out for the second time, the cards are shuffled and
the round in play is completed, after which the game ends."

Three players: p0 deals and banks 100 (ten antes of 10); p1 and p2 play against it, one orbit being their two turns.
A turn that passes uses exactly its two posts (an ace first is called high, which deals no card), so the count of
cards is known whatever the cards are.
"""

from __future__ import annotations

from paytables.inbetween.inbetween_events import (
    AceCall,
    EndReason,
    InBetweenRoundEnded,
    InBetweenShoeShuffled,
    InBetweenTurnStarted,
)
from paytables.inbetween.inbetween_state import GameStatus, replay
from tests.unit.inbetween_table import Table

TWICE = "inbetween/pagat-twice/v1"


def pass_to_the_end(t: Table) -> None:
    """Every player passes every turn (an ace is called high) until the game is over."""
    while t.status is not GameStatus.GAME_OVER:
        if t.status is GameStatus.AWAITING_ACE_CALL:
            t.call_ace(AceCall.HIGH)
        elif t.status in (GameStatus.AWAITING_BET, GameStatus.AWAITING_PAIR_CALL):
            t.pass_turn()
        else:
            t.advance()


def turns_before_each_shuffle(t: Table) -> list[tuple[int, int, tuple[str, ...]]]:
    """(pack number, turns started before it was shuffled, cards kept out of it) for every pack after the first."""
    found, turns = [], 0
    for event in t.events:
        if isinstance(event, InBetweenTurnStarted):
            turns += 1
        if isinstance(event, InBetweenShoeShuffled) and event.shoe_number > 1:
            found.append((event.shoe_number, turns, event.excluded))
    return found


def test_with_every_turn_passing_the_bank_plays_two_packs_of_thirteen_orbits_and_the_game_ends() -> None:
    # Each orbit uses 2 turns x 2 posts = 4 cards, so a pack gives 13 orbits (26 turns). At the 14th orbit no card is
    # left for p1's first card: every card is shuffled (pack 2) and the deal goes on. Pack 2 gives 13 more; then it
    # cannot give the first cards either: the deck has run out a second time and the game (one bank) ends.
    t = Table(TWICE, "4S", "JH")
    assert (t.chips, t.pot, t.game.rounds) == ([900, 1000, 1000], 100, 1)  # one bank is the game unless chosen
    pass_to_the_end(t)
    assert turns_before_each_shuffle(t) == [(2, 26, ())]
    assert sum(isinstance(e, InBetweenTurnStarted) for e in t.events) == 52
    assert [e.round for e in t.events if isinstance(e, InBetweenRoundEnded)] == [1]
    assert (t.chips, t.pot, t.game.ended_reason) == ([1000, 1000, 1000], 0, EndReason.ROUNDS_PLAYED)
    assert replay(t.events) == t.game


def test_a_pack_that_runs_out_inside_a_turn_is_reshuffled_and_the_second_time_the_orbit_is_finished() -> None:
    # p1 bets 1 on 4S-JH and the 7D wins (1001; the pot 99): 3 cards, then 2 a turn. Before turn k (k >= 1, counting
    # from 0) 49 - 2(k - 1) cards are left: turn 25 (p2's, 26th) gets the last card as its first post and the pack
    # runs out for its second: the other 51 are shuffled into pack 2, the first post kept out. Pack 2 gives that
    # second post, then 50 cards to 25 turns (26..50); turn 51 (p2's) finds it empty for its first post: pack 3, and
    # p2's turn completes the 26th orbit; then the bank ends and p0 takes back the 99.
    t = Table(TWICE, "4S", "JH", "7D")
    t.bet(1)
    pass_to_the_end(t)
    shuffles = turns_before_each_shuffle(t)
    assert [(number, turns, len(kept)) for number, turns, kept in shuffles] == [(2, 26, 1), (3, 52, 0)]
    assert sum(isinstance(e, InBetweenTurnStarted) for e in t.events) == 52
    assert (t.chips, t.pot, t.status) == ([999, 1001, 1000], 0, GameStatus.GAME_OVER)
    assert replay(t.events) == t.game


def test_each_new_bank_begins_with_a_freshly_shuffled_pack() -> None:
    # Two banks: p0's, then p1's (the deal moves left). The second bank's pack is shuffled before its first turn, with
    # nothing kept out: packs 1 and 2 were the first bank's, pack 3 begins the second.
    t = Table(TWICE, "4S", "JH", rounds=5)
    pass_to_the_end(t)
    shuffles = turns_before_each_shuffle(t)
    assert shuffles[:2] == [(2, 26, ()), (3, 52, ())]
    assert t.game.round == 5
    assert t.chips == [1000, 1000, 1000]
