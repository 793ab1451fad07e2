"""With a hand per seat every seat keeps the shared deal's house edge; a seat that counts the others' cards gains."""

from __future__ import annotations

import functools
from collections import defaultdict
from fractions import Fraction

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from paytables.red_dog import loader
from paytables.red_dog.analysis import rtp
from paytables.red_dog.analysis.per_seat_deal_law import Composition, Landing, SeatLaw, fresh_composition, seat_law
from paytables.red_dog.analysis.red_dog_per_seat import (
    Edges,
    compute,
    counting_raises,
    edges_of_law,
    per_seat_edges,
    raise_value,
    third_rank,
)
from tests.unit.oracle import PAYTABLE_IDS, closed_form, expected
from tests.unit.per_seat_oracle import brute_force, can_change_a_decision

# (decks, seats) the real-order walk covers; two decks at three seats (about 10 s) runs with the slow tests only.
ENUMERATED = [(1, 2), (1, 3), (2, 2), pytest.param(2, 3, marks=pytest.mark.slow)]


@functools.cache
def law(composition: Composition, seats: int, seat: int) -> SeatLaw:
    return seat_law(composition, seats, seat)


@functools.cache
def walked(paytable_id: str, decks: int, seats: int, seat: int) -> Edges:
    """Both strategies' means at one seat of a fresh shoe, from the real-order walk and the rules."""
    spreads = raise_spreads(paytable_id, decks)
    return edges_of_law(loader.get(paytable_id), law(fresh_composition(decks), seats, seat), spreads)


def raise_spreads(paytable_id: str, decks: int) -> frozenset[int]:
    return frozenset(closed_form(paytable_id, decks).raise_spreads)


def composition(counts: dict[int, int]) -> Composition:
    return tuple(counts.get(r, 0) for r in range(2, 15))


def fresh_shoe_law(decks: int) -> dict[tuple[int, int, Landing], Fraction]:
    """The first three cards of a fresh shoe, by counting: the posts, then where the third card falls."""
    per_rank, size = 4 * decks, 52 * decks
    triples: dict[tuple[int, int, Landing], Fraction] = {}
    for a in range(2, 15):
        for b in range(2, 15):
            posts = Fraction(per_rank * (per_rank - (a == b)), size * (size - 1))
            gap = abs(a - b) - 1
            if gap == -1:
                match = Fraction(per_rank - 2, size - 2)
                triples[(a, b, Landing.MATCH)], triples[(a, b, Landing.MISS)] = posts * match, posts * (1 - match)
            elif gap == 0:
                triples[(a, b, Landing.NONE)] = posts
            else:
                between, on_post = Fraction(per_rank * gap, size - 2), Fraction(2 * (per_rank - 1), size - 2)
                triples[(a, b, Landing.BETWEEN)], triples[(a, b, Landing.POST)] = posts * between, posts * on_post
                if between + on_post < 1:  # A-2 leaves nothing outside
                    triples[(a, b, Landing.OUTSIDE)] = posts * (1 - between - on_post)
    return triples


@pytest.mark.parametrize(("decks", "seats"), ENUMERATED)
def test_every_seat_is_dealt_its_posts_and_third_card_with_the_law_of_a_fresh_shoes_first_three(
    decks: int, seats: int
) -> None:
    for seat in range(1, seats + 1):
        without_views: dict[tuple[int, int, Landing], Fraction] = defaultdict(Fraction)
        for (first, second, landing, _), p in law(fresh_composition(decks), seats, seat).items():
            without_views[(first, second, landing)] += p
        assert without_views == fresh_shoe_law(decks), f"seat {seat}"


@pytest.mark.parametrize(("decks", "seats"), ENUMERATED)
@pytest.mark.parametrize("paytable_id", PAYTABLE_IDS)
def test_every_seats_usual_house_edge_in_the_real_dealing_order_is_the_shared_deals_exactly(
    paytable_id: str, decks: int, seats: int
) -> None:
    paytable, shared = loader.get(paytable_id), closed_form(paytable_id, decks).house_edge
    assert Fraction(rtp.compute(paytable, decks).house_edge_fraction) == shared
    for seat in range(1, seats + 1):
        assert -walked(paytable_id, decks, seats, seat).usual_net == shared, f"seat {seat}"


