"""An independent model of an In Between turn, written from the English rules; the engine is checked against it."""

from __future__ import annotations

from dataclasses import dataclass

ORDER = "23456789TJQKA"  # index + 2 is the rank; a called-low ace counts as 1

# Deliberate pins, computed by hand from the canonical JSON below and copied from `reddog inbetween rulesets`:
# editing a released file must fail the suite.
RELEASED_SHA256 = {
    "inbetween/home/v1": "0ce4c3a43a1f875d997de10b9a1fd19d769578a7dc4b41f8e0e1d1bca490dfbd",
    "inbetween/nepal/v1": "011439793f32a9df9c54c8dc6fa777b68e8f184c99f970786a7515fa767ee727",
    "inbetween/pagat-banker/v1": "8d24b413278fdb6559c849475f6b18922d724839fa1a9a498562a80a744e3a57",
    "inbetween/pay-the-bet/v1": "88a77910d5e7a648cdefa0771786886ffc02b33e586759f738903c5b8107640a",
    "inbetween/sheets/v1": "ea8cbf78e925563056015cf748b413856e59e22d0eeb61f239a07e6a895d58e6",
}
RULESET_IDS = tuple(RELEASED_SHA256)


@dataclass(frozen=True)
class HouseRules:
    """The released terms written out by hand, never read from the code's RuleSet."""

    post_multiple: int
    adjacent_loses: int  # chips; 0: the turn passes
    pair: str  # "call", "pays" or "push"
    pair_pays: int
    ace_choice: bool
    min_bet_is_ante: bool
    banker: bool


HOUSE_RULES = {
    "inbetween/nepal/v1": HouseRules(2, 0, "call", 0, ace_choice=True, min_bet_is_ante=False, banker=False),
    "inbetween/pay-the-bet/v1": HouseRules(1, 0, "call", 0, ace_choice=True, min_bet_is_ante=False, banker=False),
    "inbetween/pagat-banker/v1": HouseRules(2, 0, "call", 0, ace_choice=True, min_bet_is_ante=False, banker=True),
    "inbetween/home/v1": HouseRules(1, 1, "pays", 2, ace_choice=False, min_bet_is_ante=False, banker=False),
    "inbetween/sheets/v1": HouseRules(3, 0, "push", 0, ace_choice=True, min_bet_is_ante=True, banker=False),
}


def value(card: str, *, low_ace: bool = False) -> int:
    if card[0] == "A" and low_ace:
        return 1
    return ORDER.index(card[0]) + 2


@dataclass(frozen=True)
class TurnFacts:
    first: str
    second: str
    low_ace: bool  # the first post is an ace called low
    pair_call: str | None  # "higher" or "lower"
    bet: int | None
    third: str | None
    chips: int  # the player's chips before the turn's own payment
    pot: int


def expected_delta(rules: HouseRules, turn: TurnFacts) -> int:
    """What the turn moves from the pot to the player (negative: to the pot), from the rules in words."""
    a, b = value(turn.first, low_ace=turn.low_ace), value(turn.second)
    if abs(a - b) == 1:  # posts side by side: nothing can fall between
        return -min(rules.adjacent_loses, turn.chips)
    if a == b and rules.pair == "pays":
        return min(rules.pair_pays, turn.pot)
    if (a == b and rules.pair == "push") or turn.bet is None:
        return 0
    assert turn.third is not None
    c = value(turn.third)
    hits_post = turn.third[0] in (turn.first[0], turn.second[0])
    if hits_post:
        return -min(rules.post_multiple * turn.bet, turn.chips)
    if a != b:
        return turn.bet if min(a, b) < c < max(a, b) else -turn.bet
    beyond = c > a if turn.pair_call == "higher" else c < a
    return turn.bet if beyond else -turn.bet
