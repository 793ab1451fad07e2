"""A revealed order is a real shoe exactly when it holds every card `decks` times: checked against a plain count."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from audit.chain_check import extend
from audit.merkle import CompactRange
from audit.shoe_checks import card_codes, is_full_shoe
from shoe.cards import DECK
from shoe.shoe import new_shoe


def by_counting(order: str, decks: int) -> bool:
    """The rule in its plainest form: the two-character chunks are each card `decks` times."""
    chunks = [order[i : i + 2] for i in range(0, len(order), 2)]
    return len(order) % 2 == 0 and Counter(chunks) == Counter({card: decks for card in DECK})


@given(st.integers(1, 8), st.integers(0, 2**32))
def test_a_shuffled_shoe_is_a_full_shoe(decks: int, seed: int) -> None:
    order = new_shoe(decks, random.Random(seed)).order
    assert is_full_shoe(order, decks)
    assert sorted(card_codes(order)) == sorted(
        4 * "23456789TJQKA".index(c[0]) + "SHDC".index(c[1]) for c in DECK * decks
    )


@given(st.integers(1, 3), st.integers(0, 2**32), st.data())
def test_any_change_to_a_shoe_is_caught_as_the_plain_count_would_catch_it(
    decks: int, seed: int, data: st.DataObject
) -> None:
    cards = list(new_shoe(decks, random.Random(seed)).order)
    alphabet = "23456789TJQKASHDC0XZ#Aé"
    for _ in range(data.draw(st.integers(1, 3))):
        cards[data.draw(st.integers(0, len(cards) - 1))] = data.draw(st.sampled_from(alphabet))
    order = "".join(cards)
    assert is_full_shoe(order, decks) == by_counting(order, decks)


def test_stacked_and_malformed_orders_are_not_full_shoes() -> None:
    order = new_shoe(1, random.Random(1)).order
    assert not is_full_shoe(order[:-2] + order[:2], 1)  # a card twice, another missing
    assert not is_full_shoe(order[1:] + order[0], 1)  # suits where ranks belong
    assert not is_full_shoe(order.replace("AS", "0S"), 1)  # "0" is no rank, though "0" + "S" adds up like "AS"
    assert not is_full_shoe(order, 2)
    assert not is_full_shoe(order[:-2], 1)


@given(st.lists(st.binary(min_size=32, max_size=32), max_size=300), st.integers(0, 300))
def test_the_inlined_extend_is_the_compact_ranges_own(leaves: list[bytes], split: int) -> None:
    start = CompactRange().extend(leaves[:split])
    assert extend(start, leaves[split:]) == start.extend(leaves[split:])
