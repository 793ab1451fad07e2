"""What the replayed rounds add up to, per paytable and deck count: money in and out, and outcomes against the odds.

Test-table rounds (forced cards) and voided rounds are counted apart: a forced card is no draw and a refund is no
return. The outcome counts are set against their exact probabilities on a fresh shoe with Pearson's chi-square.
"""

from __future__ import annotations

import functools
from collections import Counter
from fractions import Fraction

import msgspec

from paytables.red_dog import loader
from paytables.red_dog.analysis.chi_square import outcome_chi_square, outcome_probabilities
from paytables.red_dog.analysis.rtp import decimal_string
from paytables.red_dog.events import BetSettled, Event, RoundRolledBack, RoundSettled, SpreadAnnounced
from paytables.red_dog.red_dog import Direction, Outcome


class OutcomeCount(msgspec.Struct, frozen=True, kw_only=True):
    observed: int
    expected: str  # hands (rounds, or per-seat bets) x probability, to two places
    probability: str  # exact, "p/q"


class GroupSummary(msgspec.Struct, frozen=True, kw_only=True):
    paytable: str
    decks: int
    rounds: int  # settled rounds
    voided: int
    rolled_back: int  # undone by the aggregator: nothing of them counts
    bets: int
    wagered: int  # every debit: antes, raises, post penalties
    paid: int  # every credit: payouts (refunds of voided rounds are not counted)
    rtp: str | None  # paid / wagered, to eight places
    outcomes: dict[str, OutcomeCount]
    chi_square: float | None
    degrees_of_freedom: int | None
    p_value: float | None


class _Tally:
    __slots__ = ("bets", "hands", "outcomes", "paid", "rolled_back", "rounds", "voided", "wagered")

    def __init__(self) -> None:
        self.rounds = self.voided = self.rolled_back = self.bets = self.wagered = self.paid = 0
        self.hands = 0  # outcomes observed: one a shared round, one a bet of a per-seat round
        self.outcomes: Counter[str] = Counter()


class ReplayStats:
    """Adds up replayed rounds by (paytable, decks)."""

    def __init__(self) -> None:
        self.tallies: dict[tuple[str, int], _Tally] = {}
        self.test_rounds = 0

    def add(self, paytable: str, decks: int, test: bool, events: list[Event], sign: int = 1) -> None:
        """Count a replayed round; `sign` -1 takes back what an earlier add of the same round counted."""
        if test:
            self.test_rounds += sign
            return
        tally = self.tallies.get((paytable, decks))
        if tally is None:
            tally = self.tallies[(paytable, decks)] = _Tally()
        if any(type(event) is RoundRolledBack for event in events):  # every transaction reversed
            tally.rolled_back += sign
            return
        settled = spread = None
        hands: list[BetSettled] = []  # a per-seat round's settled hands
        spreads: dict[str, int] = {}  # a per-seat round's spreads, by bet
        for event in events:
            kind = type(event)
            if kind is BetSettled:
                assert isinstance(event, BetSettled)
                if event.result == "void":
                    continue
                tally.bets += sign
                if event.outcome is not None:
                    hands.append(event)
                for move in event.transactions:
                    if move.type is Direction.CREDIT:
                        tally.paid += sign * move.amount
                    else:
                        tally.wagered += sign * move.amount
            elif kind is RoundSettled:
                settled = event
            elif kind is SpreadAnnounced:
                assert isinstance(event, SpreadAnnounced)
                spread = event.spread
                if event.bet_id is not None:
                    spreads[event.bet_id] = event.spread
        if not isinstance(settled, RoundSettled):
            tally.voided += sign
            return
        tally.rounds += sign
        # Each per-seat hand is dealt as a fresh shoe's first three cards would be, so it counts as one observation.
        if settled.outcome is None:
            for hand in hands:
                assert hand.outcome is not None
                tally.outcomes[_outcome_name(hand.outcome, spreads.get(hand.bet_id))] += sign
            tally.hands += sign * len(hands)
        else:
            tally.outcomes[_outcome_name(settled.outcome, spread)] += sign
            tally.hands += sign

    def merge(self, other: ReplayStats) -> None:
        """Add what another replayer counted (the rounds of another part of the file)."""
        self.test_rounds += other.test_rounds
        for key, theirs in other.tallies.items():
            tally = self.tallies.get(key)
            if tally is None:
                tally = self.tallies[key] = _Tally()
            for name in ("rounds", "voided", "rolled_back", "bets", "wagered", "paid", "hands"):
                setattr(tally, name, getattr(tally, name) + getattr(theirs, name))
            tally.outcomes.update(theirs.outcomes)  # update, not +=: a count taken back to 0 stays, as in one pass

    def remove(self, paytable: str, decks: int, test: bool, events: list[Event]) -> None:
        """Take back a round counted before (its rollback came later in the chain)."""
        self.add(paytable, decks, test, events, sign=-1)

    def summary(self) -> list[GroupSummary]:
        return [self._group(key, tally) for key, tally in sorted(self.tallies.items())]

    def _group(self, key: tuple[str, int], tally: _Tally) -> GroupSummary:
        paytable, decks = key
        probabilities = outcome_odds(paytable, decks)
        outcomes = {
            name: OutcomeCount(
                observed=tally.outcomes.get(name, 0),
                expected=decimal_string(tally.hands * p, 2),
                probability=f"{p.numerator}/{p.denominator}",
            )
            for name, p in probabilities.items()
        }
        chi = outcome_chi_square(dict(tally.outcomes), probabilities) if tally.hands else None
        return GroupSummary(
            paytable=paytable,
            decks=decks,
            rounds=tally.rounds,
            voided=tally.voided,
            rolled_back=tally.rolled_back,
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
    """The names `analysis/rtp.py` gives outcomes: consecutive, pair_push, trips, spread_1 .. spread_11."""
    if outcome is Outcome.PAIR:
        return "pair_push"
    if outcome is Outcome.SPREAD:
        return f"spread_{spread}"
    return outcome.value
