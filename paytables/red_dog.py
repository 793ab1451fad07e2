"""The rules of a Red Dog round: classify two posts, settle a bet on the third card. Integers only."""

from __future__ import annotations

import enum

import msgspec

from paytables.paytable import Paytable, PostRule


class Outcome(enum.StrEnum):
    CONSECUTIVE = "consecutive"
    PAIR = "pair"
    SPREAD = "spread"


class Result(enum.StrEnum):
    WIN = "win"
    LOSE = "lose"
    PUSH = "push"
    TRIPS = "trips"


class Kind(enum.StrEnum):
    ANTE = "ante"
    RAISE = "raise"
    PAYOUT = "payout"
    POST_PENALTY = "post_penalty"
    REFUND = "refund"


class RuleError(ValueError):
    """A bet or decision the rules do not allow."""


class Classification(msgspec.Struct, frozen=True, kw_only=True):
    """What the two posts mean: consecutive (push), pair (deal a third at once) or a spread with its odds."""

    outcome: Outcome
    spread: int | None = None
    odds: int | None = None

    @property
    def needs_third_card(self) -> bool:
        return self.outcome is not Outcome.CONSECUTIVE

    @property
    def opens_raise_window(self) -> bool:
        return self.outcome is Outcome.SPREAD


class Movement(msgspec.Struct, frozen=True, kw_only=True):
    """One money movement for a wallet; the id is derived from the bet so it can be applied idempotently."""

    id: str
    kind: Kind
    type: str  # "debit" or "credit"
    amount: int


class Settlement(msgspec.Struct, frozen=True, kw_only=True):
    """A settled bet: result, total paid back (stake included), net and the movements that add up to it."""

    result: Result
    paid: int
    net: int
    wagered: int  # every debit: ante + raise + any post penalty
    movements: tuple[Movement, ...]


def classify(first_rank: int, second_rank: int, paytable: Paytable) -> Classification:
    """Classify the two posts by rank (2..14, aces high)."""
    low, high = sorted((first_rank, second_rank))
    if low == high:
        return Classification(outcome=Outcome.PAIR)
    spread = high - low - 1
    if spread == 0:
        return Classification(outcome=Outcome.CONSECUTIVE)
    return Classification(outcome=Outcome.SPREAD, spread=spread, odds=paytable.spread_odds(spread))


def check_raise(ante: int, raise_amount: int, paytable: Paytable, classification: Classification) -> None:
    """Refuse a raise the rules do not allow: only on a spread, a whole amount from 0 (call) to the limit."""
    if ante < 1:
        raise RuleError("the ante must be at least 1")
    limit = ante * paytable.terms.max_raise_multiple
    if not 0 <= raise_amount <= limit:
        raise RuleError(f"a raise must be 0..{limit}, got {raise_amount}")
    if raise_amount and not classification.opens_raise_window:
        raise RuleError(f"no raise on a {classification.outcome} round")


def settle(
    paytable: Paytable,
    first_rank: int,
    second_rank: int,
    third_rank: int | None,
    ante: int,
    raise_amount: int = 0,
    bet_id: str = "bet",
) -> Settlement:
    """Settle one bet. `third_rank` is None only for a consecutive round, which deals no third card."""
    classification = classify(first_rank, second_rank, paytable)
    check_raise(ante, raise_amount, paytable, classification)
    if classification.needs_third_card and third_rank is None:
        raise RuleError(f"a {classification.outcome} round needs a third card")
    wager = ante + raise_amount
    penalty = 0
    if classification.outcome is Outcome.CONSECUTIVE:
        result, paid = Result.PUSH, ante
    elif classification.outcome is Outcome.PAIR:
        trips = third_rank == first_rank
        result = Result.TRIPS if trips else Result.PUSH
        paid = ante + ante * paytable.terms.trips_odds if trips else ante
    elif min(first_rank, second_rank) < (third_rank or 0) < max(first_rank, second_rank):
        result, paid = Result.WIN, wager + wager * (classification.odds or 0)
    else:
        result, paid = Result.LOSE, 0
        if third_rank in (first_rank, second_rank) and paytable.terms.post_rule is PostRule.LOSE_DOUBLE:
            penalty = wager
    return Settlement(
        result=result,
        paid=paid,
        net=paid - wager - penalty,
        wagered=wager + penalty,
        movements=_movements(bet_id, ante, raise_amount, penalty, paid),
    )


def _movements(bet_id: str, ante: int, raise_amount: int, penalty: int, paid: int) -> tuple[Movement, ...]:
    moves = [Movement(id=f"{bet_id}:ante", kind=Kind.ANTE, type="debit", amount=ante)]
    if raise_amount:
        moves.append(Movement(id=f"{bet_id}:raise", kind=Kind.RAISE, type="debit", amount=raise_amount))
    if penalty:
        moves.append(Movement(id=f"{bet_id}:post_penalty", kind=Kind.POST_PENALTY, type="debit", amount=penalty))
    # A zero payout is still listed so a wallet can close the round on it.
    moves.append(Movement(id=f"{bet_id}:payout", kind=Kind.PAYOUT, type="credit", amount=paid))
    return tuple(moves)


def movement_total(movements: tuple[Movement, ...]) -> int:
    """Credits minus debits: what the movements do to the player's balance."""
    return sum(m.amount if m.type == "credit" else -m.amount for m in movements)
