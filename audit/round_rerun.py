"""One round rebuilt from its records and re-run through the game core (`paytables/red_dog/round.py`), then compared.

The records give the inputs: who bet what (round_opened), the decisions as made and by whom (player, dealer or
timeout), when the round ended; the revealed shoe gives the cards. The game core then produces the round's events
afresh, and every one must equal its record field for field.
"""

from __future__ import annotations

import functools
from datetime import datetime, timedelta
from typing import Any

import msgspec

from paytables.red_dog import loader, round_rollback
from paytables.red_dog import round as red_dog_round
from paytables.red_dog.events import (
    BetSettled,
    CardDealt,
    Decided,
    DecidedBy,
    Event,
    RoundOpened,
    RoundRolledBack,
    RoundSettled,
    RoundVoided,
    SpreadAnnounced,
)
from paytables.red_dog.paytable import Paytable
from paytables.red_dog.red_dog import Decision, Direction, Outcome, Result, RuleError, transaction_total
from paytables.red_dog.round import DealtCard, Round, RoundStatus, Step
from paytables.red_dog.table import TableSettings
from paytables.refusals import GameError
from shoe.shoe import Shoe, ShoeError


class RecordedRound:
    """A round's records as they were read, in chain order; `events` holds them all, the rest indexes them."""

    __slots__ = ("decided_at", "ended", "events", "opened", "rolled_back", "round_id", "table_id", "test")

    def __init__(self, round_id: str, table_id: str, test: bool) -> None:
        self.round_id = round_id
        self.table_id = table_id
        self.test = test
        self.opened: RoundOpened | None = None  # None: opened before the export starts
        self.events: list[Event] = []
        self.decided_at: list[datetime] = []  # recorded_at of each player decision, in order
        self.ended: RoundSettled | RoundVoided | None = None
        self.rolled_back: RoundRolledBack | None = None

    @property
    def finished(self) -> bool:
        """Over, by settlement, void or rollback: its shoe may be revealed and the round re-run."""
        return self.ended is not None or self.rolled_back is not None

    def first_shoe_index(self) -> int | None:
        for event in self.events:
            if type(event) is CardDealt:
                return event.shoe_index
        return None

    def card_count(self) -> int:
        return sum(1 for e in self.events if type(e) is CardDealt)


def rerun(
    recorded: RecordedRound, shoe: Shoe, paytable: Paytable, window_seconds: int
) -> tuple[Step | None, list[str]]:
    """The round re-run from the shoe's position, and every way it differs from its records (empty: it matches)."""
    opened = recorded.opened
    assert opened is not None
    try:
        step = _play(recorded, opened, shoe, paytable, window_seconds)
    except (GameError, RuleError, ShoeError) as exc:
        return None, [f"round {recorded.round_id}: the game core refuses what the records say: {exc}"]
    if isinstance(step, str):
        return None, [f"round {recorded.round_id}: {step}"]
    return step, compare(recorded.round_id, recorded.events, step.events)


def _play(recorded: RecordedRound, opened: RoundOpened, shoe: Shoe, paytable: Paytable, window: int) -> Step | str:
    step = red_dog_round.open_round(
        round_id=opened.round_id,
        table_id=recorded.table_id,
        paytable=paytable,
        shoe=shoe,
        antes=[(b.player_id, b.ante) for b in opened.bets],
        now=opened.opened_at,
        window_seconds=window,
        test=recorded.test,
        actor=opened.actor,
        deal=opened.deal,
    )
    events = list(step.events)
    ended = recorded.ended
    end_time = None if ended is None else ended.settled_at if isinstance(ended, RoundSettled) else ended.voided_at
    closing: Decided | None = None
    player = 0
    for event in recorded.events:
        if type(event) is not Decided:
            continue
        if event.by is not DecidedBy.PLAYER:
            closing = closing or event
            continue
        at = recorded.decided_at[player]
        player += 1
        if step.ended:
            return f"bet {event.bet_id} decided by the player after the round had ended"
        now = at if end_time is None else min(at, end_time)
        decision: red_dog_round.PlayerDecision = (
            red_dog_round.Raise(bet_id=event.bet_id, amount=event.raise_amount)
            if event.action is Decision.RAISE
            else red_dog_round.Call(bet_id=event.bet_id)
        )
        step = red_dog_round.decide(step.round, step.shoe, paytable, decision, now=now, actor=event.actor)
        events.extend(step.events)
    if not step.ended and end_time is not None:
        last = _end(step, paytable, ended, closing, end_time)
        if isinstance(last, str):
            return last
        step = last
        events.extend(step.events)
    rolled = recorded.rolled_back
    if rolled is not None:  # the grace period held when it was asked for: the record says it was done
        step = round_rollback.rollback(
            step.round,
            step.shoe,
            paytable,
            reason=rolled.reason,
            now=rolled.rolled_back_at,
            actor=rolled.actor,
            grace=timedelta.max,
        )
        events.extend(step.events)
    return msgspec.structs.replace(step, events=tuple(events))


