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
TWICE_THROUGH = "twice_through"  # a bank that plays on until the deck has run out twice (pagat's variant)

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


class Direction(enum.StrEnum):
    """Which way play goes round the table; seats are numbered clockwise, so left is seat + 1, right is seat - 1."""

    LEFT = "left"  # pagat: "Deal and play are clockwise"
    RIGHT = "right"  # the Nepali table: "going round to the right (anticlockwise)"

    @property
    def step(self) -> int:
        return 1 if self is Direction.LEFT else -1


class Passing(enum.StrEnum):
    ALLOWED = "allowed"  # pagat: "Or the player may 'fold', choosing not to place a bet"
    NEVER = "never"  # the home page: "they have to usually bet a minimal of a single chip"


class FirstDealer(enum.StrEnum):
    """Who deals the first round: the seat the game is started with, or one drawn from the committed pack."""

    SEAT = "seat"
    HIGHEST_CARD = "highest_card"  # the home page: "the player with the highest card deals first"
    RANDOM = "random"  # pagat: "chosen by some convenient random method"


class FirstRoundBet(enum.StrEnum):
    """The most a bet may take before every player has had a turn."""

    POT = "pot"
    HALF_POT = "half_pot"  # the Nepali table's house rule: "allow only half the pot in the first round"


class AdjacentPasses(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="rule", tag="pass"
):
    """Posts next to each other: no card fits, the turn passes and nothing is paid."""


class AdjacentLoses(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="rule", tag="lose"
):
    """Posts next to each other: the player pays `chips` into the pot (or all they have left)."""

    chips: Chips


class AdjacentReturnsAnte(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="rule", tag="return_ante"
):
    """Posts next to each other are a push: the player takes their ante back from the pot (pagat's variant)."""


class PairIsCalled(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="rule", tag="call"):
    """Posts of one rank: the player calls higher or lower, then bets; a third of that rank hits the post."""


class PairPays(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="rule", tag="pays"):
    """Posts of one rank: the player takes `chips` from the pot (or all of it) and no third card is dealt."""

    chips: Chips


class PairPushes(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="rule", tag="push"):
    """Posts of one rank: nothing is paid and the turn passes."""


class PairReturnsAnte(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="rule", tag="return_ante"
):
    """Posts of one rank are a push: the player takes their ante back from the pot (pagat's variant)."""


class EveryoneAntes(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="rule", tag="antes"
):
    """Everyone with chips antes each round and plays against the shared pot, the dealer last."""


class DealerBanks(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="rule", tag="dealer"
):
    """The dealer stakes `stake_antes` antes as the pot and plays every other player `orbits` times or until empty."""

    stake_antes: Annotated[int, msgspec.Meta(ge=1, le=1000)]
    orbits: Annotated[int, msgspec.Meta(ge=1, le=20)] | Literal["twice_through"]


class DealerBanksGame(
    msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, tag_field="rule", tag="dealer_game"
):
    """pagat's banker game as the page plays it: one dealer banks the whole game. The dealer stakes `stake_antes`
    antes once; every round the pack is gathered and shuffled, every other player gets a first card, then plays in
    turn; a bet that wins the whole pot ends the game, and after the agreed rounds the dealer takes what is left."""

    stake_antes: Annotated[int, msgspec.Meta(ge=1, le=1000)]


