"""Every production shoe is shuffled here, with the OS CSPRNG: no code path can pass a seeded generator."""

from __future__ import annotations

from shoe.random_source import OsRandom
from shoe.shoe import Shoe, ShoePolicy, new_shoe

DEFAULT_PENETRATION = 75
_CSPRNG = OsRandom()


def shuffle(decks: int, policy: ShoePolicy, penetration: int | None, forced: tuple[str, ...] = ()) -> Shoe:
    return new_shoe(decks, _CSPRNG, policy=policy, penetration=penetration or DEFAULT_PENETRATION, forced=forced)
