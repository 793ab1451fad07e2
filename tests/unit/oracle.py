"""An independent model of Red Dog, written from the English rules, that the unit tests check the code against."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

RANKS = range(2, 15)  # aces high
SPREADS = range(1, 12)  # 1 (e.g. 5-7) to 11

# The released terms written out by hand, never read from the code's Paytable: spread -> "X to 1".
STANDARD_ODDS = {1: 5, 2: 4, 3: 2, 4: 1, 5: 1, 6: 1, 7: 1, 8: 1, 9: 1, 10: 1, 11: 1}
SPREAD_ODDS: dict[str, dict[int, int]] = {
    "standard/v1": STANDARD_ODDS,
    "generous/v1": {**STANDARD_ODDS, 3: 3},
    "post-double/v1": STANDARD_ODDS,
}
TRIPS_ODDS = {"standard/v1": 11, "generous/v1": 11, "post-double/v1": 11}
LOSE_DOUBLE_ON_POST = {"standard/v1": False, "generous/v1": False, "post-double/v1": True}
PAYTABLE_IDS = tuple(SPREAD_ODDS)

# Deliberate pins, copied from `reddog paytables`: editing a released file must fail the suite.
RELEASED_SHA256 = {
    "generous/v1": "fec272ac6d7c5b638ecaec5fa52ac23fc34976473c263b9fb3f1448cf8c96481",
    "post-double/v1": "2031c10314b67826535293ee2863679a9d7d346d8b6bcb211c0dd22fefca989c",
    "standard/v1": "783e13fee9af7a5517a9116ac9c982d11bfc455756262d1d7edef235b7031e9a",
}


@dataclass(frozen=True)
class Expected:
    """What the rules say one bet comes to: the result, the total paid back, the net and any post penalty."""

    result: str
    paid: int
    net: int
    penalty: int


def third_card_class(first: int, second: int, third: int) -> str:
    """Where the third card falls against the two posts, in the words the rules use."""
    low, high = min(first, second), max(first, second)
    if third < low:
        return "below the low post"
    if third == low:
        return "equal to the low post"
    if third < high:
        return "strictly between"
    if third == high:
        return "equal to the high post"
    return "above the high post"


def expected(paytable_id: str, first: int, second: int, third: int | None, ante: int, raised: int) -> Expected:
    """Settle one bet straight from the English rules."""
    low, high = min(first, second), max(first, second)
    if high - low == 1:  # consecutive: push, no third card
        return Expected("push", ante, 0, 0)
    assert third is not None
    if low == high:  # a pair: trips pays the ante at trips odds, anything else pushes
        if third == low:
            paid = ante + ante * TRIPS_ODDS[paytable_id]
            return Expected("trips", paid, paid - ante, 0)
        return Expected("push", ante, 0, 0)
    wager = ante + raised
    where = third_card_class(first, second, third)
    if where == "strictly between":
        paid = wager + wager * SPREAD_ODDS[paytable_id][high - low - 1]
        return Expected("win", paid, paid - wager, 0)
    on_post = where in ("equal to the low post", "equal to the high post")
    penalty = wager if on_post and LOSE_DOUBLE_ON_POST[paytable_id] else 0
    return Expected("lose", 0, -wager - penalty, penalty)


@dataclass(frozen=True)
class ClosedForm:
    """Exact figures for one paytable and deck count, from counting cards rather than walking every triple."""

    house_edge: Fraction
    never_raise_house_edge: Fraction
    rtp_per_total_bet: Fraction
    raise_spreads: list[int]
    variance_per_ante: Fraction
    outcome_probabilities: dict[str, Fraction]


def closed_form(paytable_id: str, decks: int) -> ClosedForm:
    """House edge per one-unit ante with the raise taken exactly when it gains, from the card-counting formulas."""
    per_rank, size = 4 * decks, 52 * decks
    two_cards = Fraction(1, size * (size - 1))
    p_spread = {s: 2 * (12 - s) * per_rank**2 * two_cards for s in SPREADS}
    p_consecutive = 24 * per_rank**2 * two_cards
    p_pair = 13 * per_rank * (per_rank - 1) * two_cards
    p_trips_given_pair = Fraction(per_rank - 2, size - 2)
    trips = TRIPS_ODDS[paytable_id]
    post_loss = 2 if LOSE_DOUBLE_ON_POST[paytable_id] else 1

    mean = never = p_pair * p_trips_given_pair * trips
    square = p_pair * p_trips_given_pair * trips**2
    extra_wager = Fraction(0)
    raise_spreads = []
    for s in SPREADS:
        p_win = Fraction(per_rank * s, size - 2)
        p_post = Fraction(2 * (per_rank - 1), size - 2)
        p_outside = 1 - p_win - p_post
        odds = SPREAD_ODDS[paytable_id][s]
        per_unit = p_win * odds - p_outside - p_post * post_loss
        units = 2 if per_unit > 0 else 1
        if units == 2:
            raise_spreads.append(s)
            extra_wager += p_spread[s]
        mean += p_spread[s] * units * per_unit
        never += p_spread[s] * per_unit
        square += p_spread[s] * units**2 * (p_win * odds**2 + p_outside + p_post * post_loss**2)
    outcomes = {
        "consecutive": p_consecutive,
        "pair_push": p_pair * (1 - p_trips_given_pair),
        "trips": p_pair * p_trips_given_pair,
        **{f"spread_{s}": p_spread[s] for s in SPREADS},
    }
    return ClosedForm(
        house_edge=-mean,
        never_raise_house_edge=-never,
        rtp_per_total_bet=1 + mean / (1 + extra_wager),
        raise_spreads=raise_spreads,
        variance_per_ante=square - mean**2,
        outcome_probabilities=outcomes,
    )
