"""Rolling a round back in the pure core: whatever the round came to, its bets end at zero, nothing is dropped."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paytables.red_dog import loader
from paytables.red_dog.events import RoundRolledBack
from paytables.red_dog.red_dog import Direction, Result, TransactionKind, transaction_total
from paytables.red_dog.round import Call, Raise, RoundStatus, Step, decide, open_round
from paytables.red_dog.round_rollback import rollback
from paytables.refusals import RollbackGraceExpired
from shoe.shoe import ShoePolicy, new_shoe

STANDARD = loader.get("standard/v1")
NOW = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
GRACE = timedelta(seconds=300)


def _opened(seed: int, antes: list[int], window_seconds: int = 3600) -> Step:
    shoe = new_shoe(6, random.Random(seed), policy=ShoePolicy.PER_ROUND)
    return open_round(
        round_id="r",
        table_id="t",
        paytable=STANDARD,
        shoe=shoe,
        antes=[(f"p{i}", a) for i, a in enumerate(antes)],
        now=NOW,
        window_seconds=window_seconds,
        test=False,
        actor="op",
    )


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    antes=st.lists(st.integers(1, 10_000), min_size=1, max_size=7),
    raises=st.lists(st.booleans(), min_size=7, max_size=7),
    decide_first=st.booleans(),
)
def test_any_round_rolled_back_leaves_every_bet_at_zero_with_each_movement_reversed_once(
    seed: int, antes: list[int], raises: list[bool], decide_first: bool
) -> None:
    step = _opened(seed, antes)
    if decide_first and step.round.is_open:
        for bet, wants in zip(step.round.bets, raises, strict=False):
            choice = Raise(bet_id=bet.bet_id) if wants else Call(bet_id=bet.bet_id)
            step = decide(step.round, step.shoe, STANDARD, choice, now=NOW, actor="op")
    before = step.round
    done = rollback(before, step.shoe, STANDARD, reason="debit failed", now=NOW + GRACE, actor="op", grace=GRACE)
    assert done.round.status is RoundStatus.ROLLED_BACK
    assert [type(e) for e in done.events] == [RoundRolledBack]
    for old, new in zip(before.bets, done.round.bets, strict=True):
        n = max(len(old.transactions), 1 + (old.raise_amount > 0))
        if old.transactions:  # it settled: those movements, kept as they were
            assert new.transactions[:n] == old.transactions
        else:  # it never settled: the stakes taken, the ante and any raise
            taken = [(TransactionKind.ANTE, old.ante), (TransactionKind.RAISE, old.raise_amount)][:n]
            assert [(t.kind, t.type, t.amount) for t in new.transactions[:n]] == [
                (kind, Direction.DEBIT, amount) for kind, amount in taken
            ]
        assert len(new.transactions) == 2 * n
        for original, reversal in zip(new.transactions[:n], new.transactions[n:], strict=True):
            assert (reversal.kind, reversal.amount, reversal.reverses) == (
                TransactionKind.ROLLBACK,
                original.amount,
                original.id,
            )
            assert reversal.type is not original.type
        assert transaction_total(new.transactions) == 0
        assert (new.result, new.net) == (Result.ROLLED_BACK, 0)
        assert new.payout == sum(t.amount for t in new.transactions if t.type is Direction.CREDIT)


def test_a_rollback_a_moment_past_the_grace_period_is_refused() -> None:
    step = _opened(7, [10])
    late = NOW + GRACE + timedelta(microseconds=1)
    with pytest.raises(RollbackGraceExpired):
        rollback(step.round, step.shoe, STANDARD, reason="x", now=late, actor="op", grace=GRACE)


def test_rolling_back_a_rolled_back_round_returns_it_unchanged_with_no_events() -> None:
    step = _opened(7, [10])
    once = rollback(step.round, step.shoe, STANDARD, reason="x", now=NOW, actor="op", grace=GRACE)
    twice = rollback(once.round, once.shoe, STANDARD, reason="y", now=NOW + 10 * GRACE, actor="op", grace=GRACE)
    assert (twice.round, twice.events, twice.refusal) == (once.round, (), None)


def test_a_late_rollback_of_a_round_past_its_deadline_settles_it_and_carries_the_refusal() -> None:
    step = next(s for s in (_opened(seed, [10], window_seconds=15) for seed in range(100)) if s.round.is_open)
    late = NOW + GRACE + timedelta(seconds=1)
    done = rollback(step.round, step.shoe, STANDARD, reason="x", now=late, actor="op", grace=GRACE)
    assert isinstance(done.refusal, RollbackGraceExpired)
    assert done.round.status is RoundStatus.SETTLED
