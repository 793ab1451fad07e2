"""When a shoe is shuffled, kept, retired and revealed: the one place that decides it.

A per-round shoe serves one round and retires when that round ends. A cut-card shoe stays with its table between
rounds; it retires when the cut card has come out and the next round needs a fresh shoe, when the table closes while
it is idle, or when a round ends on a table that has closed. A shoe's salt and order are published (revealed) only
once it has retired, never while a card of it may still be dealt.
"""

from __future__ import annotations

import msgspec

from paytables.red_dog.events import ShoeRevealed, ShoeShuffled
from shoe.shoe import Reveal, Shoe, ShoePolicy


class ShoeFate(msgspec.Struct, frozen=True, kw_only=True):
    """What becomes of a round's shoe when the round ends: the table keeps it, or it retires and is revealed."""

    table_shoe: Shoe | None  # what the table holds for its next round (None: nothing)
    revealed: tuple[ShoeRevealed, ...]
    table_holds_shoes: bool  # a cut-card table, whose row keeps its shoe between rounds


def policy_of(shoe: Shoe) -> ShoePolicy:
    return ShoePolicy.PER_ROUND if shoe.cut_position is None else ShoePolicy.CUT_CARD


def held_by_table(shoe: Shoe) -> bool:
    """A cut-card shoe belongs to its table between rounds and while one round plays from it."""
    return policy_of(shoe) is ShoePolicy.CUT_CARD


def shuffled(shoe: Shoe, *, round_id: str | None, forced: tuple[str, ...] = ()) -> ShoeShuffled:
    """The record that publishes a new shoe's commitment, before any card of it is dealt."""
    policy = policy_of(shoe)
    return ShoeShuffled(
        commitment=shoe.commitment,
        decks=shoe.decks,
        policy=policy,
        cut_position=shoe.cut_position,
        round_id=round_id if policy is ShoePolicy.PER_ROUND else None,
        forced_cards=forced,
    )


def revealed(shoe: Shoe, *, round_id: str | None = None) -> ShoeRevealed:
    return ShoeRevealed(
        commitment=shoe.commitment, salt=shoe.salt, order=shoe.order, dealt=shoe.position, round_id=round_id
    )


def needs_new_shoe(table_shoe: Shoe | None, forced: tuple[str, ...]) -> bool:
    """A cut-card table shuffles when it has no shoe, when the cut card is out, or when a test forces cards."""
    return table_shoe is None or bool(forced) or table_shoe.needs_reshuffle()


def at_round_end(shoe: Shoe, *, round_id: str, table_closed: bool) -> ShoeFate:
    """A per-round shoe retires with its round; a cut-card shoe goes back to its table unless the table closed."""
    cut_card = held_by_table(shoe)
    if cut_card and not table_closed:
        return ShoeFate(table_shoe=shoe, revealed=(), table_holds_shoes=True)
    own_round = None if cut_card else round_id
    return ShoeFate(table_shoe=None, revealed=(revealed(shoe, round_id=own_round),), table_holds_shoes=cut_card)


def is_retired(shoe: Shoe, table_shoe_commitment: str | None) -> bool:
    """Retired: a per-round shoe once its round ended; a cut-card shoe once its table no longer holds it."""
    return policy_of(shoe) is ShoePolicy.PER_ROUND or table_shoe_commitment != shoe.commitment


def reveal_to_show(round_open: bool, shoe: Shoe, table_shoe_commitment: str | None) -> Reveal | None:
    """What a round's reply may show of its shoe: the reveal once the round is over and the shoe retired."""
    if round_open or not is_retired(shoe, table_shoe_commitment):
        return None
    return shoe.reveal
