"""The round state machine: open, decide, close the raise window, void. Pure: values in, values and events out."""

from __future__ import annotations

import enum
from datetime import datetime, timedelta
from typing import Any

import msgspec

from paytables.paytable import Paytable
from paytables.red_dog import Classification, Kind, Movement, Outcome, Result, RuleError, classify, settle
from shoe.cards import rank
from shoe.shoe import Shoe


class RoundStatus(enum.StrEnum):
    RAISE_WINDOW = "raise_window"
    SETTLED = "settled"
    VOID = "void"


class Decision(enum.StrEnum):
    RAISE = "raise"
    CALL = "call"
    TIMEOUT_CALL = "timeout_call"


class GameError(Exception):
    """A move the rules refuse; `code` is stable and machine-readable."""

    code = "GAME_ERROR"


class NotInRaiseWindow(GameError):
    code = "NOT_IN_RAISE_WINDOW"


class RaiseWindowClosed(GameError):
    code = "RAISE_WINDOW_CLOSED"


class AlreadyDecided(GameError):
    code = "ALREADY_DECIDED"


class UnknownBet(GameError):
    code = "NOT_FOUND"


class RaiseExceedsAnte(GameError):
    code = "RAISE_EXCEEDS_ANTE"


class Bet(msgspec.Struct, frozen=True, kw_only=True):
    bet_id: str
    player_id: str
    ante: int
    raise_amount: int = 0
    decision: Decision | None = None
    result: str | None = None  # a rules Result, or "void"
    payout: int | None = None
    net: int | None = None
    transactions: tuple[Movement, ...] = ()


class DealtCard(msgspec.Struct, frozen=True, kw_only=True):
    position: int  # 1 and 2 are the posts, 3 the third card
    card: str
    shoe_index: int


class Round(msgspec.Struct, frozen=True, kw_only=True):
    round_id: str
    table_id: str
    status: RoundStatus
    paytable_id: str
    paytable_sha256: str
    decks: int
    test: bool
    commitment: str
    bets: tuple[Bet, ...]
    opened_at: datetime
    cards: tuple[DealtCard, ...] = ()
    outcome: str | None = None  # consecutive, pair, trips or spread
    spread: int | None = None
    payout_odds: int | None = None
    raise_window_closes_at: datetime | None = None
    settled_at: datetime | None = None
    void_reason: str | None = None


class Event(msgspec.Struct, frozen=True, kw_only=True):
    """One audit record's content: what happened, to which round and bet, with what a replay needs."""

    kind: str
    round_id: str | None = None
    bet_id: str | None = None
    payload: dict[str, Any] = {}


class Step(msgspec.Struct, frozen=True, kw_only=True):
    """The outcome of one move: the round and shoe after it, and the events to append to the audit log."""

    round: Round
    shoe: Shoe
    events: tuple[Event, ...]


def bet_id_for(round_id: str, index: int) -> str:
    return f"{round_id}.{index + 1}"


def open_round(
    *,
    round_id: str,
    table_id: str,
    paytable: Paytable,
    shoe: Shoe,
    antes: list[tuple[str, int]],
    now: datetime,
    window_seconds: int,
    test: bool,
) -> Step:
    """Take the antes and deal the posts; consecutive and pair rounds settle at once, a spread opens the window."""
    bets = tuple(
        Bet(bet_id=bet_id_for(round_id, i), player_id=player, ante=ante) for i, (player, ante) in enumerate(antes)
    )
    rnd = Round(
        round_id=round_id,
        table_id=table_id,
        status=RoundStatus.RAISE_WINDOW,
        paytable_id=paytable.id,
        paytable_sha256=paytable.sha256,
        decks=shoe.decks,
        test=test,
        commitment=shoe.commitment,
        bets=bets,
        opened_at=now,
    )
    events = [_opened_event(rnd)]
    for _ in range(2):
        rnd, shoe, event = _deal(rnd, shoe)
        events.append(event)
    c = _classification(rnd, paytable)
    if c.outcome is Outcome.SPREAD:
        closes = now + timedelta(seconds=window_seconds)
        rnd = msgspec.structs.replace(
            rnd, outcome="spread", spread=c.spread, payout_odds=c.odds, raise_window_closes_at=closes
        )
        payload = {"spread": c.spread, "odds": c.odds, "raise_window_closes_at": _iso(closes)}
        events.append(Event(kind="spread_announced", round_id=round_id, payload=payload))
        return Step(round=rnd, shoe=shoe, events=tuple(events))
    return _finish(rnd, shoe, paytable, now, events)


