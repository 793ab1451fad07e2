"""The shoes of a replayed chain: what each reveal must be, and the cut-card rule, checked as the records stream past.

A reveal must hash to its commitment, be exactly its decks' cards (not a stacked shoe) and start with any forced
cards. A cut-card shoe is dealt from until the cut card is out, then replaced between rounds; it is retired early
only when its table closes or a test round forces cards.
"""

from __future__ import annotations

import functools

from audit.round_rerun import RecordedRound
from paytables.red_dog.events import RoundOpened, ShoeRevealed, ShoeShuffled
from paytables.red_dog.table import TableSettings
from shoe.cards import RANKS, SUITS
from shoe.shoe import Reveal, Shoe, ShoePolicy, cut_position, verify_reveal


class ShoeTrack:
    """One shoe while its chain streams past: its shuffle record, the rounds dealt from it, the cards out so far."""

    __slots__ = ("dealt", "rounds", "shuffled")

    def __init__(self, shuffled: ShoeShuffled | None) -> None:
        self.shuffled = shuffled  # None: shuffled before the export starts
        self.rounds: list[RecordedRound] = []  # in the order they were opened, waiting for the reveal
        self.dealt = 0  # cards the records show dealt from it so far


class TableTrack:
    """One table: its settings, whether it has closed, and its cut-card shoe."""

    __slots__ = ("closed", "early", "held", "settings")

    def __init__(self) -> None:
        self.settings: TableSettings | None = None
        self.closed = False
        self.held: str | None = None  # the cut-card shoe in play
        self.early: str | None = None  # a cut-card shoe retired before its cut card: only forced cards excuse it


def name(commitment: str) -> str:
    return f"shoe {commitment[:16]}"


def on_shuffled(table: TableTrack, event: ShoeShuffled) -> list[str]:
    """A new shoe: it fits the table's settings, and a cut-card table had retired its last shoe for a reason."""
    problems = [] if table.settings is None else shuffle_problems(event, table.settings)
    if event.policy is ShoePolicy.CUT_CARD:
        if table.held is not None:
            problems.append(f"shuffled while {name(table.held)} was in play")
        if table.early is not None and not event.forced_cards:
            problems.append(f"{name(table.early)} was retired before its cut card came out")
        table.held, table.early = event.commitment, None
    return [f"{name(event.commitment)}: {p}" for p in problems]


def shuffle_problems(event: ShoeShuffled, settings: TableSettings) -> list[str]:
    problems = []
    if event.decks != settings.decks or event.policy is not settings.shoe_policy:
        problems.append(f"{event.decks} deck(s) {event.policy}, the table is {settings.decks} {settings.shoe_policy}")
    if event.policy is ShoePolicy.CUT_CARD and settings.penetration is not None:
        expected = cut_position(52 * event.decks, settings.penetration)
        if event.cut_position != expected:
            problems.append(f"cut at {event.cut_position}, {settings.penetration}% penetration cuts at {expected}")
    if event.forced_cards and not settings.test:
        problems.append("forced cards on a live table")
    return problems


def on_opened(shoe: ShoeTrack, event: RoundOpened) -> list[str]:
    """A round dealt from a shoe: a per-round shoe serves its own round only, a cut-card shoe stops at the cut."""
    shuffled = shoe.shuffled
    if shuffled is None:
        return []
    problems = []
    if shuffled.policy is ShoePolicy.PER_ROUND and (shuffled.round_id != event.round_id or len(shoe.rounds) > 1):
        problems.append(f"its per-round {name(event.commitment)} was shuffled for round {shuffled.round_id}")
    if shuffled.cut_position is not None and shoe.dealt >= shuffled.cut_position:
        problems.append(
            f"dealt from {name(event.commitment)} after its cut card ({shoe.dealt} out, cut at {shuffled.cut_position})"
        )
    return problems


def on_revealed(table: TableTrack, shoe: ShoeTrack, event: ShoeRevealed, decks: int) -> list[str]:
    """A retired shoe: the reveal is the committed shoe, the table's shoe is gone, an early retirement is noted."""
    problems = reveal_problems(event, shoe.shuffled, decks)
    shuffled = shoe.shuffled
    if shuffled is not None and shuffled.policy is ShoePolicy.CUT_CARD:
        if table.held == event.commitment:
            table.held = None
        if shuffled.cut_position is not None and event.dealt < shuffled.cut_position and not table.closed:
            table.early = event.commitment
    if shuffled is not None and shuffled.policy is ShoePolicy.PER_ROUND and shoe.rounds:
        own = shoe.rounds[0].round_id
        if event.round_id != own:
            problems.append(f"{name(event.commitment)} is revealed for round {event.round_id}, not its round {own}")
    return problems


# Each card as one byte 0..51 (4 x rank + suit), computed for the whole order at once: the rank table maps ranks
# to 0, 4, .., 48 and the suit table suits to 0..3, anything else to 64, so a stray character (or a suit where a
# rank belongs) gives a code of 64 or more that no card has. Rank and suit bytes are added pairwise inside one big
# integer; every sum stays below 256, so no pair carries into its neighbour.
_NOT_A_CARD = 64
_RANK_TABLE = bytes(4 * RANKS.index(chr(b)) if chr(b) in RANKS else _NOT_A_CARD for b in range(256))
_SUIT_TABLE = bytes(SUITS.index(chr(b)) if chr(b) in SUITS else _NOT_A_CARD for b in range(256))
_CODES = tuple(bytes([code]) for code in range(52))


@functools.cache
def _low_bytes(cards: int) -> int:
    """0x00FF repeated once a card: picks each card's second byte out of the big integer."""
    return int.from_bytes(b"\x00\xff" * cards, "big")


def card_codes(order: str) -> bytes:
    """One byte per card of an ASCII order, 4 x rank + suit for a card code and 64 or more for anything else."""
    data = order.encode("ascii")
    cards, low = len(data) // 2, _low_bytes(len(data) // 2)
    ranks = (int.from_bytes(data.translate(_RANK_TABLE), "big") >> 8) & low
    suits = int.from_bytes(data.translate(_SUIT_TABLE), "big") & low
    return (ranks + suits).to_bytes(2 * cards, "big")[1::2]


def is_full_shoe(order: str, decks: int) -> bool:
    """Every card of `decks` decks exactly `decks` times, nothing else: the order is a real shoe, not a stacked one."""
    if len(order) != 104 * decks or not order.isascii():
        return False
    return list(map(card_codes(order).count, _CODES)) == [decks] * 52


def reveal_problems(revealed: ShoeRevealed, shuffled: ShoeShuffled | None, decks: int) -> list[str]:
    """Why a reveal cannot be the shoe its commitment promised (empty when it is)."""
    problems = []
    if not verify_reveal(revealed.commitment, Reveal(salt=revealed.salt, order=revealed.order)):
        problems.append("its salt and order do not hash to its commitment")
    if not is_full_shoe(revealed.order, decks):
        problems.append(f"its order is not {decks} full deck(s) of cards")
    forced = "" if shuffled is None else "".join(shuffled.forced_cards)
    if not revealed.order.startswith(forced):
        problems.append(f"its order does not start with the forced cards {forced}")
    return [f"{name(revealed.commitment)}: {problem}" for problem in problems]


def shoe_at(revealed: ShoeRevealed, decks: int, position: int, cut: int | None) -> Shoe:
    """The revealed shoe as the game core holds it, `position` cards already dealt."""
    return Shoe(
        decks=decks,
        order=revealed.order,
        salt=revealed.salt,
        commitment=revealed.commitment,
        position=position,
        cut_position=cut,
    )
