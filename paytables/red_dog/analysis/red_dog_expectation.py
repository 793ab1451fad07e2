"""Exact expected payout and variance of a settled Red Dog bet, given its posts, the undealt cards and its raise.

The RTP-integrity z-score is built on these: `paid` is every credit to the player, `wagered` every debit (ante,
raise and any post penalty, as `red_dog.settle(...).wagered`), and the variance is that of `paid - wagered`. Both
sides only grow, so each is a monotonic counter, and for a fair game
`((sum paid - sum wagered) - (sum expected_paid - sum expected_wagered)) / sqrt(sum variance)` stays near 0
whatever the players decide: every figure is conditional on the decision actually taken.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction

import msgspec

from paytables.red_dog.analysis.rtp import optimal_raise, raise_spreads_of, triples
from paytables.red_dog.paytable import Paytable, PostRule
from paytables.red_dog.red_dog import Outcome, Result, RuleError, check_stake, classify, settle
from paytables.red_dog.round import Bet, Round
from shoe.cards import RANK_VALUES, RANKS, SUITS, CardError, rank


class Stake(msgspec.Struct, frozen=True, kw_only=True):
    """One bet's money on the table: the ante and the raise actually taken (0 for a call)."""

    ante: int
    raise_amount: int = 0


class Expectation(msgspec.Struct, frozen=True, kw_only=True):
    """Exact expected credits and debits, and the variance of their difference (the net), in minor units."""

    expected_paid: Fraction
    expected_wagered: Fraction
    variance: Fraction

    @property
    def expected_net(self) -> Fraction:
        return self.expected_paid - self.expected_wagered


# One way the third card can fall, with how many undealt cards fall that way and what the bets get then.
_Branch = tuple[int, int, int]  # (cards, paid, wagered)


def bet_expectation(
    paytable: Paytable,
    first_rank: int,
    second_rank: int,
    remaining: Mapping[int, int],
    ante: int,
    raise_amount: int = 0,
) -> Expectation:
    """One bet: `remaining` counts the undealt cards by rank (2..14) after the posts, the third card among them."""
    return round_expectation(
        paytable, first_rank, second_rank, remaining, [Stake(ante=ante, raise_amount=raise_amount)]
    )


def round_expectation(
    paytable: Paytable, first_rank: int, second_rank: int, remaining: Mapping[int, int], stakes: Sequence[Stake]
) -> Expectation:
    """Every bet of one round together: they share the third card, so the variance is that of their summed net."""
    classification = classify(first_rank, second_rank, paytable)
    for stake in stakes:
        check_stake(paytable, classification, stake.ante, stake.raise_amount)
    _check_counts(remaining)
    antes = sum(s.ante for s in stakes)
    wagers = antes + sum(s.raise_amount for s in stakes)
    if classification.outcome is Outcome.CONSECUTIVE:
        return _moments([(1, antes, antes)])  # no third card: every ante comes back
    if classification.outcome is Outcome.PAIR:
        matching = remaining.get(first_rank, 0)
        trips = (matching, antes + antes * paytable.terms.trips_odds, antes)
        return _moments([trips, (_total(remaining) - matching, antes, antes)])
    low, high = sorted((first_rank, second_rank))
    inside = sum(remaining.get(r, 0) for r in range(low + 1, high))
    on_post = remaining.get(low, 0) + remaining.get(high, 0)
    double = paytable.terms.post_rule is PostRule.LOSE_DOUBLE
    win = (inside, wagers + wagers * (classification.odds or 0), wagers)
    post = (on_post, 0, 2 * wagers if double else wagers)
    outside = (_total(remaining) - inside - on_post, 0, wagers)
    return _moments([win, post, outside])


def settled_round_expectation(rnd: Round, order: str, paytable: Paytable) -> Expectation:
    """A round as the state machine holds it, with its shoe's card order: the figures its metrics add for the bets it
    settled (a voided bet risks nothing)."""
    if rnd.per_seat:
        # Each hand's third card is uniform over the cards still in the shoe when it is dealt, whatever came before:
        # the hands' nets minus these expectations are uncorrelated, so their variances add.
        return total(_hand_expectation(bet, order, paytable) for bet in rnd.bets if _settled(bet.result))
    first, second = rnd.cards[0], rnd.cards[1]
    remaining = undealt_rank_counts(order, second.shoe_index)
    stakes = [Stake(ante=b.ante, raise_amount=b.raise_amount) for b in rnd.bets if _settled(b.result)]
    return round_expectation(paytable, rank(first.card), rank(second.card), remaining, stakes)


