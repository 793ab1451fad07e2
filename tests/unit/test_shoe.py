"""The shoe: every card the right number of times, a uniform shuffle, a binding commitment, dealing and the cut card."""

from __future__ import annotations

import hashlib
import math
import random
from collections import Counter
from statistics import NormalDist

import msgspec
import pytest

from shoe.cards import DECK, CardError, rank
from shoe.random_source import randbelow
from shoe.shoe import (
    Reveal,
    Shoe,
    ShoeError,
    ShoePolicy,
    cut_position,
    decode_shoe,
    encode_shoe,
    fresh_deck_cards,
    new_shoe,
    verify_reveal,
)

SHUFFLES = 20_000
# The chi-square critical value for 51 degrees of freedom at p = 0.001 (tables give 87.968); checked below.
CHI_SQUARE_51_P001 = 87.97


def chi_square_survival_odd_dof(x: float, dof: int) -> float:
    """P(X > x) for a chi-square with odd degrees of freedom, by the closed-form series in the normal tail."""
    root = math.sqrt(x)
    tail = 2 * NormalDist().cdf(-root)
    term, total = root, 0.0
    for j in range(1, (dof - 1) // 2 + 1):
        total += term
        term *= x / (2 * j + 1)
    return tail + 2 * NormalDist().pdf(root) * total


def chi_square_against_uniform(counts: Counter[str], cells: int, total: int) -> float:
    expected = total / cells
    return sum((counts[card] - expected) ** 2 / expected for card in DECK)


def test_the_critical_value_is_the_0_1_percent_tail_of_chi_square_with_51_degrees_of_freedom() -> None:
    assert chi_square_survival_odd_dof(CHI_SQUARE_51_P001, 51) == pytest.approx(0.001, rel=1e-3)
    assert chi_square_survival_odd_dof(3.841459, 1) == pytest.approx(0.05, rel=1e-5)  # the textbook 95% point


def position_counts(shuffle: list[list[str]], positions: tuple[int, ...]) -> dict[int, Counter[str]]:
    return {p: Counter(order[p] for order in shuffle) for p in positions}


def test_every_card_is_equally_likely_at_the_front_the_next_places_and_the_back() -> None:
    rng = random.Random(52)
    orders = []
    for _ in range(SHUFFLES):
        shoe = new_shoe(1, rng)
        orders.append([shoe.card_at(i) for i in (0, 1, 2, 51)])
    for slot, position in enumerate((0, 1, 2, 51)):
        counts = Counter(order[slot] for order in orders)
        assert chi_square_against_uniform(counts, 52, SHUFFLES) < CHI_SQUARE_51_P001, position


def test_the_chi_square_check_catches_the_classic_naive_shuffle() -> None:
    # Swapping each card with any position (not only later ones) is biased; the same check must see it.
    rng = random.Random(52)
    counts: Counter[str] = Counter()
    for _ in range(SHUFFLES):
        cards = list(DECK)
        for i in range(len(cards)):
            j = randbelow(len(cards), rng)
            cards[i], cards[j] = cards[j], cards[i]
        counts[cards[0]] += 1
    assert chi_square_against_uniform(counts, 52, SHUFFLES) > CHI_SQUARE_51_P001


@pytest.mark.parametrize("decks", range(1, 9))
def test_a_shoe_holds_each_card_exactly_once_per_deck(decks: int) -> None:
    shoe = new_shoe(decks, random.Random(decks))
    cards = [shoe.card_at(i) for i in range(shoe.size)]
    assert shoe.size == 52 * decks
    assert Counter(cards) == {card: decks for card in DECK}


def test_the_deck_has_fifty_two_distinct_cards_with_aces_high() -> None:
    assert len(set(DECK)) == 52
    assert Counter(rank(card) for card in DECK) == {r: 4 for r in range(2, 15)}
    assert (rank("AS"), rank("TD"), rank("2C")) == (14, 10, 2)


@pytest.mark.parametrize("code", ["1S", "AX", "A", "ASS", "as", ""])
def test_a_string_that_is_not_a_card_code_has_no_rank(code: str) -> None:
    with pytest.raises(CardError):
        rank(code)


@pytest.mark.parametrize("decks", [0, 9])
def test_a_shoe_of_too_few_or_too_many_decks_is_refused(decks: int) -> None:
    with pytest.raises(ShoeError, match="decks"):
        fresh_deck_cards(decks)


def test_the_commitment_is_sha256_of_the_salt_then_the_order() -> None:
    shoe = new_shoe(2, random.Random(1))
    assert len(bytes.fromhex(shoe.salt)) == 32
    assert shoe.commitment == hashlib.sha256(bytes.fromhex(shoe.salt) + shoe.order.encode("ascii")).hexdigest()
    assert verify_reveal(shoe.commitment, shoe.reveal)


def test_two_shoes_from_one_source_have_different_salts_and_orders() -> None:
    rng = random.Random(2)
    one, two = new_shoe(1, rng), new_shoe(1, rng)
    assert one.salt != two.salt
    assert one.order != two.order


def test_changing_any_byte_of_the_salt_breaks_the_reveal() -> None:
    shoe = new_shoe(1, random.Random(3))
    salt = bytes.fromhex(shoe.salt)
    for i in range(len(salt)):
        for flip in (0x01, 0x80, 0xFF):
            changed = salt[:i] + bytes([salt[i] ^ flip]) + salt[i + 1 :]
            assert not verify_reveal(shoe.commitment, Reveal(salt=changed.hex(), order=shoe.order)), (i, flip)


def test_changing_any_character_of_the_order_breaks_the_reveal() -> None:
    shoe = new_shoe(1, random.Random(4))
    for i, char in enumerate(shoe.order):
        alphabet = "23456789TJQKA" if i % 2 == 0 else "SHDC"
        for other in alphabet.replace(char, "")[:3]:
            order = shoe.order[:i] + other + shoe.order[i + 1 :]
            assert not verify_reveal(shoe.commitment, Reveal(salt=shoe.salt, order=order)), (i, other)


def test_swapping_two_cards_of_the_order_breaks_the_reveal() -> None:
    shoe = new_shoe(1, random.Random(5))
    cards = [shoe.card_at(i) for i in range(shoe.size)]
    for i in range(shoe.size - 1):
        swapped = [*cards[:i], cards[i + 1], cards[i], *cards[i + 2 :]]
        assert not verify_reveal(shoe.commitment, Reveal(salt=shoe.salt, order="".join(swapped))), i


def test_a_reveal_that_moves_cards_from_the_order_into_the_salt_is_refused() -> None:
    # sha256(salt + order) alone cannot tell where the salt ends; the reveal must fix it at 32 bytes.
    shoe = new_shoe(1, random.Random(6))
    shifted = Reveal(salt=shoe.salt + shoe.order[:2].encode("ascii").hex(), order=shoe.order[2:])
    assert not verify_reveal(shoe.commitment, shifted)


@pytest.mark.parametrize(
    "reveal",
    [Reveal(salt="not hex", order=""), Reveal(salt="00" * 32, order="AS\u00e9")],
    ids=["salt-not-hex", "order-not-ascii"],
)
def test_a_malformed_reveal_fails_verification_rather_than_raising(reveal: Reveal) -> None:
    assert not verify_reveal(new_shoe(1, random.Random(7)).commitment, reveal)


def test_dealing_returns_the_cards_in_order_and_leaves_the_dealt_shoe_unchanged() -> None:
    start = new_shoe(1, random.Random(8))
    shoe, dealt = start, []
    for expected_index in range(start.size):
        card, index, shoe = shoe.deal()
        assert index == expected_index
        dealt.append(card)
    assert "".join(dealt) == start.order
    assert (start.position, shoe.position) == (0, 52)
    with pytest.raises(ShoeError, match="empty"):
        shoe.deal()


def test_a_shoe_survives_encoding_and_decoding_unchanged() -> None:
    shoe = new_shoe(6, random.Random(9), policy=ShoePolicy.CUT_CARD, penetration=60)
    for _ in range(5):
        _, _, shoe = shoe.deal()
    assert decode_shoe(encode_shoe(shoe)) == shoe
    fresh = new_shoe(1, random.Random(10))
    assert decode_shoe(encode_shoe(fresh)) == fresh


def test_a_packed_shoe_is_a_byte_a_card_after_its_header_salt_and_commitment() -> None:
    # 0xc1, decks 1, position 1, no cut card (0xffff), a 32-byte salt, the salt, the commitment, then the cards:
    # AS is rank index 12 (A in 23456789TJQKA) + 16 x suit index 0 (S in SHDC) = 0x0c; TD is 8 + 16 x 2 = 0x28.
    shoe = Shoe(decks=1, order="ASTD", salt="00" * 32, commitment="ab" * 32, position=1)
    expected = b"\xc1\x01\x00\x01\xff\xff\x20" + bytes(32) + b"\xab" * 32 + b"\x0c\x28"
    assert encode_shoe(shoe) == expected
    assert decode_shoe(expected) == shoe


def test_a_six_deck_shoe_packs_into_383_bytes_where_msgpack_took_over_800() -> None:
    shoe = new_shoe(6, random.Random(12), policy=ShoePolicy.CUT_CARD, penetration=75)
    assert len(encode_shoe(shoe)) == 7 + 32 + 32 + 6 * 52  # the header, salt, commitment and a byte a card
    assert len(msgspec.msgpack.encode(shoe)) > 800


def test_a_shoe_stored_as_msgpack_by_an_earlier_release_still_decodes() -> None:
    shoe = new_shoe(2, random.Random(13), policy=ShoePolicy.CUT_CARD, penetration=60)
    assert decode_shoe(msgspec.msgpack.encode(shoe)) == shoe


def test_a_shoe_the_packing_cannot_hold_is_kept_as_msgpack_and_comes_back_the_same() -> None:
    upper = Shoe(decks=1, order="ASTD", salt="AB" * 32, commitment="ab" * 32)  # hex that would come back lower case
    odd = Shoe(decks=1, order="ASX", salt="ab" * 32, commitment="ab" * 32)  # not whole card codes
    for shoe in (upper, odd):
        assert encode_shoe(shoe) == msgspec.msgpack.encode(shoe)
        assert decode_shoe(encode_shoe(shoe)) == shoe


def test_decoding_bytes_that_are_not_a_shoe_is_refused() -> None:
    with pytest.raises(msgspec.ValidationError):
        decode_shoe(msgspec.msgpack.encode({"decks": 1}))


def test_a_cut_card_shoe_asks_for_a_reshuffle_from_the_cut_card_on_and_never_before() -> None:
    shoe = new_shoe(2, random.Random(11), policy=ShoePolicy.CUT_CARD, penetration=75)
    assert shoe.cut_position == 104 * 75 // 100
    for position in range(shoe.size):
        assert shoe.position == position
        assert shoe.needs_reshuffle() == (position >= 78), position
        _, _, shoe = shoe.deal()


def test_a_per_round_shoe_is_always_replaced() -> None:
    shoe = new_shoe(1, random.Random(12))
    assert shoe.cut_position is None
    assert shoe.needs_reshuffle()


def test_the_cut_card_always_leaves_room_to_finish_a_round() -> None:
    for decks in range(1, 9):
        for penetration in range(10, 91):
            assert 0 < cut_position(52 * decks, penetration) <= 52 * decks - 3


@pytest.mark.parametrize("penetration", [0, 9, 91, 100])
def test_a_penetration_outside_ten_to_ninety_percent_is_refused(penetration: int) -> None:
    with pytest.raises(ShoeError, match="penetration"):
        new_shoe(1, random.Random(13), policy=ShoePolicy.CUT_CARD, penetration=penetration)
    with pytest.raises(ShoeError, match="penetration"):
        cut_position(52, penetration)


def test_forced_cards_come_out_first_and_the_shoe_keeps_its_cards() -> None:
    forced = ("AS", "AS", "2H")
    shoe = new_shoe(2, random.Random(14), forced=forced)
    dealt = []
    for _ in forced:
        card, _, shoe = shoe.deal()
        dealt.append(card)
    assert tuple(dealt) == forced
    assert Counter(shoe.card_at(i) for i in range(shoe.size)) == {card: 2 for card in DECK}
    assert verify_reveal(shoe.commitment, shoe.reveal)


def test_forcing_cards_leaves_the_rest_of_the_shuffle_in_its_order() -> None:
    forced = ("KD", "7C", "KD")
    plain = new_shoe(2, random.Random(15))
    rigged = new_shoe(2, random.Random(15), forced=forced)
    rest = [plain.card_at(i) for i in range(plain.size)]
    for card in forced:  # the forced copies are taken from the back of the shuffled shoe
        del rest[len(rest) - 1 - rest[::-1].index(card)]
    assert [rigged.card_at(i) for i in range(len(forced), rigged.size)] == rest


def test_forcing_more_copies_than_the_shoe_holds_is_refused() -> None:
    with pytest.raises(ShoeError, match="AS"):
        new_shoe(2, random.Random(16), forced=("AS", "AS", "AS"))


def test_forcing_something_that_is_not_a_card_is_refused() -> None:
    with pytest.raises(ShoeError, match="card code"):
        new_shoe(1, random.Random(17), forced=("ZZ",))