def decide(
    rnd: Round, shoe: Shoe, paytable: Paytable, *, bet_id: str, action: Decision, amount: int | None, now: datetime
) -> Step:
    """A player's raise or call; the last decision deals the third card and settles every bet."""
    check_open(rnd, now)
    index = _bet_index(rnd, bet_id)
    bet = rnd.bets[index]
    if bet.decision is not None:
        raise AlreadyDecided(f"bet {bet_id} already decided: {bet.decision}")
    raise_amount = _raise_amount(bet, paytable, action, amount)
    decided = msgspec.structs.replace(bet, decision=action, raise_amount=raise_amount)
    bets = (*rnd.bets[:index], decided, *rnd.bets[index + 1 :])
    rnd = msgspec.structs.replace(rnd, bets=bets)
    event = _decision_event(rnd, decided, "player")
    if any(b.decision is None for b in rnd.bets):
        return Step(round=rnd, shoe=shoe, events=(event,))
    return _finish(rnd, shoe, paytable, now, [event])


def close_window(rnd: Round, shoe: Shoe, paytable: Paytable, *, now: datetime, by: str) -> Step:
    """Close the raise window (the dealer, or the deadline): undecided bets call, then everything settles."""
    if rnd.status is not RoundStatus.RAISE_WINDOW:
        raise NotInRaiseWindow(f"round {rnd.round_id} is {rnd.status}")
    events: list[Event] = []
    bets = []
    for bet in rnd.bets:
        if bet.decision is None:
            bet = msgspec.structs.replace(bet, decision=Decision.TIMEOUT_CALL)
            events.append(_decision_event(rnd, bet, by))
        bets.append(bet)
    return _finish(msgspec.structs.replace(rnd, bets=tuple(bets)), shoe, paytable, now, events)


def void_round(rnd: Round, shoe: Shoe, *, reason: str, now: datetime) -> Step:
    """End a round that cannot continue: every stake taken so far is refunded by a credit."""
    if rnd.status is not RoundStatus.RAISE_WINDOW:
        raise NotInRaiseWindow(f"round {rnd.round_id} is {rnd.status}; only an unsettled round can be voided")
    bets = tuple(_refund(bet) for bet in rnd.bets)
    rnd = msgspec.structs.replace(rnd, status=RoundStatus.VOID, bets=bets, settled_at=now, void_reason=reason)
    events = [_settled_bet_event(rnd, bet) for bet in bets]
    events.append(Event(kind="round_voided", round_id=rnd.round_id, payload={"reason": reason, "at": _iso(now)}))
    return Step(round=rnd, shoe=shoe, events=(*events, *retire_events(shoe)))


def check_open(rnd: Round, now: datetime) -> None:
    """Refuse a decision unless the round's raise window is open now."""
    closes = rnd.raise_window_closes_at
    if closes is not None and now >= closes:
        # Checked first: a late decision gets one answer, whether or not a sweeper settled the round already.
        raise RaiseWindowClosed(f"the raise window of round {rnd.round_id} closed")
    if rnd.status is not RoundStatus.RAISE_WINDOW:
        raise NotInRaiseWindow(f"round {rnd.round_id} is {rnd.status}")


def is_expired(rnd: Round, now: datetime) -> bool:
    closes = rnd.raise_window_closes_at
    return rnd.status is RoundStatus.RAISE_WINDOW and closes is not None and now >= closes


def shuffled_events(shoe: Shoe, *, policy: str) -> tuple[Event, ...]:
    """The commitment is published before any card of the shoe is dealt."""
    payload = {"commitment": shoe.commitment, "decks": shoe.decks, "policy": policy, "cut_position": shoe.cut_position}
    return (Event(kind="shoe_shuffled", payload=payload),)


def retire_events(shoe: Shoe) -> tuple[Event, ...]:
    """A per-round shoe is revealed when its round ends; a cut-card shoe only when it is replaced."""
    return () if shoe.cut_position is not None else reveal_events(shoe)


def reveal_events(shoe: Shoe) -> tuple[Event, ...]:
    payload = {"commitment": shoe.commitment, "salt": shoe.salt, "order": shoe.order, "dealt": shoe.position}
    return (Event(kind="shoe_revealed", payload=payload),)