def _hand_expectation(bet: Bet, order: str, paytable: Paytable) -> Expectation:
    first, second = bet.cards[0], bet.cards[1]
    drawn_at = bet.cards[2].shoe_index if len(bet.cards) > 2 else second.shoe_index + 1
    remaining = undealt_rank_counts(order, drawn_at - 1)
    return bet_expectation(paytable, rank(first.card), rank(second.card), remaining, bet.ante, bet.raise_amount)


def _settled(result: Result | None) -> bool:
    return result is not None and result not in (Result.VOID, Result.ROLLED_BACK)


def undealt_rank_counts(order: str, after_index: int) -> dict[int, int]:
    """Rank counts of the shoe's cards after index `after_index` (the second post): where the third card comes from.

    Counted by `str.count` over the rank letters (every other character): a settled round asks once, and card by
    card through `rank` it cost more than the rest of its figures."""
    if after_index < -1:  # -1: the whole shoe is undealt; anything lower is no position at all
        raise RuleError(f"no card is dealt at index {after_index}")
    rest = order[2 * (after_index + 1) :]
    ranks, suits = rest[0::2], rest[1::2]
    counts = {value: ranks.count(symbol) for value, symbol in zip(RANK_VALUES, RANKS, strict=True)}
    if len(rest) % 2 or sum(counts.values()) != len(ranks) or sum(map(suits.count, SUITS)) != len(suits):
        raise CardError(f"not a shoe of card codes: {rest!r}")
    return counts


def total(expectations: Iterable[Expectation]) -> Expectation:
    """Add independent expectations (different rounds): means and variances both add."""
    paid, wagered, variance = Fraction(0), Fraction(0), Fraction(0)
    for e in expectations:
        paid, wagered, variance = paid + e.expected_paid, wagered + e.expected_wagered, variance + e.variance
    return Expectation(expected_paid=paid, expected_wagered=wagered, variance=variance)


def integrity_z(paid: int, wagered: int, expected: Expectation) -> float:
    """How many standard deviations the real net lies from its expectation; nan when nothing was at risk."""
    if expected.variance == 0:
        return math.nan if paid - wagered == expected.expected_net else math.copysign(math.inf, paid - wagered)
    return float(paid - wagered - expected.expected_net) / math.sqrt(expected.variance)


def optimal_play_return(paytable: Paytable, decks: int) -> Fraction:
    """Expected paid over expected wagered (penalties included) from a fresh shoe when raising exactly when it gains.

    The figure observed `paid / wagered` tends to under optimal play; `rtp.compute`'s `rtp_per_total_bet` counts a
    post penalty as a loss rather than a debit, so the two differ on `post-double` and agree elsewhere.
    """
    raise_spreads = raise_spreads_of(paytable, decks)
    paid, wagered = Fraction(0), Fraction(0)
    for first, second, third, p in triples(decks):
        c = classify(first, second, paytable)
        raise_amount = optimal_raise(paytable, c, raise_spreads)
        settled = settle(paytable, first, second, None if c.outcome is Outcome.CONSECUTIVE else third, 1, raise_amount)
        paid, wagered = paid + p * settled.payout, wagered + p * settled.wagered
    return paid / wagered


def _moments(branches: list[_Branch]) -> Expectation:
    """Each branch (cards, paid, wagered) happens with probability cards / all cards. The sums are kept as integers
    over that one denominator, so only the three results are fractions (a round settles with them every time)."""
    cards = sum(n for n, _, _ in branches)
    paid = sum(n * p for n, p, _ in branches)
    wagered = sum(n * w for n, _, w in branches)
    square = sum(n * (p - w) ** 2 for n, p, w in branches)
    net = paid - wagered
    # Var = E[X^2] - E[X]^2 = square / cards - (net / cards)^2
    variance = Fraction(cards * square - net * net, cards * cards)
    mean_paid, mean_wagered = Fraction(paid, cards), Fraction(wagered, cards)
    return Expectation(expected_paid=mean_paid, expected_wagered=mean_wagered, variance=variance)


def _check_counts(remaining: Mapping[int, int]) -> None:
    if not set(remaining) <= set(RANK_VALUES) or any(n < 0 for n in remaining.values()):
        raise RuleError(f"remaining cards must be counts >= 0 by rank 2..14, got {dict(remaining)}")


def _total(remaining: Mapping[int, int]) -> int:
    cards = sum(remaining.values())
    if cards == 0:
        raise RuleError("a third card is needed but no undealt card is left")
    return cards
