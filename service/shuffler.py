"""Every production shoe is shuffled here, with the OS CSPRNG: no code path can pass a seeded generator."""

from __future__ import annotations

from shoe.random_source import OsRandom, RandomSource
from shoe.shoe import Shoe, ShoePolicy, new_shoe

DEFAULT_PENETRATION = 75
_CSPRNG = OsRandom()


def shuffle(decks: int, policy: ShoePolicy, penetration: int | None, forced: tuple[str, ...] = ()) -> Shoe:
    return new_shoe(decks, _CSPRNG, policy=policy, penetration=penetration or DEFAULT_PENETRATION, forced=forced)


def one_deck_shoe(forced: tuple[str, ...] = ()) -> Shoe:
    """An In Between game's first pack, a committed one-deck `Shoe`; `forced` cards (test games only) at its front."""
    return new_shoe(1, _CSPRNG, forced=forced)


def csprng() -> RandomSource:
    """The same CSPRNG, for an engine that shuffles a new pack mid-game (In Between's reshuffle of the discards)."""
    return _CSPRNG