class BuyChips(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """pagat: "Players may introduce money into the game (buy more chips) whenever they wish to": each buy is a move,
    and `limit` is the most chips one player may buy in a game (the page sets none; a table must)."""

    limit: Chips


class SplitPairs(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """pagat: a player whose first two cards are equal may "pay an extra ante (or sometimes a smaller amount) to the
    pot to split them into two hands, which they then play separately": `cost` is `"ante"` or a number of chips."""

    cost: Literal["ante"] | Chips


class RuleTerms(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True, omit_defaults=True):
    """Exactly the terms that decide play and payment; their canonical encoding is what the sha256 covers.

    The terms added after the first releases have defaults that play as those releases did, and a default is left
    out of the encoding (`omit_defaults`), so every earlier file keeps its sha256.
    """

    id: Annotated[str, msgspec.Meta(pattern=r"^inbetween/[a-z0-9][a-z0-9-]*/v[1-9][0-9]*$")]
    min_players: Players
    max_players: Players
    starting_chips: Chips
    antes: Annotated[list[Chips], msgspec.Meta(min_length=1, max_length=10)]
    rounds: Annotated[list[RoundsChoice], msgspec.Meta(min_length=1)]
    first_ace: FirstAce
    post: PostPenalty
    min_bet: MinimumBet
    adjacent: AdjacentPasses | AdjacentLoses | AdjacentReturnsAnte
    pair: PairIsCalled | PairPays | PairPushes | PairReturnsAnte
    banking: EveryoneAntes | DealerBanks | DealerBanksGame
    direction: Direction = Direction.LEFT
    default_rounds: RoundsChoice | None = None  # None: the first of `rounds`
    passing: Passing = msgspec.field(default=Passing.ALLOWED, name="pass")
    first_dealer: FirstDealer = FirstDealer.SEAT
    first_round_bet: FirstRoundBet = FirstRoundBet.POT
    split: SplitPairs | None = None  # None: a pair is played as `pair` says, never split
    stop_by_agreement: bool = (
        False  # pagat: "when the players agree to stop playing and divide the contents of the pot"
    )
    face_down: bool = False  # pagat: "Some deal two cards face down to each player"; absent: the posts are face up
    buy_chips: BuyChips | None = None  # None: no chips enter the game but the starting chips


class RuleSet(msgspec.Struct, frozen=True, kw_only=True):
    """Released terms plus their description and sha256."""

    terms: RuleTerms
    description: str
    sha256: str

    @property
    def id(self) -> str:
        return self.terms.id

    @property
    def default_rounds(self) -> int | str:
        """The rounds a game plays when it is created without a choice: the rule set's default, else its first."""
        terms = self.terms
        return terms.rounds[0] if terms.default_rounds is None else terms.default_rounds

    def split_cost(self, ante: int) -> int | None:
        """What splitting a pair costs in a game of this ante, or None where pairs are never split."""
        split = self.terms.split
        if split is None:
            return None
        return ante if split.cost == "ante" else int(split.cost)

    @property
    def banker(self) -> DealerBanks | None:
        """The bank that moves every round (`pagat-banker`); None otherwise, the whole-game bank included."""
        banking = self.terms.banking
        return banking if isinstance(banking, DealerBanks) else None

    @property
    def game_bank(self) -> DealerBanksGame | None:
        """The bank one dealer holds for the whole game (pagat's banker game as the page plays it), or None."""
        banking = self.terms.banking
        return banking if isinstance(banking, DealerBanksGame) else None


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
    if terms.default_rounds is not None and terms.default_rounds not in terms.rounds:
        raise RuleSetError(f"default_rounds {terms.default_rounds!r} is not one of the rounds {terms.rounds}")
    if isinstance(terms.banking, DealerBanks):
        if UNTIL_EMPTY in terms.rounds:
            raise RuleSetError("a dealer's bank ends when its pot is empty: rounds must be counted, not `until_empty`")
        if isinstance(terms.adjacent, AdjacentReturnsAnte) or isinstance(terms.pair, PairReturnsAnte):
            raise RuleSetError("nobody antes into a dealer's bank: no ante can be returned (`return_ante`)")
        if terms.split is not None:
            raise RuleSetError("splitting a pair is a variant of the version with an ante, not of a dealer's bank")
        if terms.stop_by_agreement:
            raise RuleSetError(
                "stopping by agreement ends the version with an ante; a dealer's bank ends by its rounds"
            )
    if isinstance(terms.banking, DealerBanksGame):
        _check_game_bank(terms)
    if terms.face_down:
        _check_face_down(terms)


def _check_face_down(terms: RuleTerms) -> None:
    """Face-down posts are pagat's ante variant: fold unseen, or show both and bet; no call or split comes between."""
    if not isinstance(terms.banking, EveryoneAntes):
        raise RuleSetError("face-down cards are a variant of the version with an ante, not of a dealer's bank")
    if terms.first_ace is not FirstAce.HIGH:
        raise RuleSetError("face-down posts are shown together: a first ace cannot be called low before the second")
    if terms.passing is not Passing.ALLOWED:
        raise RuleSetError("face-down cards are folded unseen or shown: `pass` must be `allowed`")
    if terms.split is not None:
        raise RuleSetError("face-down posts are never split")


def _check_game_bank(terms: RuleTerms) -> None:
    if UNTIL_EMPTY in terms.rounds:
        raise RuleSetError("the dealer's game bank ends by its rounds or an empty pot: rounds must be counted")
    if isinstance(terms.adjacent, AdjacentReturnsAnte) or isinstance(terms.pair, PairReturnsAnte):
        raise RuleSetError("nobody antes into a dealer's bank: no ante can be returned (`return_ante`)")
    if terms.split is not None or terms.stop_by_agreement:
        raise RuleSetError("splitting and stopping by agreement are variants of the version with an ante")


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
