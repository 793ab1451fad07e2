"""A Red Dog table's settings: what the operator chose when opening it, fixed for the table's life."""

from __future__ import annotations

import enum

import msgspec

from shoe.shoe import ShoePolicy


class TableMode(enum.StrEnum):
    LIVE = "live"
    TEST = "test"  # forced cards allowed (certification and integration testing); every record says test


class DealMode(enum.StrEnum):
    SHARED = "shared"  # the casino game: one set of cards, every bet plays it
    PER_SEAT = "per_seat"  # Red Dog Poker: each seat is dealt its own two cards (and its own third)


class TableStatus(enum.StrEnum):
    OPEN = "open"
    CLOSED = "closed"


class TableSettings(msgspec.Struct, frozen=True, kw_only=True):
    """Every setting of a table, as recorded in its `table_created` audit record."""

    name: str
    paytable: str  # a released paytable id such as "standard/v1"
    paytable_sha256: str
    decks: int
    shoe_policy: ShoePolicy
    penetration: int | None  # percent, cut-card shoes only
    currency: str
    min_ante: int
    max_ante: int
    max_bets: int
    raise_window_seconds: int
    mode: TableMode
    deal: DealMode = DealMode.SHARED

    @property
    def test(self) -> bool:
        return self.mode is TableMode.TEST
