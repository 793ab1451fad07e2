"""What each ended round adds to the RTP report, and the report's figures over many rounds: exact throughout.

A round's exact expectation is a fraction whose denominator divides the square of the cards left after its posts;
it is kept as integers over one scale (the least common denominator of its three fractions), so the figures of
millions of rounds add up exactly in SQL, grouped by scale, and never pass through a float.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from fractions import Fraction

import msgspec

from paytables.red_dog.analysis.chi_square import ChiSquare, outcome_chi_square
from paytables.red_dog.analysis.red_dog_expectation import Expectation, integrity_z, settled_round_expectation, total
from paytables.red_dog.paytable import Paytable
from paytables.red_dog.red_dog import Direction, Outcome, Result
from paytables.red_dog.round import Round, RoundStatus

NOTHING_AT_RISK = Expectation(expected_paid=Fraction(0), expected_wagered=Fraction(0), variance=Fraction(0))


class RoundFigures(msgspec.Struct, frozen=True, kw_only=True):
    """One ended round's money and its exact expectation given its posts, shoe and decisions (integers / scale)."""

    status: RoundStatus
    outcome: str  # as `reddog rtp` names it: consecutive, pair_push, trips, spread_1..spread_11
    bets: int
    wagered: int  # every debit: ante, raise, post penalty (0 for a void)
    paid: int  # every credit of a settled round: the payouts, stakes included
    refunded: int  # the refund credits of a voided round
    scale: int
    expected_paid: int
    expected_wagered: int
    net_variance: int

    @property
    def expectation(self) -> Expectation:
        return Expectation(
            expected_paid=Fraction(self.expected_paid, self.scale),
            expected_wagered=Fraction(self.expected_wagered, self.scale),
            variance=Fraction(self.net_variance, self.scale),
        )


def round_figures(rnd: Round, order: str, paytable: Paytable) -> RoundFigures:
    """The figures of a round that has ended; `order` is its shoe's card order (it never changes as cards go out).

    A voided round refunds the bets still open; on a per-seat table it may also hold bets that settled at the deal,
    which count as settled money with their expectation.
    """
    if rnd.status is RoundStatus.RAISE_WINDOW:
        raise ValueError(f"round {rnd.round_id} has not ended")
    if rnd.status is RoundStatus.ROLLED_BACK:  # every transaction reversed: nothing was wagered, paid or expected
        return RoundFigures(
            status=rnd.status, outcome=outcome_name(rnd), bets=len(rnd.bets), wagered=0, paid=0, refunded=0, scale=1,
            expected_paid=0, expected_wagered=0, net_variance=0,
        )  # fmt: skip
    expectation = settled_round_expectation(rnd, order, paytable)
    scale = math.lcm(*(f.denominator for f in _parts(expectation)))
    paid, wagered, variance = (int(f * scale) for f in _parts(expectation))
    kept = [b for b in rnd.bets if b.result is not Result.VOID]
    return RoundFigures(
        status=rnd.status,
        outcome=outcome_name(rnd),
        bets=len(rnd.bets),
        wagered=sum(t.amount for b in kept for t in b.transactions if t.type is Direction.DEBIT),
        paid=sum(b.payout or 0 for b in kept),
        refunded=sum(b.payout or 0 for b in rnd.bets if b.result is Result.VOID),
        scale=scale,
        expected_paid=paid,
        expected_wagered=wagered,
        net_variance=variance,
    )


def _parts(e: Expectation) -> tuple[Fraction, Fraction, Fraction]:
    return e.expected_paid, e.expected_wagered, e.variance


def outcome_name(rnd: Round) -> str:
    """The outcome as `reddog rtp` names it, so counts line up with the exact outcome probabilities; a per-seat
    round's hands each have their own, so the round counts as `per_seat`."""
    if rnd.per_seat:
        return "per_seat"
    if rnd.outcome is Outcome.PAIR:
        return "pair_push"
    if rnd.outcome in (Outcome.CONSECUTIVE, Outcome.TRIPS):
        return str(rnd.outcome)
    return f"spread_{rnd.spread}" if rnd.spread is not None else "none"


