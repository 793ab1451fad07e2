"""The rules of a Red Dog bet: classify the posts, decide what a raise may be, settle on the third card (integers)."""

from __future__ import annotations

import enum

import msgspec

from paytables.red_dog.paytable import Paytable, PostRule
from paytables.refusals import RaiseExceedsAnte


class Outcome(enum.StrEnum):
    """What a round's cards came to; the posts alone give consecutive, pair or spread, a pair's third card trips."""

    CONSECUTIVE = "consecutive"
    PAIR = "pair"
    TRIPS = "trips"
    SPREAD = "spread"


class Result(enum.StrEnum):
    WIN = "win"
    LOSE = "lose"
    PUSH = "push"
    TRIPS = "trips"
    VOID = "void"  # the round was voided and every stake refunded
    ROLLED_BACK = "rolled_back"  # the round was rolled back: every transaction reversed


class Decision(enum.StrEnum):
    RAISE = "raise"
    CALL = "call"
    TIMEOUT_CALL = "timeout_call"  # the window closed before the player decided: a call


class TransactionKind(enum.StrEnum):
    ANTE = "ante"
    RAISE = "raise"
    PAYOUT = "payout"
    POST_PENALTY = "post_penalty"
    REFUND = "refund"
    ROLLBACK = "rollback"  # reverses one earlier transaction of the bet (`reverses` names it)


class Direction(enum.StrEnum):
    DEBIT = "debit"
    CREDIT = "credit"


class RuleError(ValueError):
    """A settlement the rules cannot make (a raise where none is allowed, a missing third card): a caller's bug."""


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