@pytest.mark.parametrize(("decks", "seats"), ENUMERATED)
@pytest.mark.parametrize("paytable_id", PAYTABLE_IDS)
def test_the_counting_seats_edge_from_its_view_law_is_every_seats_edge_in_the_real_dealing_order(
    paytable_id: str, decks: int, seats: int
) -> None:
    paytable, spreads = loader.get(paytable_id), raise_spreads(paytable_id, decks)
    from_views = per_seat_edges(paytable, fresh_composition(decks), seats, spreads)
    for seat in range(1, seats + 1):
        assert walked(paytable_id, decks, seats, seat) == from_views


TINY_SHOES = [
    ({2: 2, 5: 3, 9: 1, 14: 1}, 2),
    ({3: 1, 4: 3, 6: 1, 8: 2, 12: 2}, 3),
    ({2: 2, 5: 2, 7: 1, 10: 2, 14: 2}, 3),
]


@pytest.mark.parametrize(("counts", "seats"), TINY_SHOES)
@pytest.mark.parametrize("paytable_id", PAYTABLE_IDS)
def test_on_tiny_shoes_every_order_of_the_cards_gives_what_the_walk_and_the_view_law_give(
    paytable_id: str, counts: dict[int, int], seats: int
) -> None:
    spreads = frozenset(range(4, 12))  # any fixed rule will do: the point is the deal, not the rule
    by_every_order = brute_force(paytable_id, counts, seats, spreads)
    from_views = per_seat_edges(loader.get(paytable_id), composition(counts), seats, spreads)
    for seat, (usual, counting) in enumerate(by_every_order, 1):
        walked = edges_of_law(loader.get(paytable_id), law(composition(counts), seats, seat), spreads)
        assert (walked.usual_net, walked.counting_net) == (usual, counting), f"seat {seat}"
        assert (from_views.usual_net, from_views.counting_net) == (usual, counting), f"seat {seat}"
    assert any(usual != counting for usual, counting in by_every_order)  # the two strategies really differ here


def test_with_four_seats_on_a_small_shoe_the_view_law_gives_what_the_walk_gives_at_every_seat() -> None:
    shoe = composition({2: 3, 4: 2, 6: 3, 9: 2, 11: 1, 14: 3})
    spreads = frozenset(range(5, 12))
    for paytable_id in PAYTABLE_IDS:
        from_views = per_seat_edges(loader.get(paytable_id), shoe, 4, spreads)
        assert from_views.counting_net != from_views.usual_net
        for seat in range(1, 5):
            assert edges_of_law(loader.get(paytable_id), law(shoe, 4, seat), spreads) == from_views


@pytest.mark.parametrize("decks", [1, 6, 8])
@pytest.mark.parametrize("paytable_id", PAYTABLE_IDS)
def test_at_one_and_three_seats_the_usual_edge_is_the_shared_one_and_one_seat_has_nothing_to_count(
    paytable_id: str, decks: int
) -> None:
    shared = closed_form(paytable_id, decks).house_edge
    alone, three = compute(loader.get(paytable_id), decks, 1), compute(loader.get(paytable_id), decks, 3)
    assert Fraction(alone.usual_house_edge_fraction) == Fraction(three.usual_house_edge_fraction) == shared
    assert Fraction(alone.shared_house_edge_fraction) == shared
    assert Fraction(alone.counting_house_edge_fraction) == shared
    assert Fraction(three.counting_house_edge_fraction) <= shared


@pytest.mark.parametrize("decks", [6, 8])
@pytest.mark.parametrize("paytable_id", PAYTABLE_IDS)
def test_at_six_and_eight_decks_three_seats_show_too_few_cards_to_change_any_decision(
    paytable_id: str, decks: int
) -> None:
    assert not can_change_a_decision(paytable_id, decks, seen=6)  # 4 other posts and up to 2 pairs' third cards
    figures = compute(loader.get(paytable_id), decks, 3)
    assert figures.counting_house_edge_fraction == figures.usual_house_edge_fraction
    assert (
        Fraction(figures.counting_raises_where_usual_calls) == Fraction(figures.counting_calls_where_usual_raises) == 0
    )


