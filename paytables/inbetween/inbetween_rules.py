"""In Between house rules as data: the rule-set model, its loader and its sha256 (released files are never edited).

A rule set is a TOML file `inbetween/rulesets/<name>/v<N>.toml`, loaded by id `inbetween/<name>/vN`. Every term is
validated (unknown fields refused) and the sha256 covers the canonical JSON of the terms (sorted keys, no whitespace),
exactly as for the Red Dog paytables, so a file's layout or comments never change its hash.
"""

from __future__ import annotations

import enum
import functools
from pathlib import Path
from typing import Annotated, Literal

import msgspec

from paytables import releases
from paytables.releases import ReleaseError

RULESETS_DIR = Path(__file__).parent / "rulesets"
UNTIL_EMPTY = "until_empty"  # a game of rounds that ends only when a bet takes the whole pot

Chips = Annotated[int, msgspec.Meta(ge=1, le=1_000_000)]
Players = Annotated[int, msgspec.Meta(ge=2, le=8)]
RoundsChoice = Annotated[int, msgspec.Meta(ge=1, le=100)] | Literal["until_empty"]


class PostPenalty(enum.StrEnum):
    """What a third card of a post's rank costs, as a multiple of the bet."""

    BET = "bet"
    DOUBLE = "double"
    TRIPLE = "triple"

    @property
    def multiple(self) -> int:
        return {"bet": 1, "double": 2, "triple": 3}[self.value]


class FirstAce(enum.StrEnum):
    CHOICE = "choice"  # the player calls a first-post ace high or low before the second post
    HIGH = "high"  # aces are always high


class MinimumBet(enum.StrEnum):
    ONE = "one"
    ANTE = "ante"


class AdjacentPasses(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="rule", tag="pass"
):
    """Posts next to each other: no card fits, the turn passes and nothing is paid."""


class AdjacentLoses(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="rule", tag="lose"
):
    """Posts next to each other: the player pays `chips` into the pot (or all they have left)."""

    chips: Chips


class PairIsCalled(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="rule", tag="call"):
    """Posts of one rank: the player calls higher or lower, then bets; a third of that rank hits the post."""


class PairPays(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="rule", tag="pays"):
    """Posts of one rank: the player takes `chips` from the pot (or all of it) and no third card is dealt."""

    chips: Chips


class PairPushes(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="rule", tag="push"):
    """Posts of one rank: nothing is paid and the turn passes."""


class EveryoneAntes(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="rule", tag="antes"
):
    """Everyone with chips antes each round and plays against the shared pot, the dealer last."""


class DealerBanks(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="rule", tag="dealer"
):
    """The dealer stakes `stake_antes` antes as the pot and plays every other player `orbits` times or until empty."""

    stake_antes: Annotated[int, msgspec.Meta(ge=1, le=1000)]
    orbits: Annotated[int, msgspec.Meta(ge=1, le=20)]


class RuleTerms(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Exactly the terms that decide play and payment; their canonical encoding is what the sha256 covers."""

    id: Annotated[str, msgspec.Meta(pattern=r"^inbetween/[a-z0-9][a-z0-9-]*/v[1-9][0-9]*$")]
    min_players: Players
    max_players: Players
    starting_chips: Chips
    antes: Annotated[list[Chips], msgspec.Meta(min_length=1, max_length=10)]
    rounds: Annotated[list[RoundsChoice], msgspec.Meta(min_length=1)]
    first_ace: FirstAce
    post: PostPenalty
    min_bet: MinimumBet
    adjacent: AdjacentPasses | AdjacentLoses
    pair: PairIsCalled | PairPays | PairPushes
    banking: EveryoneAntes | DealerBanks


class RuleSet(msgspec.Struct, frozen=True, kw_only=True):
    """Released terms plus their description and sha256."""

    terms: RuleTerms
    description: str
    sha256: str

    @property
    def id(self) -> str:
        return self.terms.id

    @property
    def banker(self) -> DealerBanks | None:
        banking = self.terms.banking
        return banking if isinstance(banking, DealerBanks) else None


class RuleSetError(ReleaseError):
    """A rule-set file that is missing or invalid, or an id with no released file; the message says which."""


def check_terms(terms: RuleTerms) -> None:
    """Refuse terms that parse but contradict each other."""
    if terms.min_players > terms.max_players:
        raise RuleSetError(f"min_players {terms.min_players} is more than max_players {terms.max_players}")
    if len(set(terms.antes)) != len(terms.antes):
        raise RuleSetError(f"antes repeat a choice: {terms.antes}")
    if len(set(terms.rounds)) != len(terms.rounds):
        raise RuleSetError(f"rounds repeat a choice: {terms.rounds}")
    if isinstance(terms.banking, DealerBanks) and UNTIL_EMPTY in terms.rounds:
        raise RuleSetError("a dealer's bank ends when its pot is empty: rounds must be counted, not `until_empty`")


def parse(text: str, where: str) -> RuleSet:
    """Parse and validate the TOML text of one rule set; `where` names it in errors."""
    return _rule_set(releases.parse(text, where, RuleTerms, RuleSetError, check_terms))


def load_file(path: Path) -> RuleSet:
    """Parse and validate one rule-set file; its id must match its place under `rulesets/`."""
    loaded = releases.load_file(
        path, RuleTerms, RuleSetError, id_of=lambda terms: terms.id, id_prefix="inbetween/", check=check_terms
    )
    return _rule_set(loaded)


def _rule_set(loaded: releases.Released[RuleTerms]) -> RuleSet:
    return RuleSet(terms=loaded.terms, description=loaded.description, sha256=loaded.sha256)


@functools.cache
def released() -> dict[str, RuleSet]:
    """Every released rule set by id, read once."""
    rulesets = [load_file(path) for path in releases.release_files(RULESETS_DIR)]
    return {ruleset.id: ruleset for ruleset in rulesets}


def get(ruleset_id: str) -> RuleSet:
    """A released rule set by id (`inbetween/name/vN`)."""
    try:
        return released()[ruleset_id]
    except KeyError:
        raise RuleSetError(f"no released In Between rule set {ruleset_id!r}") from None
