"""A round replayed when it ended, and rolled back later in the chain, counts as rolled back and nothing else."""

from __future__ import annotations

from datetime import UTC, datetime

from audit.replay_stats import ReplayStats
from paytables.red_dog.events import BetSettled, Event, RolledBackBet, RoundRolledBack, RoundSettled
from paytables.red_dog.red_dog import Direction, Outcome, Result, Transaction, TransactionKind

AT = datetime(2026, 5, 1, tzinfo=UTC)
ANTE = Transaction(id="r.1:ante", kind=TransactionKind.ANTE, type=Direction.DEBIT, amount=10)
PAYOUT = Transaction(id="r.1:payout", kind=TransactionKind.PAYOUT, type=Direction.CREDIT, amount=120)


def settled() -> list[Event]:
    bet = BetSettled(
        round_id="r", bet_id="r.1", player_id="p", ante=10, raise_amount=0, decision=None, result=Result.TRIPS,
        payout=120, net=110, transactions=(ANTE, PAYOUT),
    )  # fmt: skip
    return [bet, RoundSettled(round_id="r", outcome=Outcome.TRIPS, settled_at=AT, total_net=110)]


def test_taking_back_a_round_and_counting_it_rolled_back_leaves_only_the_rollback() -> None:
    stats = ReplayStats()
    stats.add("standard/v1", 6, False, settled())
    (before,) = stats.summary()
    assert (before.rounds, before.bets, before.wagered, before.paid, before.rolled_back) == (1, 1, 10, 120, 0)
    stats.remove("standard/v1", 6, False, settled())
    back = TransactionKind.ROLLBACK
    reversals = (
        Transaction(id="r.1:ante:rollback", kind=back, type=Direction.CREDIT, amount=10, reverses="r.1:ante"),
        Transaction(id="r.1:payout:rollback", kind=back, type=Direction.DEBIT, amount=120, reverses="r.1:payout"),
    )
    rolled = RoundRolledBack(
        round_id="r", reason="debit failed", rolled_back_at=AT, actor="op", previous_status="settled",
        bets=(RolledBackBet(bet_id="r.1", player_id="p", transactions=(ANTE, PAYOUT, *reversals)),),
    )  # fmt: skip
    stats.add("standard/v1", 6, False, [*settled(), rolled])
    (after,) = stats.summary()
    assert (after.rounds, after.bets, after.wagered, after.paid, after.rolled_back) == (0, 0, 0, 0, 1)
    assert sum(o.observed for o in after.outcomes.values()) == 0
