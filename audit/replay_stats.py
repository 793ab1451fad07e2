"""What the replayed rounds add up to, per paytable and deck count: money in and out, and outcomes against the odds.

Test-table rounds (forced cards) and voided rounds are counted apart: a forced card is no draw and a refund is no
return. The outcome counts are set against their exact probabilities on a fresh shoe with Pearson's chi-square.
"""

from __future__ import annotations

import functools
from collections import Counter
from fractions import Fraction

import msgspec

from paytables import loader
from paytables.chi_square import outcome_chi_square, outcome_probabilities
from paytables.events import BetSettled, Event, RoundSettled, SpreadAnnounced
from paytables.red_dog import Direction, Outcome
from paytables.rtp import decimal_string


class OutcomeCount(msgspec.Struct, frozen=True, kw_only=True):
    observed: int
    expected: str  # rounds x probability, to two places
    probability: str  # exact, "p/q"


class GroupSummary(msgspec.Struct, frozen=True, kw_only=True):
    paytable: str
    decks: int
    rounds: int  # settled rounds
    voided: int
    bets: int
    wagered: int  # every debit: antes, raises, post penalties
    paid: int  # every credit: payouts (refunds of voided rounds are not counted)
    rtp: str | None  # paid / wagered, to eight places
    outcomes: dict[str, OutcomeCount]
    chi_square: float | None
    degrees_of_freedom: int | None
    p_value: float | None


class _Tally:
    __slots__ = ("bets", "outcomes", "paid", "rounds", "voided", "wagered")

    def __init__(self) -> None:
        self.rounds = self.voided = self.bets = self.wagered = self.paid = 0
        self.outcomes: Counter[str] = Counter()


class ReplayStats:
    """Adds up replayed rounds by (paytable, decks)."""

    def __init__(self) -> None:
        self.tallies: dict[tuple[str, int], _Tally] = {}
        self.test_rounds = 0

    def add(self, paytable: str, decks: int, test: bool, events: list[Event]) -> None:
        if test:
            self.test_rounds += 1
            return
        tally = self.tallies.get((paytable, decks))
        if tally is None:
            tally = self.tallies[(paytable, decks)] = _Tally()
        settled = spread = None
        for event in events:
            kind = type(event)
            if kind is BetSettled:
                assert isinstance(event, BetSettled)
                if event.result == "void":
                    continue
                tally.bets += 1
                for move in event.transactions:
                    if move.type is Direction.CREDIT:
                        tally.paid += move.amount
                    else:
                        tally.wagered += move.amount
            elif kind is RoundSettled:
                settled = event
            elif kind is SpreadAnnounced:
                spread = event
        if not isinstance(settled, RoundSettled):
            tally.voided += 1
            return
        tally.rounds += 1
        tally.outcomes[_outcome_name(settled.outcome, None if spread is None else spread.spread)] += 1  # type: ignore[union-attr]

    def summary(self) -> list[GroupSummary]:
        return [self._group(key, tally) for key, tally in sorted(self.tallies.items())]

    def _group(self, key: tuple[str, int], tally: _Tally) -> GroupSummary:
        paytable, decks = key
        probabilities = outcome_odds(paytable, decks)
        outcomes = {
            name: OutcomeCount(
                observed=tally.outcomes.get(name, 0),
                expected=decimal_string(tally.rounds * p, 2),
                probability=f"{p.numerator}/{p.denominator}",
            )
            for name, p in probabilities.items()
        }
        chi = outcome_chi_square(dict(tally.outcomes), probabilities) if tally.rounds else None
        return GroupSummary(
            paytable=paytable,
            decks=decks,
            rounds=tally.rounds,
            voided=tally.voided,
            bets=tally.bets,
            wagered=tally.wagered,
            paid=tally.paid,
            rtp=decimal_string(Fraction(tally.paid, tally.wagered), 8) if tally.wagered else None,
            outcomes=outcomes,
            chi_square=None if chi is None else chi.statistic,
            degrees_of_freedom=None if chi is None else chi.degrees_of_freedom,
            p_value=None if chi is None else chi.p_value,
        )


@functools.cache
def outcome_odds(paytable: str, decks: int) -> dict[str, Fraction]:
    return outcome_probabilities(loader.get(paytable), decks)


def _outcome_name(outcome: Outcome, spread: int | None) -> str:
    """The names `paytables/rtp.py` gives outcomes: consecutive, pair_push, trips, spread_1 .. spread_11."""
    if outcome is Outcome.PAIR:
        return "pair_push"
    if outcome is Outcome.SPREAD:
        return f"spread_{spread}"
    return outcome.value
