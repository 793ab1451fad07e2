"""Rolling a round back: an aggregator whose wallet debit failed undoes the round, even one that settled at open.

Unlike a void (only before settlement; the stakes come back as one refund credit per bet), a rollback works on any
round within a grace period of its opening and reverses every transaction with one of its own, so a wallet that
applied some of them, or none, can come to zero by applying the rest.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import msgspec

from paytables.red_dog import red_dog
from paytables.red_dog.events import Event, RolledBackBet, RoundRolledBack
from paytables.red_dog.paytable import Paytable
from paytables.red_dog.round import Bet, Round, RoundStatus, Step, settle_if_expired
from paytables.refusals import RollbackGraceExpired
from shoe.shoe import Shoe


def rollback(
    rnd: Round, shoe: Shoe, paytable: Paytable, *, reason: str, now: datetime, actor: str, grace: timedelta
) -> Step:
    """Undo a round within `grace` of its opening, whatever it came to: every transaction is reversed by one of its
    own, nothing is deleted. A round already rolled back is returned as it is, with no events (idempotent)."""
    if rnd.status is RoundStatus.ROLLED_BACK:
        return Step(round=rnd, shoe=shoe, events=())
    events: list[Event] = []
    expired = settle_if_expired(rnd, shoe, paytable, now=now)
    if expired is not None:  # its deadline passed: it settled then, and that is what is rolled back
        rnd, shoe, events = expired.round, expired.shoe, list(expired.events)
    if now - rnd.opened_at > grace:
        refusal = RollbackGraceExpired(f"round {rnd.round_id} opened more than {grace.total_seconds():.0f} s ago")
        if expired is None:
            raise refusal
        return msgspec.structs.replace(expired, refusal=refusal)
    bets = tuple(_rolled_back(bet) for bet in rnd.bets)
    previous = rnd.status
    rnd = msgspec.structs.replace(
        rnd,
        status=RoundStatus.ROLLED_BACK,
        bets=bets,
        settled_at=rnd.settled_at or now,
        rolled_back_at=now,
        rollback_reason=reason,
    )
    rolled = tuple(RolledBackBet(bet_id=b.bet_id, player_id=b.player_id, transactions=b.transactions) for b in bets)
    events.append(
        RoundRolledBack(
            round_id=rnd.round_id,
            reason=reason,
            rolled_back_at=now,
            actor=actor,
            previous_status=previous.value,
            bets=rolled,
        )
    )
    return Step(round=rnd, shoe=shoe, events=tuple(events))


def _rolled_back(bet: Bet) -> Bet:
    """The bet's movements (the stakes taken, if it never settled) and their reversals: it pays and costs nothing."""
    moves = bet.transactions or red_dog.stakes_taken(bet.bet_id, bet.ante, bet.raise_amount)
    transactions = (*moves, *red_dog.reversals(moves))
    credited = sum(m.amount for m in transactions if m.type is red_dog.Direction.CREDIT)
    return msgspec.structs.replace(
        bet,
        result=red_dog.Result.ROLLED_BACK,
        payout=credited,
        net=red_dog.transaction_total(transactions),
        transactions=transactions,
    )