class Transaction(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """One wallet movement; the id is derived from the bet so a wallet can apply it exactly once."""

    id: str
    kind: TransactionKind
    type: Direction
    amount: int
    # A rollback's id of the transaction it reverses. Omitted when None, so the records of every other transaction
    # keep the bytes they had before the field existed.
    reverses: str | None = None


class Settlement(msgspec.Struct, frozen=True, kw_only=True):
    """A settled bet: result, total paid back (stake included), net and the transactions that add up to it."""

    result: Result
    payout: int
    net: int
    wagered: int  # every debit: ante + raise + any post penalty
    transactions: tuple[Transaction, ...]


def classify(first_rank: int, second_rank: int, paytable: Paytable) -> Classification:
    """Classify the two posts by rank (2..14, aces high)."""
    low, high = (first_rank, second_rank) if first_rank <= second_rank else (second_rank, first_rank)
    if low == high:
        return Classification(outcome=Outcome.PAIR)
    spread = high - low - 1
    if spread == 0:
        return Classification(outcome=Outcome.CONSECUTIVE)
    return Classification(outcome=Outcome.SPREAD, spread=spread, odds=paytable.spread_odds(spread))


def round_outcome(classification: Classification, first_rank: int, third_rank: int | None) -> Outcome:
    """The round's outcome once its cards are out: a pair whose third card matches is trips."""
    if classification.outcome is Outcome.PAIR and third_rank == first_rank:
        return Outcome.TRIPS
    return classification.outcome


def allowed_raise(paytable: Paytable, ante: int, requested: int | None) -> int:
    """The one rule for a raise: a whole amount from 1 up to the ante (times the paytable's multiple); none asked
    for means the most allowed."""
    limit = ante * paytable.terms.max_raise_multiple
    amount = limit if requested is None else requested
    if not 1 <= amount <= limit:
        raise RaiseExceedsAnte(f"a raise must be 1..{limit} (the ante), got {amount}")
    return amount


def settle(
    paytable: Paytable,
    first_rank: int,
    second_rank: int,
    third_rank: int | None,
    ante: int,
    raise_amount: int = 0,
    bet_id: str = "bet",
) -> Settlement:
    """Settle one bet (`raise_amount` 0 is a call). `third_rank` is None only after consecutive posts."""
    classification = classify(first_rank, second_rank, paytable)
    check_stake(paytable, classification, ante, raise_amount)
    if classification.needs_third_card and third_rank is None:
        raise RuleError(f"a {classification.outcome} round needs a third card")
    wager = ante + raise_amount
    penalty = 0
    outcome = round_outcome(classification, first_rank, third_rank)
    if outcome is Outcome.TRIPS:
        result, payout = Result.TRIPS, ante + ante * paytable.terms.trips_odds
    elif outcome is not Outcome.SPREAD:
        result, payout = Result.PUSH, ante
    elif min(first_rank, second_rank) < (third_rank or 0) < max(first_rank, second_rank):
        result, payout = Result.WIN, wager + wager * (classification.odds or 0)
    else:
        result, payout = Result.LOSE, 0
        if third_rank in (first_rank, second_rank) and paytable.terms.post_rule is PostRule.LOSE_DOUBLE:
            penalty = wager
    debits = {TransactionKind.ANTE: ante, TransactionKind.RAISE: raise_amount, TransactionKind.POST_PENALTY: penalty}
    return Settlement(
        result=result,
        payout=payout,
        net=payout - wager - penalty,
        wagered=wager + penalty,
        transactions=transactions(bet_id, debits, TransactionKind.PAYOUT, payout),
    )


def refund(bet_id: str, ante: int, raise_amount: int) -> Settlement:
    """A voided bet: every stake taken is credited back as a refund."""
    staked = ante + raise_amount
    debits = {TransactionKind.ANTE: ante, TransactionKind.RAISE: raise_amount}
    return Settlement(
        result=Result.VOID,
        payout=staked,
        net=0,
        wagered=staked,
        transactions=transactions(bet_id, debits, TransactionKind.REFUND, staked),
    )


def transactions(
    bet_id: str, debits: dict[TransactionKind, int], credit: TransactionKind, amount: int
) -> tuple[Transaction, ...]:
    """Debits in order (the ante always, others when non-zero), then the one credit, listed even when 0 so a wallet
    can close the round on it."""
    moves = [
        Transaction(id=f"{bet_id}:{kind.value}", kind=kind, type=Direction.DEBIT, amount=value)
        for kind, value in debits.items()
        if value or kind is TransactionKind.ANTE
    ]
    moves.append(Transaction(id=f"{bet_id}:{credit.value}", kind=credit, type=Direction.CREDIT, amount=amount))
    return tuple(moves)


def stakes_taken(bet_id: str, ante: int, raise_amount: int) -> tuple[Transaction, ...]:
    """The debits of a bet whose round has not settled: the ante, and the raise once decided."""
    debits = {TransactionKind.ANTE: ante, TransactionKind.RAISE: raise_amount}
    return tuple(
        Transaction(id=f"{bet_id}:{kind}", kind=kind, type=Direction.DEBIT, amount=value)
        for kind, value in debits.items()
        if value or kind is TransactionKind.ANTE
    )


def reversals(moves: tuple[Transaction, ...]) -> tuple[Transaction, ...]:
    """One compensating transaction per movement, in the same order: the other direction, the same amount, its own
    id (the reversed id + ":rollback"), so a wallet applies each once and the movements add up to nothing."""
    flip = {Direction.DEBIT: Direction.CREDIT, Direction.CREDIT: Direction.DEBIT}
    return tuple(
        Transaction(
            id=f"{m.id}:{TransactionKind.ROLLBACK}",
            kind=TransactionKind.ROLLBACK,
            type=flip[m.type],
            amount=m.amount,
            reverses=m.id,
        )
        for m in moves
    )


def transaction_total(moves: tuple[Transaction, ...]) -> int:
    """Credits minus debits: what the transactions do to the player's balance."""
    return sum(m.amount if m.type is Direction.CREDIT else -m.amount for m in moves)


def check_stake(paytable: Paytable, classification: Classification, ante: int, raise_amount: int) -> None:
    """Refuse a stake settle() cannot take: an ante below 1, a raise off a spread or outside allowed_raise."""
    if ante < 1:
        raise RuleError("the ante must be at least 1")
    if raise_amount == 0:
        return
    if not classification.opens_raise_window:
        raise RuleError(f"no raise on a {classification.outcome} round")
    allowed_raise(paytable, ante, raise_amount)
