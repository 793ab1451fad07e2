"""The paytable: the released terms a round is settled by."""

from __future__ import annotations

import enum
from typing import Annotated

import msgspec

MAX_SPREAD = 11  # every rank from 3 to K lies between
Odds = Annotated[int, msgspec.Meta(ge=1, le=1000)]


class PostRule(enum.StrEnum):
    LOSE = "lose"
    LOSE_DOUBLE = "lose_double"


class Terms(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Exactly the fields that decide a payout; their canonical encoding is what the sha256 covers."""

    id: Annotated[str, msgspec.Meta(pattern=r"^[a-z0-9][a-z0-9-]*/v[1-9][0-9]*$")]
    spread_odds: Annotated[list[Odds], msgspec.Meta(min_length=MAX_SPREAD, max_length=MAX_SPREAD)]
    trips_odds: Odds
    post_rule: PostRule
    max_raise_multiple: Annotated[int, msgspec.Meta(ge=1, le=1)]  # the game allows a raise up to the ante


class Paytable(msgspec.Struct, frozen=True, kw_only=True):
    """Released terms plus their description and sha256."""

    terms: Terms
    description: str
    sha256: str

    @property
    def id(self) -> str:
        return self.terms.id

    @property
    def name(self) -> str:
        return self.terms.id.split("/")[0]

    @property
    def version(self) -> int:
        return int(self.terms.id.split("/v")[1])

    def spread_odds(self, spread: int) -> int:
        """The "X to 1" odds for a spread of 1..11."""
        return self.terms.spread_odds[spread - 1]