@pytest.mark.parametrize("paytable_id", PAYTABLE_IDS)
def test_with_one_deck_and_three_seats_counting_changes_decisions_and_lowers_the_edge(paytable_id: str) -> None:
    assert can_change_a_decision(paytable_id, 1, seen=4)
    figures = compute(loader.get(paytable_id), 1, 3)
    assert Fraction(figures.counting_gain_fraction) > 0
    assert Fraction(figures.counting_house_edge_fraction) + Fraction(figures.counting_gain_fraction) == Fraction(
        figures.usual_house_edge_fraction
    )
    assert Fraction(figures.counting_raises_where_usual_calls) > 0


def test_a_one_deck_counter_raises_a_generous_spread_of_three_once_it_has_seen_three_cards_outside() -> None:
    # 5-9 with 4 unseen of each of 6, 7, 8 (12 winners at 3:1) among 50 unseen loses 2/50 a unit; three cards
    # outside seen leave 12 winners among 47: 12 * 3 - 29 - 6 = +1.
    generous = loader.get("generous/v1")
    assert not counting_raises(generous, 3, (12, 6, 50))
    assert counting_raises(generous, 3, (12, 6, 47))
    assert not counting_raises(generous, 3, (11, 6, 46))  # one of them a winner: 11 * 3 - 29 - 6 < 0


views = st.tuples(st.integers(0, 40), st.integers(0, 14), st.integers(0, 60)).map(
    lambda t: (t[0], t[1], t[0] + t[1] + t[2] + 1)
)


@given(st.sampled_from(PAYTABLE_IDS), st.integers(1, 11), views)
def test_the_raise_value_is_the_unseen_count_times_the_oracles_gain_from_raising_one_unit(
    paytable_id: str, spread: int, view: tuple[int, int, int]
) -> None:
    between, posts, unseen = view
    low, high = 2, 2 + spread + 1
    outside_rank = high + 1 if high < 14 else None
    cards = [low + 1] * between + [low] * posts + ([outside_rank] * (unseen - between - posts) if outside_rank else [])
    assume(len(cards) == unseen)  # A-2 has no rank outside: only views with nothing outside exist
    gain = sum(
        expected(paytable_id, low, high, c, 1, 1).net - expected(paytable_id, low, high, c, 1, 0).net for c in cards
    )
    assert raise_value(loader.get(paytable_id), spread, view) == gain


@pytest.mark.parametrize(
    ("first", "second", "landing", "third"),
    [
        (5, 9, Landing.BETWEEN, 6),
        (9, 5, Landing.POST, 5),
        (5, 9, Landing.OUTSIDE, 10),
        (2, 14, Landing.POST, 2),
        (3, 14, Landing.OUTSIDE, 2),
        (7, 7, Landing.MATCH, 7),
        (14, 14, Landing.MISS, 13),
        (7, 8, Landing.NONE, None),
    ],
)
def test_a_landing_is_settled_with_a_third_card_that_lands_there(
    first: int, second: int, landing: Landing, third: int | None
) -> None:
    assert third_rank(first, second, landing) == third


def test_a_seat_that_cannot_be_dealt_is_refused() -> None:
    with pytest.raises(ValueError, match="cannot be dealt"):
        seat_law(composition({2: 4, 9: 4}), 3, 4)
    with pytest.raises(ValueError, match="cannot be dealt"):
        per_seat_edges(loader.get("standard/v1"), composition({2: 4, 9: 4}), 3, frozenset())


@pytest.mark.slow
@pytest.mark.parametrize("decks", [6, 8])
@pytest.mark.parametrize("paytable_id", PAYTABLE_IDS)
def test_at_six_and_eight_decks_seven_seats_change_decisions_only_where_a_post_loses_double(
    paytable_id: str, decks: int
) -> None:
    # Up to 12 other posts and 6 pairs' third cards. They move a post-double spread of 7 across zero only when none
    # falls between and at least 3 (six decks) or 11 (eight decks) match the seat's posts: rare, but possible.
    # Nothing moves a decision on the other tables.
    changeable = can_change_a_decision(paytable_id, decks, seen=18)
    assert changeable == (paytable_id == "post-double/v1")
    figures = compute(loader.get(paytable_id), decks, 7)
    assert Fraction(figures.usual_house_edge_fraction) == closed_form(paytable_id, decks).house_edge
    gain = Fraction(figures.counting_gain_fraction)
    assert (gain > 0) == changeable
    assert gain < Fraction(1, 10**9)