class Totals(msgspec.Struct, frozen=True, kw_only=True):
    """Rounds of one paytable, deck count and currency added up; the expectation only over settled rounds."""

    rounds: int = 0  # settled
    voided_rounds: int = 0
    bets: int = 0  # of settled rounds
    voided_bets: int = 0
    wagered: int = 0
    paid: int = 0
    refunded: int = 0
    expectation: Expectation = NOTHING_AT_RISK
    outcomes: dict[str, int] = msgspec.field(default_factory=dict)  # every ended round, voided spreads too


def add(totals: Totals, figures: RoundFigures, count: int = 1) -> Totals:
    """`count` rounds with these very figures (an SQL group) added to the totals; bets and money are their sums.

    A voided round adds its refunds, and the money of any bet that settled before the void (a per-seat hand)."""
    if figures.status is RoundStatus.ROLLED_BACK:  # reversed: as if it had never been played
        return totals
    outcomes = dict(totals.outcomes)
    outcomes[figures.outcome] = outcomes.get(figures.outcome, 0) + count
    voided = figures.status is RoundStatus.VOID
    return msgspec.structs.replace(
        totals,
        rounds=totals.rounds + (0 if voided else count),
        voided_rounds=totals.voided_rounds + (count if voided else 0),
        bets=totals.bets + (0 if voided else figures.bets),
        voided_bets=totals.voided_bets + (figures.bets if voided else 0),
        wagered=totals.wagered + figures.wagered,
        paid=totals.paid + figures.paid,
        refunded=totals.refunded + figures.refunded,
        expectation=total([totals.expectation, figures.expectation]),
        outcomes=outcomes,
    )


class OutcomeLine(msgspec.Struct, frozen=True, kw_only=True):
    outcome: str
    observed: int
    probability: Fraction  # exact, from a fresh shoe of this many decks
    expected: Fraction  # rounds x probability


class RtpLine(msgspec.Struct, frozen=True, kw_only=True):
    """The report for one paytable, deck count and currency: what was paid, what the decisions taken should have
    paid, how far apart in standard deviations, the outcome mix against its exact odds, and the theory."""

    paytable: str
    decks: int
    currency: str
    totals: Totals
    observed_rtp: Fraction | None  # paid / wagered; None before anything was wagered
    expected_rtp: Fraction | None  # expected paid / expected wagered, given the posts, shoes and decisions
    integrity_z: float | None  # None when nothing was at risk (variance 0)
    theoretical_rtp: Fraction  # at optimal play from a fresh shoe
    outcomes: tuple[OutcomeLine, ...]
    chi_square: ChiSquare


def rtp_line(
    paytable: Paytable,
    decks: int,
    currency: str,
    totals: Totals,
    *,
    probabilities: Mapping[str, Fraction],
    theoretical_rtp: Fraction,
) -> RtpLine:
    """The figures of one line; `probabilities` and `theoretical_rtp` are the paytable's exact ones at `decks`."""
    e = totals.expectation
    z = integrity_z(totals.paid, totals.wagered, e) if e.variance else None
    # Per-seat rounds (outcome `per_seat`) have an outcome a hand, not a round: the round mix leaves them out, while
    # their money and its expectation count like any other.
    mix = {name: count for name, count in totals.outcomes.items() if name in probabilities}
    observed = sum(mix.values())
    return RtpLine(
        paytable=paytable.id,
        decks=decks,
        currency=currency,
        totals=totals,
        observed_rtp=Fraction(totals.paid, totals.wagered) if totals.wagered else None,
        expected_rtp=e.expected_paid / e.expected_wagered if e.expected_wagered else None,
        integrity_z=z,
        theoretical_rtp=theoretical_rtp,
        outcomes=tuple(
            OutcomeLine(outcome=name, observed=mix.get(name, 0), probability=p, expected=observed * p)
            for name, p in probabilities.items()
        ),
        chi_square=outcome_chi_square(mix, probabilities),
    )


def add_all(figures: Iterable[tuple[RoundFigures, int]]) -> Totals:
    """Totals of (figures, how many rounds) pairs."""
    totals = Totals()
    for f, count in figures:
        totals = add(totals, f, count)
    return totals
