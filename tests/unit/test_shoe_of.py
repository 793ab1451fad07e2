"""`shoe_of`: a committed shoe over a given list of cards, as a pot game's reshuffle needs."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from shoe.cards import DECK
from shoe.shoe import ShoeError, shoe_of, verify_reveal


def test_a_shoe_of_given_cards_holds_exactly_those_cards_under_a_verifiable_commitment() -> None:
    cards = [c for c in DECK if c not in ("AS", "7H")]
    shoe = shoe_of(cards, random.Random(5))
    dealt = [shoe.card_at(i) for i in range(shoe.size)]
    assert shoe.size == 50
    assert sorted(dealt) == sorted(cards)
    assert shoe.position == 0
    assert verify_reveal(shoe.commitment, shoe.reveal)


def test_a_shoe_of_given_cards_is_shuffled_uniformly_enough_that_every_card_leads() -> None:
    cards = ["2S", "3S", "4S", "5S"]
    leads = Counter(shoe_of(cards, random.Random(seed)).card_at(0) for seed in range(4000))
    # Each of 4 cards leads with probability 1/4: 1000 expected, sd about 27; 5 sd either side.
    assert set(leads) == set(cards)
    assert all(865 <= n <= 1135 for n in leads.values())


def test_forced_cards_come_first_in_order_and_the_rest_follow() -> None:
    cards = [c for c in DECK if c[0] != "A"]
    shoe = shoe_of(cards, random.Random(1), forced=("KH", "2C"))
    assert (shoe.card_at(0), shoe.card_at(1)) == ("KH", "2C")
    assert sorted(shoe.card_at(i) for i in range(shoe.size)) == sorted(cards)


@pytest.mark.parametrize("cards", [[], ["ZZ"], ["AS", "10H"]])
def test_a_shoe_of_no_cards_or_of_bad_codes_is_refused(cards: list[str]) -> None:
    with pytest.raises(ShoeError):
        shoe_of(cards, random.Random(1))


def test_a_forced_card_that_is_not_among_the_cards_is_refused() -> None:
    with pytest.raises(ShoeError, match="no more AS"):
        shoe_of(["2S", "3S"], random.Random(1), forced=("AS",))
