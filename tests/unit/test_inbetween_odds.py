"""Exact odds from the public count, checked against a card-by-card enumeration and closed forms worked by hand."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from paytables.inbetween.inbetween_events import PairCall
from paytables.inbetween.inbetween_odds import (
    TurnOdds,
    bet_value,
    edge_per_chip,
    kelly_fraction,
    third_card_odds,
    turn_odds,
)
from paytables.inbetween.inbetween_posts import LOW_ACE, Posts, PostsKind
from shoe.cards import DECK, rank
from tests.unit.inbetween_oracle import HOUSE_RULES, TurnFacts, expected_delta
from tests.unit.inbetween_table import Table

NEPAL_RULES = HOUSE_RULES["inbetween/nepal/v1"]  # a post costs double: +1 win, -1 lose, -2 post for a 1-chip bet


def by_rank(cards: list[str]) -> Counter[int]:
    return Counter(rank(card) for card in cards)


@st.composite
def situations(draw: st.DrawFn) -> tuple[str, str, bool, str | None, list[str]]:
    """Two posts, a low-ace call, a pair call, and the unseen cards left after some others were seen."""
    first, second = draw(st.sampled_from(DECK)), draw(st.sampled_from(DECK))
    low_ace = first[0] == "A" and draw(st.booleans())
    rest = [c for c in DECK if c not in (first, second)]
    seen = draw(st.sets(st.sampled_from(rest), max_size=45))
    unseen = [c for c in rest if c not in seen]
    pair_call = draw(st.sampled_from(["higher", "lower"])) if first[0] == second[0] and not low_ace else None
    return first, second, low_ace, pair_call, unseen


@given(situations())
def test_the_counts_match_a_card_by_card_enumeration_of_the_unseen_cards(
    situation: tuple[str, str, bool, str | None, list[str]],
) -> None:
    first, second, low_ace, pair_call, unseen = situation
    posts = Posts(first=LOW_ACE if low_ace else rank(first), second=rank(second))
    if posts.kind is PostsKind.ADJACENT or not unseen:
        return
    outcomes: Counter[int] = Counter()
    for card in unseen:  # a one-chip bet with chips to spare: +1 wins, -1 loses, -2 hits a post
        facts = TurnFacts(first, second, low_ace, pair_call, 1, card, chips=10, pot=10)
        outcomes[expected_delta(NEPAL_RULES, facts)] += 1
    call = None if pair_call is None else PairCall(pair_call)
    odds = third_card_odds(posts, by_rank(unseen), call)
    assert (odds.win, odds.lose, odds.post) == (outcomes[1], outcomes[-1], outcomes[-2])


def test_with_a_fresh_pack_a_gap_of_s_ranks_wins_on_4s_cards_hits_a_post_on_6_and_loses_on_the_rest() -> None:
    for low in range(2, 14):
        for high in range(low + 2, 15):
            s = high - low - 1
            unseen = [c for c in DECK if c not in (f"{DECK[4 * (low - 2)][0]}S", f"{DECK[4 * (high - 2)][0]}H")]
            odds = third_card_odds(Posts(first=low, second=high), by_rank(unseen))
            assert (odds.win, odds.post, odds.lose) == (4 * s, 6, 44 - 4 * s)


def test_with_a_post_costing_double_a_chip_bet_gains_8s_minus_56_over_50() -> None:
    for s in range(1, 12):
        odds = TurnOdds(win=4 * s, post=6, lose=44 - 4 * s)
        assert edge_per_chip(odds, 2) == Fraction(8 * s - 56, 50)
    assert edge_per_chip(TurnOdds(win=28, post=6, lose=16), 2) == 0  # seven ranks between: a fair bet


def test_kelly_bets_the_edge_over_the_second_moment() -> None:
    # Eight ranks between: edge 8/50; second moment (32 + 12 + 4 x 6) / 50 = 68/50; Kelly 8/68 = 2/17.
    assert kelly_fraction(TurnOdds(win=32, post=6, lose=12), 2) == Fraction(2, 17)
    assert kelly_fraction(TurnOdds(win=4, post=6, lose=40), 2) == 0


def test_a_bets_value_counts_a_post_as_no_more_than_the_chips_held() -> None:
    odds = TurnOdds(win=28, post=6, lose=16)
    assert bet_value(odds, 10, 1000, 2) == Fraction(280 - 160 - 6 * 20, 50)  # 0: a fair bet
    assert bet_value(odds, 10, 10, 2) == Fraction(280 - 160 - 6 * 10, 50)  # a post takes only the 10 held


def test_the_odds_shown_to_the_player_count_the_posts_as_seen() -> None:
    t = Table("inbetween/nepal/v1", "4S", "JH")
    assert turn_odds(t.game) == TurnOdds(win=24, post=6, lose=20)  # 5..10 win: 6 ranks x 4
    pair = Table("inbetween/nepal/v1", "8S", "8H")
    assert turn_odds(pair.game) is None  # not until the pair is called
