"""What a round's own records must agree on, whatever its stored row says.

A stored round is compared with the state its records fold to (`round_rerun.recorded_state`); that cannot see records
that contradict each other, since the fold quietly takes what it can use. These are the contradictions it would
pass: a bet settled, decided or rolled back that the round never opened, a bet settled twice, an ended round with a
bet left unsettled, a rollback that leaves a bet out. (A round opened twice is seen by the replay, which reads the
chain in order.)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence

from audit.round_rerun import RecordedRound
from paytables.red_dog.events import BetSettled, Decided, Event, RoundRolledBack, SpreadAnnounced


def record_problems(recorded: RecordedRound) -> list[str]:
    """Every way an opened round's records contradict each other (empty when they agree)."""
    opened = recorded.opened
    assert opened is not None
    bets = [bet.bet_id for bet in opened.bets]
    problems = [
        f"its {kind} names bet {bet_id}, which its round_opened does not open"
        for kind, bet_id in _bets_named(recorded.events)
        if bet_id not in bets
    ]
    settled = Counter(event.bet_id for event in recorded.events if type(event) is BetSettled)
    problems.extend(f"bet {bet_id} has {count} bet_settled records" for bet_id, count in settled.items() if count > 1)
    rolled = recorded.rolled_back
    if rolled is not None:
        listed = {bet.bet_id for bet in rolled.bets}
        problems.extend(f"bet {bet_id} is missing from round_rolled_back" for bet_id in bets if bet_id not in listed)
    elif recorded.ended is not None:  # settled or voided: every bet was settled (a void settles each as void)
        problems.extend(f"bet {bet_id} has no bet_settled record" for bet_id in bets if bet_id not in settled)
    return problems


def _bets_named(events: Sequence[Event]) -> Iterator[tuple[str, str]]:
    """(record kind, bet id) for every bet a record of the round names."""
    for event in events:
        match event:
            case BetSettled(bet_id=bet_id):
                yield "bet_settled", bet_id
            case Decided(bet_id=bet_id):
                yield "decision", bet_id
            case SpreadAnnounced(bet_id=str(bet_id)):
                yield "spread_announced", bet_id
            case RoundRolledBack(bets=rolled):
                for bet in rolled:
                    yield "round_rolled_back", bet.bet_id
