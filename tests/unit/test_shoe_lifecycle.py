"""When a shoe is revealed: per-round shoes with their round, cut-card shoes when their table lets them go."""

from __future__ import annotations

import random

from paytables.red_dog.shoe_lifecycle import at_round_end, is_retired, needs_new_shoe, reveal_to_show, shuffled
from shoe.shoe import Shoe, ShoePolicy, new_shoe, verify_reveal


def shoe(policy: ShoePolicy, *forced: str) -> Shoe:
    return new_shoe(1, random.Random(99), policy=policy, forced=forced)


def test_a_per_round_shoe_is_revealed_when_its_round_ends_and_names_the_round() -> None:
    dealt = shoe(ShoePolicy.PER_ROUND, "8S", "8H", "3D")
    for _ in range(3):
        _, _, dealt = dealt.deal()
    fate = at_round_end(dealt, round_id="r1", table_closed=False)
    (reveal,) = fate.revealed
    assert (fate.table_shoe, fate.table_holds_shoes) == (None, False)
    assert (reveal.round_id, reveal.dealt, reveal.commitment, reveal.salt) == ("r1", 3, dealt.commitment, dealt.salt)
    assert reveal.order.startswith("8S8H3D")
    assert len(reveal.order) == 2 * 52
    assert verify_reveal(reveal.commitment, dealt.reveal)


def test_a_cut_card_shoe_goes_back_to_its_open_table_unrevealed() -> None:
    table_shoe = shoe(ShoePolicy.CUT_CARD)
    fate = at_round_end(table_shoe, round_id="r1", table_closed=False)
    assert (fate.table_shoe, fate.revealed, fate.table_holds_shoes) == (table_shoe, (), True)


def test_a_cut_card_shoe_retires_when_its_round_ends_on_a_closed_table_and_belongs_to_no_round() -> None:
    table_shoe = shoe(ShoePolicy.CUT_CARD)
    fate = at_round_end(table_shoe, round_id="r1", table_closed=True)
    (reveal,) = fate.revealed
    assert (fate.table_shoe, fate.table_holds_shoes, reveal.round_id) == (None, True, None)


def test_a_round_shows_its_reveal_only_once_it_is_over_and_its_shoe_retired() -> None:
    per_round, cut_card = shoe(ShoePolicy.PER_ROUND), shoe(ShoePolicy.CUT_CARD)
    assert reveal_to_show(True, per_round, None) is None  # an open round never shows it
    assert reveal_to_show(False, per_round, None) == per_round.reveal
    assert reveal_to_show(False, cut_card, cut_card.commitment) is None  # the table still deals from it
    assert reveal_to_show(False, cut_card, None) == cut_card.reveal  # retired: the table holds none
    assert reveal_to_show(False, cut_card, "another shoe") == cut_card.reveal  # retired: replaced
    assert is_retired(per_round, per_round.commitment)


def test_a_cut_card_table_shuffles_when_it_has_no_shoe_the_cut_card_is_out_or_cards_are_forced() -> None:
    fresh = shoe(ShoePolicy.CUT_CARD)
    assert fresh.cut_position is not None
    assert needs_new_shoe(None, ())
    assert not needs_new_shoe(fresh, ())
    assert needs_new_shoe(fresh, ("AS", "2D"))
    past_cut = Shoe(**{**{f: getattr(fresh, f) for f in Shoe.__struct_fields__}, "position": fresh.cut_position})
    assert needs_new_shoe(past_cut, ())


def test_the_shuffle_record_names_the_round_only_for_a_per_round_shoe() -> None:
    assert shuffled(shoe(ShoePolicy.PER_ROUND), round_id="r1", forced=("AS",)).round_id == "r1"
    assert shuffled(shoe(ShoePolicy.PER_ROUND), round_id="r1", forced=("AS",)).forced_cards == ("AS",)
    assert shuffled(shoe(ShoePolicy.CUT_CARD), round_id="r1").round_id is None
