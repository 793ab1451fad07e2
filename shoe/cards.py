"""Card codes: rank from 23456789TJQKA then suit from SHDC; aces are always high."""

from __future__ import annotations

RANKS = "23456789TJQKA"
SUITS = "SHDC"
ACE = 14
RANK_VALUES = range(2, ACE + 1)
DECK: tuple[str, ...] = tuple(rank + suit for rank in RANKS for suit in SUITS)


class CardError(ValueError):
    """A string that is not a two-character card code."""


def is_card(code: str) -> bool:
    """True for a valid card code such as `TD` (ten of diamonds)."""
    return len(code) == 2 and code[0] in RANKS and code[1] in SUITS


_RANK_OF = {code: RANKS.index(code[0]) + 2 for code in DECK}  # a dict lookup: the game core asks ~6 times a round


def rank(code: str) -> int:
    """The rank of a card, 2..14 with the ace high."""
    value = _RANK_OF.get(code)
    if value is None:
        raise CardError(f"not a card code: {code!r}")
    return value


def rank_symbol(value: int) -> str:
    """The one-character symbol of a rank value (14 -> 'A')."""
    return RANKS[value - 2]