def _end(
    step: Step, paytable: Paytable, ended: RoundSettled | RoundVoided | None, closing: Decided | None, at: datetime
) -> Step | str:
    """The move that ended a round the players did not finish: a void, the dealer's close or the deadline."""
    if type(ended) is RoundVoided:
        extra = _requested_by(ended)
        return red_dog_round.void_round(
            step.round, step.shoe, paytable, reason=ended.reason, now=at, actor=ended.actor, **extra
        )
    if closing is None:
        return "the round settled while bets were undecided, and no record says who closed it"
    if closing.by is DecidedBy.DEALER:
        extra = _requested_by(closing)
        return red_dog_round.close_window(step.round, step.shoe, paytable, now=at, actor=closing.actor, **extra)
    expired = red_dog_round.settle_if_expired(step.round, step.shoe, paytable, now=at)
    if expired is None:
        closes = step.round.raise_window_closes_at
        return f"settled by timeout at {at.isoformat()}, before its raise window closed at {closes}"
    return expired


def _requested_by(event: Decided | RoundVoided) -> dict[str, Any]:
    """Who asked for a close or a void, where the records say (the events gain `requested_by` with the checkpoint
    work, issue 8): passed back to the game core so it writes the same event again."""
    asked = getattr(event, "requested_by", None)
    return {} if asked is None else {"requested_by": asked}


def compare(round_id: str, recorded: list[Event], replayed: tuple[Event, ...]) -> list[str]:
    """Every difference between the recorded and the re-run events, named by round and bet."""
    if recorded == list(replayed):
        return []
    for index, (mine, theirs) in enumerate(zip(recorded, replayed, strict=False)):
        if mine != theirs:
            return [_difference(round_id, mine, theirs, index)]
    if len(recorded) > len(replayed):
        extra = recorded[len(replayed)]
        return [f"round {round_id}: the records go on after the game core ends the round: {_kind(extra)}"]
    missing = replayed[len(recorded)]
    return [f"round {round_id}: the game core goes on where the records stop: {_kind(missing)} is not recorded"]


def _difference(round_id: str, recorded: Event, replayed: Event, index: int) -> str:
    where = f"round {round_id}"
    bet_id = getattr(recorded, "bet_id", None)
    if bet_id is not None:
        where += f" bet {bet_id}"
    if type(recorded) is not type(replayed):
        return f"{where}: record {index + 1} of the round is {_kind(recorded)}, the game core gives {_kind(replayed)}"
    mine, theirs = msgspec.structs.asdict(recorded), msgspec.structs.asdict(replayed)
    fields = [name for name in mine if mine[name] != theirs[name]]
    details = ", ".join(f"{name} recorded {_show(mine[name])}, replayed {_show(theirs[name])}" for name in fields)
    return f"{where}: {_kind(recorded)}: {details}"


def _show(value: object) -> str:
    if isinstance(value, tuple) and value and isinstance(value[0], msgspec.Struct):
        return msgspec.json.encode(value).decode()
    return repr(value) if isinstance(value, str) else str(value)


def _kind(event: Event) -> str:
    tag = type(event).__struct_config__.tag
    return str(tag)


def recorded_state(recorded: RecordedRound, paytable_id: str, sha256: str, decks: int, commitment: str) -> Round:
    """The round as its records alone describe it: what a stored round's state must equal."""
    opened = recorded.opened
    assert opened is not None
    bets = {b.bet_id: red_dog_round.Bet(bet_id=b.bet_id, player_id=b.player_id, ante=b.ante) for b in opened.bets}
    rnd = Round(
        round_id=recorded.round_id,
        table_id=recorded.table_id,
        status=RoundStatus.RAISE_WINDOW,
        paytable=paytable_id,
        paytable_sha256=sha256,
        decks=decks,
        test=recorded.test,
        commitment=commitment,
        bets=(),
        opened_at=opened.opened_at,
        deal=opened.deal,
    )
    cards: list[DealtCard] = []
    seats = list(bets)  # seat n is the round's n-th bet
    for event in recorded.events:
        rnd = _fold(rnd, event, bets, cards, seats)
    return msgspec.structs.replace(rnd, bets=tuple(bets.values()), cards=tuple(cards))


