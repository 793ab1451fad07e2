"""The multi-deck shoe: Fisher-Yates order (random_source.shuffled), sha256 commitment before dealing, reveal later."""

from __future__ import annotations

import enum
import functools
import hashlib
import hmac
from typing import TypeVar

import msgspec

from shoe.cards import DECK, RANKS, SUITS, is_card
from shoe.random_source import RandomSource, randbelow, random_bytes, shuffled

MIN_DECKS = 1
MAX_DECKS = 8
SALT_BYTES = 32
MAX_ROUND_CARDS = 3
T = TypeVar("T")


class ShoePolicy(enum.StrEnum):
    PER_ROUND = "per_round"
    CUT_CARD = "cut_card"


class ShoeError(ValueError):
    """A shoe that cannot be built or dealt as asked."""


class Reveal(msgspec.Struct, frozen=True, kw_only=True):
    """What is published when a shoe is retired: enough to recompute its commitment."""

    salt: str  # hex
    order: str  # the card codes concatenated in dealing order


class Shoe(msgspec.Struct, frozen=True, kw_only=True):
    """A shuffled shoe and how far it has been dealt; immutable, dealing returns a new value."""

    decks: int
    order: str
    salt: str
    commitment: str
    position: int = 0
    cut_position: int | None = None  # None: per-round shoe, never reused

    @property
    def size(self) -> int:
        return len(self.order) // 2

    @property
    def reveal(self) -> Reveal:
        return Reveal(salt=self.salt, order=self.order)

    def card_at(self, index: int) -> str:
        return self.order[2 * index : 2 * index + 2]

    def deal(self) -> tuple[str, int, Shoe]:
        """The next card, its index in the shoe, and the shoe after dealing it."""
        if self.position >= self.size:
            raise ShoeError("the shoe is empty")
        card = self.card_at(self.position)
        return card, self.position, msgspec.structs.replace(self, position=self.position + 1)

    def needs_reshuffle(self) -> bool:
        """A cut-card shoe is replaced between rounds once the cut card has come out; never mid-round."""
        return self.cut_position is None or self.position >= self.cut_position


def fresh_deck_cards(decks: int) -> list[str]:
    """The cards of `decks` new decks in factory order."""
    if not MIN_DECKS <= decks <= MAX_DECKS:
        raise ShoeError(f"decks must be {MIN_DECKS}..{MAX_DECKS}, got {decks}")
    return list(DECK) * decks


def shuffle_prefix(cards: list[T], count: int, source: RandomSource) -> None:
    """Fisher-Yates over the first `count` positions in place; each prefix is uniform over all arrangements."""
    n = len(cards)
    for i in range(min(count, n - 1)):
        j = i + randbelow(n - i, source)
        cards[i], cards[j] = cards[j], cards[i]


def commit(salt: bytes, order: str) -> str:
    """The commitment: sha256 over the salt then the ASCII card order, as hex."""
    return hashlib.sha256(salt + order.encode("ascii")).hexdigest()


def verify_reveal(commitment: str, reveal: Reveal) -> bool:
    """True when the revealed salt and order hash to the published commitment."""
    try:
        salt = bytes.fromhex(reveal.salt)
        expected = commit(salt, reveal.order)
    except (ValueError, UnicodeEncodeError):
        return False
    if len(salt) != SALT_BYTES:
        # A longer salt could swallow the first cards of the order and still hash the same: fix where salt ends.
        return False
    return hmac.compare_digest(expected, commitment)


def new_shoe(
    decks: int,
    source: RandomSource,
    *,
    policy: ShoePolicy = ShoePolicy.PER_ROUND,
    penetration: int = 75,
    forced: tuple[str, ...] = (),
) -> Shoe:
    """A freshly shuffled, committed shoe. `forced` cards (test tables only) are moved to the front in order."""
    cards = shuffled(fresh_deck_cards(decks), source)
    if forced:
        cards = _force_front(cards, forced)
    order = "".join(cards)
    salt = random_bytes(SALT_BYTES, source)
    return Shoe(
        decks=decks,
        order=order,
        salt=salt.hex(),
        commitment=commit(salt, order),
        cut_position=cut_position(len(cards), penetration) if policy is ShoePolicy.CUT_CARD else None,
    )