def _finish(rnd: Round, shoe: Shoe, paytable: Paytable, now: datetime, events: list[Event]) -> Step:
    c = _classification(rnd, paytable)
    third: int | None = None
    if c.needs_third_card:
        rnd, shoe, event = _deal(rnd, shoe)
        events.append(event)
        third = rank(rnd.cards[2].card)
    first, second = rank(rnd.cards[0].card), rank(rnd.cards[1].card)
    bets = []
    for bet in rnd.bets:
        s = settle(paytable, first, second, third, bet.ante, bet.raise_amount, bet.bet_id)
        bets.append(
            msgspec.structs.replace(bet, result=s.result.value, payout=s.paid, net=s.net, transactions=s.movements)
        )
    outcome = c.outcome.value
    if c.outcome is Outcome.PAIR and third == first:
        outcome = Result.TRIPS.value
    rnd = msgspec.structs.replace(rnd, status=RoundStatus.SETTLED, bets=tuple(bets), outcome=outcome, settled_at=now)
    events.extend(_settled_bet_event(rnd, bet) for bet in rnd.bets)
    payload = {"outcome": outcome, "settled_at": _iso(now), "total_net": sum(b.net or 0 for b in rnd.bets)}
    events.append(Event(kind="round_settled", round_id=rnd.round_id, payload=payload))
    return Step(round=rnd, shoe=shoe, events=(*events, *retire_events(shoe)))


def _deal(rnd: Round, shoe: Shoe) -> tuple[Round, Shoe, Event]:
    card, index, shoe = shoe.deal()
    dealt = DealtCard(position=len(rnd.cards) + 1, card=card, shoe_index=index)
    rnd = msgspec.structs.replace(rnd, cards=(*rnd.cards, dealt))
    payload = {"position": dealt.position, "card": card, "shoe_index": index, "commitment": shoe.commitment}
    return rnd, shoe, Event(kind="card_dealt", round_id=rnd.round_id, payload=payload)


def _classification(rnd: Round, paytable: Paytable) -> Classification:
    return classify(rank(rnd.cards[0].card), rank(rnd.cards[1].card), paytable)


def _bet_index(rnd: Round, bet_id: str) -> int:
    for index, bet in enumerate(rnd.bets):
        if bet.bet_id == bet_id:
            return index
    raise UnknownBet(f"round {rnd.round_id} has no bet {bet_id}")


def _raise_amount(bet: Bet, paytable: Paytable, action: Decision, amount: int | None) -> int:
    limit = bet.ante * paytable.terms.max_raise_multiple
    if action is Decision.CALL:
        if amount:
            raise RaiseExceedsAnte("a call takes no amount (or 0)")
        return 0
    if action is not Decision.RAISE:
        raise RuleError(f"not a player's action: {action}")
    value = limit if amount is None else amount
    if not 1 <= value <= limit:
        raise RaiseExceedsAnte(f"a raise must be 1..{limit} (the ante), got {value}")
    return value


def _refund(bet: Bet) -> Bet:
    staked = bet.ante + bet.raise_amount
    moves = [Movement(id=f"{bet.bet_id}:ante", kind=Kind.ANTE, type="debit", amount=bet.ante)]
    if bet.raise_amount:
        moves.append(Movement(id=f"{bet.bet_id}:raise", kind=Kind.RAISE, type="debit", amount=bet.raise_amount))
    moves.append(Movement(id=f"{bet.bet_id}:refund", kind=Kind.REFUND, type="credit", amount=staked))
    return msgspec.structs.replace(bet, result="void", payout=staked, net=0, transactions=tuple(moves))


def _opened_event(rnd: Round) -> Event:
    payload = {
        "table_id": rnd.table_id,
        "paytable": rnd.paytable_id,
        "paytable_sha256": rnd.paytable_sha256,
        "decks": rnd.decks,
        "test": rnd.test,
        "commitment": rnd.commitment,
        "opened_at": _iso(rnd.opened_at),
        "bets": [{"bet_id": b.bet_id, "player_id": b.player_id, "ante": b.ante} for b in rnd.bets],
    }
    return Event(kind="round_opened", round_id=rnd.round_id, payload=payload)


def _decision_event(rnd: Round, bet: Bet, by: str) -> Event:
    payload = {"action": bet.decision, "amount": bet.raise_amount, "by": by}
    return Event(kind="decision", round_id=rnd.round_id, bet_id=bet.bet_id, payload=payload)


def _settled_bet_event(rnd: Round, bet: Bet) -> Event:
    payload = {
        "player_id": bet.player_id,
        "ante": bet.ante,
        "raise": bet.raise_amount,
        "decision": bet.decision,
        "result": bet.result,
        "payout": bet.payout,
        "net": bet.net,
        "transactions": [msgspec.structs.asdict(m) for m in bet.transactions],
    }
    return Event(kind="bet_settled", round_id=rnd.round_id, bet_id=bet.bet_id, payload=payload)


def _iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")