def _fold(
    rnd: Round, event: Event, bets: dict[str, red_dog_round.Bet], cards: list[DealtCard], seats: list[str]
) -> Round:
    match event:
        case CardDealt(position=position, card=card, shoe_index=index, seat=seat):
            dealt = DealtCard(position=position, card=card, shoe_index=index, seat=seat)
            cards.append(dealt)
            if seat is not None and 1 <= seat <= len(seats):
                bet = bets[seats[seat - 1]]
                bets[bet.bet_id] = msgspec.structs.replace(bet, cards=(*bet.cards, dealt))
        case SpreadAnnounced(bet_id=str(bet_id), spread=spread, odds=odds, raise_window_closes_at=closes):
            if bet_id in bets:
                bets[bet_id] = msgspec.structs.replace(
                    bets[bet_id], outcome=Outcome.SPREAD, spread=spread, payout_odds=odds
                )
            return msgspec.structs.replace(rnd, raise_window_closes_at=closes)
        case SpreadAnnounced(spread=spread, odds=odds, raise_window_closes_at=closes):
            return msgspec.structs.replace(
                rnd, outcome=Outcome.SPREAD, spread=spread, payout_odds=odds, raise_window_closes_at=closes
            )
        case Decided(bet_id=bet_id, action=action, raise_amount=amount) if bet_id in bets:
            bets[bet_id] = msgspec.structs.replace(bets[bet_id], decision=action, raise_amount=amount)
        case BetSettled(bet_id=bet_id) if bet_id in bets:
            bets[bet_id] = msgspec.structs.replace(
                bets[bet_id],
                raise_amount=event.raise_amount,
                decision=event.decision,
                result=event.result,
                payout=event.payout,
                net=event.net,
                transactions=event.transactions,
                outcome=event.outcome if event.outcome is not None else bets[bet_id].outcome,
            )
        case RoundSettled(outcome=outcome, settled_at=at):
            return msgspec.structs.replace(rnd, status=RoundStatus.SETTLED, outcome=outcome, settled_at=at)
        case RoundVoided(reason=reason, voided_at=at):
            return msgspec.structs.replace(rnd, status=RoundStatus.VOID, settled_at=at, void_reason=reason)
        case RoundRolledBack(reason=reason, rolled_back_at=at):
            for rolled in event.bets:
                if rolled.bet_id in bets:
                    bets[rolled.bet_id] = msgspec.structs.replace(
                        bets[rolled.bet_id],
                        result=Result.ROLLED_BACK,
                        payout=sum(t.amount for t in rolled.transactions if t.type is Direction.CREDIT),
                        net=transaction_total(rolled.transactions),
                        transactions=rolled.transactions,
                    )
            return msgspec.structs.replace(
                rnd,
                status=RoundStatus.ROLLED_BACK,
                settled_at=rnd.settled_at or at,
                rolled_back_at=at,
                rollback_reason=reason,
            )
    return rnd


def state_of(recorded: RecordedRound) -> Round:
    """The state its records describe, for an opened round."""
    opened = recorded.opened
    assert opened is not None
    return recorded_state(recorded, opened.paytable, opened.paytable_sha256, opened.decks, opened.commitment)


def raise_window_of(recorded: RecordedRound, settings: TableSettings | None) -> int:
    """The table's raise window; from the round's own deadline only when the export lacks the table's settings."""
    if settings is not None:
        return settings.raise_window_seconds
    opened = recorded.opened
    assert opened is not None
    for event in recorded.events:
        if type(event) is SpreadAnnounced:
            return int((event.raise_window_closes_at - opened.opened_at).total_seconds())
    return 0


@functools.cache
def released_paytable(paytable_id: str) -> Paytable | str:
    try:
        return loader.get(paytable_id)
    except loader.PaytableError as exc:
        return str(exc)


def paytable_problem(paytable_id: str, recorded_sha256: str) -> str | None:
    """Why the released file cannot be the paytable a record names (None: it is)."""
    paytable = released_paytable(paytable_id)
    if isinstance(paytable, str):
        return f"paytable {paytable_id}: {paytable}"
    if paytable.sha256 != recorded_sha256:
        return f"paytable {paytable_id}: recorded sha256 {recorded_sha256}, the released file's is {paytable.sha256}"
    return None