def cut_position(size: int, penetration: int) -> int:
    """Where the cut card sits for a penetration in percent; leaves room to finish any round."""
    if not 10 <= penetration <= 90:
        raise ShoeError(f"penetration must be 10..90 percent, got {penetration}")
    return min(size * penetration // 100, size - MAX_ROUND_CARDS)


def _force_front(cards: list[str], forced: tuple[str, ...]) -> list[str]:
    rest = list(cards)
    for card in forced:
        if not is_card(card):
            raise ShoeError(f"not a card code: {card!r}")
        # Take the forced card from the back so the shuffled front keeps its order otherwise.
        try:
            index = len(rest) - 1 - rest[::-1].index(card)
        except ValueError:
            raise ShoeError(f"the shoe has no more {card} to force") from None
        del rest[index]
    return [*forced, *rest]


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(Shoe)


def encode_shoe(shoe: Shoe, *, packed: bool = True) -> bytes:
    """The shoe's state as bytes, for keeping it in the database between requests: packed (a byte a card, the salt
    and commitment as raw bytes: 383 bytes for six decks against 813 as msgpack, written with every round row
    and twice for a round with a decision), or msgpack (asked for, or for a shoe the packing cannot hold: what
    releases before the packing read)."""
    packing = _packed(shoe) if packed else None
    return _encoder.encode(shoe) if packing is None else packing


def decode_shoe(data: bytes) -> Shoe:
    """A shoe back from `encode_shoe` bytes, either form (msgpack is what every release before the packing wrote)."""
    if data[:1] == _PACKED:
        return _unpacked(data)
    return _decoder.decode(data)


# A packed shoe starts with 0xc1, the one byte msgpack never writes, so it cannot be taken for msgpack, then:
# decks (1 byte), position and cut position (2 bytes each, big-endian; 0xffff for none), the salt's length (1 byte),
# the salt, the commitment (32 bytes), then each card as one byte: its rank's index in RANKS, plus 16 times its
# suit's index in SUITS. The bytes of ranks and suits are combined as two big integers: no loop over the cards.
_PACKED = b"\xc1"
_NONE = 0xFFFF
_HEADER = 1 + 1 + 2 + 2 + 1
_RANK_CODES = bytes.maketrans(RANKS.encode(), bytes(range(len(RANKS))))
_SUIT_CODES = bytes.maketrans(SUITS.encode(), bytes(16 * i for i in range(len(SUITS))))
_RANK_CHARS = bytes.maketrans(bytes(range(len(RANKS))), RANKS.encode())
_RANK_ALPHABET, _SUIT_ALPHABET = RANKS.encode(), SUITS.encode()
_SUIT_CHARS = bytes.maketrans(bytes(16 * i for i in range(len(SUITS))), SUITS.encode())


def _packed(shoe: Shoe) -> bytes | None:
    order = shoe.order.encode("ascii", errors="replace")
    ranks, suits = order[0::2], order[1::2]
    cut = _NONE if shoe.cut_position is None else shoe.cut_position
    try:
        salt, commitment = bytes.fromhex(shoe.salt), bytes.fromhex(shoe.commitment)
    except ValueError:
        return None
    fits = 0 <= shoe.position < _NONE and 0 <= cut <= _NONE and 0 < shoe.decks < 256 and len(salt) < 256
    # Every character a rank or a suit in its place (deleting the alphabet leaves nothing), and the hex round-trips.
    cards = (
        len(order) % 2 == 0 and not ranks.translate(None, _RANK_ALPHABET) and not suits.translate(None, _SUIT_ALPHABET)
    )
    if not (
        fits and cards and len(commitment) == 32 and salt.hex() == shoe.salt and commitment.hex() == shoe.commitment
    ):
        return None
    n = len(ranks)
    combined = int.from_bytes(ranks.translate(_RANK_CODES)) | int.from_bytes(suits.translate(_SUIT_CODES))
    head = bytes([_PACKED[0], shoe.decks]) + shoe.position.to_bytes(2) + cut.to_bytes(2) + bytes([len(salt)])
    return head + salt + commitment + combined.to_bytes(n)


def _unpacked(data: bytes) -> Shoe:
    decks, salt_size = data[1], data[6]
    position, cut = int.from_bytes(data[2:4]), int.from_bytes(data[4:6])
    salt = data[_HEADER : _HEADER + salt_size]
    commitment = data[_HEADER + salt_size : _HEADER + salt_size + 32]
    cards = data[_HEADER + salt_size + 32 :]
    value, n = int.from_bytes(cards), len(cards)
    order = bytearray(2 * n)
    order[0::2] = (value & _mask(n, 0x0F)).to_bytes(n).translate(_RANK_CHARS)
    order[1::2] = (value & _mask(n, 0xF0)).to_bytes(n).translate(_SUIT_CHARS)
    return Shoe(
        decks=decks,
        order=order.decode("ascii"),
        salt=salt.hex(),
        commitment=commitment.hex(),
        position=position,
        cut_position=None if cut == _NONE else cut,
    )


@functools.lru_cache(maxsize=16)
def _mask(n: int, byte: int) -> int:
    """The integer of n bytes each `byte`."""
    return int.from_bytes(bytes([byte]) * n)


def shoe_of(cards: list[str], source: RandomSource, *, forced: tuple[str, ...] = ()) -> Shoe:
    """A committed one-pack shoe over the given cards, shuffled (a pot game's reshuffle of the cards off the table)."""
    if not cards or not all(is_card(card) for card in cards):
        raise ShoeError("a shoe needs at least one valid card code")
    order = shuffled(cards, source)
    if forced:
        order = _force_front(order, forced)
    text = "".join(order)
    salt = random_bytes(SALT_BYTES, source)
    return Shoe(decks=1, order=text, salt=salt.hex(), commitment=commit(salt, text))
