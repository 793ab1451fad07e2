"""The Red Dog round state machine: open, decide, close the raise window, void. Values in, values and events out.

Every move takes the time as `now` and returns a `Step`: the round and shoe after it, the audit events it caused,
and, where the move was refused only after something had to happen anyway (a decision that arrived after the
deadline settles the round by timeout first), the refusal to report once that has been committed.
"""

from __future__ import annotations

import enum
from datetime import datetime, timedelta

import msgspec

from paytables import red_dog
from paytables.events import (
    BetSettled,
    CardDealt,
    Decided,
    DecidedBy,
    Event,
    OpenedBet,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    SpreadAnnounced,
)
from paytables.paytable import Paytable
from paytables.red_dog import Classification, Decision, Outcome, Result, Transaction
from paytables.refusals import AlreadyDecided, GameError, NotInRaiseWindow, RaiseWindowClosed, UnknownBet
from shoe.cards import rank
from shoe.shoe import Shoe

SYSTEM = "system"  # the actor of what the deadline does, rather than an operator


class RoundStatus(enum.StrEnum):
    RAISE_WINDOW = "raise_window"
    SETTLED = "settled"
    VOID = "void"


class Bet(msgspec.Struct, frozen=True, kw_only=True):
    bet_id: str
    player_id: str
    ante: int
    raise_amount: int = 0
    decision: Decision | None = None
    result: Result | None = None
    payout: int | None = None
    net: int | None = None
    transactions: tuple[Transaction, ...] = ()


class DealtCard(msgspec.Struct, frozen=True, kw_only=True):
    position: int  # 1 and 2 are the posts, 3 the third card
    card: str
    shoe_index: int


class Round(msgspec.Struct, frozen=True, kw_only=True):
    round_id: str
    table_id: str
    status: RoundStatus
    paytable: str = msgspec.field(name="paytable_id")  # stored rounds name it so
    paytable_sha256: str
    decks: int
    test: bool
    commitment: str
    bets: tuple[Bet, ...]
    opened_at: datetime
    cards: tuple[DealtCard, ...] = ()
    outcome: Outcome | None = None
    spread: int | None = None
    payout_odds: int | None = None
    raise_window_closes_at: datetime | None = None
    settled_at: datetime | None = None
    void_reason: str | None = None

    @property
    def is_open(self) -> bool:
        return self.status is RoundStatus.RAISE_WINDOW


class Raise(msgspec.Struct, frozen=True, kw_only=True):
    bet_id: str
    amount: int | None = None  # None: the most the rules allow


class Call(msgspec.Struct, frozen=True, kw_only=True):
    bet_id: str


PlayerDecision = Raise | Call


class Step(msgspec.Struct, frozen=True, kw_only=True):
    """The outcome of one move: the round and shoe after it, its audit events, and a refusal to report after commit."""

    round: Round
    shoe: Shoe
    events: tuple[Event, ...]
    refusal: GameError | None = None

    @property
    def ended(self) -> bool:
        return not self.round.is_open


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
    actor: str,
) -> Step:
    """Take the antes and deal the posts; consecutive and pair rounds settle at once, a spread opens the window."""
    bets = tuple(
        Bet(bet_id=bet_id_for(round_id, i), player_id=player, ante=ante) for i, (player, ante) in enumerate(antes)
    )
    rnd = Round(
        round_id=round_id,
        table_id=table_id,
        status=RoundStatus.RAISE_WINDOW,
        paytable=paytable.id,
        paytable_sha256=paytable.sha256,
        decks=shoe.decks,
        test=test,
        commitment=shoe.commitment,
        bets=bets,
        opened_at=now,
    )
    events: list[Event] = [_opened_event(rnd, actor)]
    for _ in range(2):
        rnd, shoe, event = _deal(rnd, shoe)
        events.append(event)
    c = _classification(rnd, paytable)
    if c.outcome is not Outcome.SPREAD:
        return _finish(rnd, shoe, paytable, now, events)
    closes = now + timedelta(seconds=window_seconds)
    rnd = msgspec.structs.replace(
        rnd, outcome=Outcome.SPREAD, spread=c.spread, payout_odds=c.odds, raise_window_closes_at=closes
    )
    assert c.spread is not None
    assert c.odds is not None
    events.append(SpreadAnnounced(round_id=round_id, spread=c.spread, odds=c.odds, raise_window_closes_at=closes))
    return Step(round=rnd, shoe=shoe, events=tuple(events))


def decide(rnd: Round, shoe: Shoe, paytable: Paytable, decision: PlayerDecision, *, now: datetime, actor: str) -> Step:
    """A player's raise or call; the last decision deals the third card and settles every bet."""
    expired = settle_if_expired(rnd, shoe, paytable, now=now)
    if expired is not None:
        return msgspec.structs.replace(expired, refusal=RaiseWindowClosed(_closed_message(rnd)))
    _check_open(rnd, now)
    index = _bet_index(rnd, decision.bet_id)
    bet = rnd.bets[index]
    if bet.decision is not None:
        raise AlreadyDecided(f"bet {bet.bet_id} already decided: {bet.decision}")
    match decision:
        case Raise(amount=amount):
            decided = msgspec.structs.replace(
                bet, decision=Decision.RAISE, raise_amount=red_dog.allowed_raise(paytable, bet.ante, amount)
            )
        case Call():
            decided = msgspec.structs.replace(bet, decision=Decision.CALL, raise_amount=0)
    rnd = msgspec.structs.replace(rnd, bets=(*rnd.bets[:index], decided, *rnd.bets[index + 1 :]))
    event = _decision_event(rnd, decided, DecidedBy.PLAYER, actor)
    if any(b.decision is None for b in rnd.bets):
        return Step(round=rnd, shoe=shoe, events=(event,))
    return _finish(rnd, shoe, paytable, now, [event])


def close_window(
    rnd: Round, shoe: Shoe, paytable: Paytable, *, now: datetime, actor: str, requested_by: str | None = None
) -> Step:
    """The dealer closes the raise window now (or the deadline already has): undecided bets call, all settle."""
    expired = settle_if_expired(rnd, shoe, paytable, now=now)
    if expired is not None:
        return expired
    if not rnd.is_open:
        raise NotInRaiseWindow(f"round {rnd.round_id} is {rnd.status}")
    return _close(rnd, shoe, paytable, now, DecidedBy.DEALER, actor, requested_by)


def void_round(
    rnd: Round,
    shoe: Shoe,
    paytable: Paytable,
    *,
    reason: str,
    now: datetime,
    actor: str,
    requested_by: str | None = None,
) -> Step:
    """End a round that cannot continue: every stake taken so far is refunded by a credit."""
    expired = settle_if_expired(rnd, shoe, paytable, now=now)
    if expired is not None:
        refusal = NotInRaiseWindow(f"round {rnd.round_id} settled when its raise window closed")
        return msgspec.structs.replace(expired, refusal=refusal)
    if not rnd.is_open:
        raise NotInRaiseWindow(f"round {rnd.round_id} is {rnd.status}; only an unsettled round can be voided")
    bets = tuple(_settled(bet, red_dog.refund(bet.bet_id, bet.ante, bet.raise_amount)) for bet in rnd.bets)
    rnd = msgspec.structs.replace(rnd, status=RoundStatus.VOID, bets=bets, settled_at=now, void_reason=reason)
    events: list[Event] = [_settled_bet_event(rnd, bet) for bet in bets]
    voided = RoundVoided(round_id=rnd.round_id, reason=reason, voided_at=now, actor=actor, requested_by=requested_by)
    events.append(voided)
    return Step(round=rnd, shoe=shoe, events=tuple(events))


def settle_if_expired(rnd: Round, shoe: Shoe, paytable: Paytable, *, now: datetime) -> Step | None:
    """Settle a round whose raise window has passed, its undecided bets calling; None while it is open or over."""
    if not is_expired(rnd, now):
        return None
    return _close(rnd, shoe, paytable, now, DecidedBy.TIMEOUT, SYSTEM)


def is_expired(rnd: Round, now: datetime) -> bool:
    """Still waiting for decisions, but past its deadline: the next thing to touch it settles it by timeout."""
    return rnd.is_open and window_passed(rnd, now)


def window_passed(rnd: Round, now: datetime) -> bool:
    """The one deadline rule: the window is closed from the instant `raise_window_closes_at` on."""
    closes = rnd.raise_window_closes_at
    return closes is not None and now >= closes


def _check_open(rnd: Round, now: datetime) -> None:
    if window_passed(rnd, now):
        # A late decision gets one answer, whether or not something settled the round already.
        raise RaiseWindowClosed(_closed_message(rnd))
    if not rnd.is_open:
        raise NotInRaiseWindow(f"round {rnd.round_id} is {rnd.status}")


def _closed_message(rnd: Round) -> str:
    return f"the raise window of round {rnd.round_id} closed"


def _close(
    rnd: Round,
    shoe: Shoe,
    paytable: Paytable,
    now: datetime,
    by: DecidedBy,
    actor: str,
    requested_by: str | None = None,
) -> Step:
    events: list[Event] = []
    bets = []
    for bet in rnd.bets:
        if bet.decision is None:
            bet = msgspec.structs.replace(bet, decision=Decision.TIMEOUT_CALL)
            events.append(_decision_event(rnd, bet, by, actor, requested_by))
        bets.append(bet)
    return _finish(msgspec.structs.replace(rnd, bets=tuple(bets)), shoe, paytable, now, events)


def _finish(rnd: Round, shoe: Shoe, paytable: Paytable, now: datetime, events: list[Event]) -> Step:
    c = _classification(rnd, paytable)
    third: int | None = None
    if c.needs_third_card:
        rnd, shoe, event = _deal(rnd, shoe)
        events.append(event)
        third = rank(rnd.cards[2].card)
    first, second = rank(rnd.cards[0].card), rank(rnd.cards[1].card)
    bets = tuple(
        _settled(bet, red_dog.settle(paytable, first, second, third, bet.ante, bet.raise_amount, bet.bet_id))
        for bet in rnd.bets
    )
    outcome = red_dog.round_outcome(c, first, third)
    rnd = msgspec.structs.replace(rnd, status=RoundStatus.SETTLED, bets=bets, outcome=outcome, settled_at=now)
    events.extend(_settled_bet_event(rnd, bet) for bet in rnd.bets)
    total = sum(b.net or 0 for b in rnd.bets)
    events.append(RoundSettled(round_id=rnd.round_id, outcome=outcome, settled_at=now, total_net=total))
    return Step(round=rnd, shoe=shoe, events=tuple(events))


def _settled(bet: Bet, s: red_dog.Settlement) -> Bet:
    return msgspec.structs.replace(bet, result=s.result, payout=s.payout, net=s.net, transactions=s.transactions)


def _deal(rnd: Round, shoe: Shoe) -> tuple[Round, Shoe, CardDealt]:
    card, index, shoe = shoe.deal()
    dealt = DealtCard(position=len(rnd.cards) + 1, card=card, shoe_index=index)
    rnd = msgspec.structs.replace(rnd, cards=(*rnd.cards, dealt))
    event = CardDealt(
        round_id=rnd.round_id, position=dealt.position, card=card, shoe_index=index, commitment=shoe.commitment
    )
    return rnd, shoe, event


def _classification(rnd: Round, paytable: Paytable) -> Classification:
    return red_dog.classify(rank(rnd.cards[0].card), rank(rnd.cards[1].card), paytable)


def _bet_index(rnd: Round, bet_id: str) -> int:
    for index, bet in enumerate(rnd.bets):
        if bet.bet_id == bet_id:
            return index
    raise UnknownBet(f"round {rnd.round_id} has no bet {bet_id}")


def _opened_event(rnd: Round, actor: str) -> RoundOpened:
    return RoundOpened(
        round_id=rnd.round_id,
        paytable=rnd.paytable,
        paytable_sha256=rnd.paytable_sha256,
        decks=rnd.decks,
        commitment=rnd.commitment,
        opened_at=rnd.opened_at,
        bets=tuple(OpenedBet(bet_id=b.bet_id, player_id=b.player_id, ante=b.ante) for b in rnd.bets),
        actor=actor,
    )


def _decision_event(rnd: Round, bet: Bet, by: DecidedBy, actor: str, requested_by: str | None = None) -> Decided:
    assert bet.decision is not None
    return Decided(
        round_id=rnd.round_id,
        bet_id=bet.bet_id,
        action=bet.decision,
        raise_amount=bet.raise_amount,
        by=by,
        actor=actor,
        requested_by=requested_by,
    )


def _settled_bet_event(rnd: Round, bet: Bet) -> BetSettled:
    assert bet.result is not None
    assert bet.payout is not None
    assert bet.net is not None
    return BetSettled(
        round_id=rnd.round_id,
        bet_id=bet.bet_id,
        player_id=bet.player_id,
        ante=bet.ante,
        raise_amount=bet.raise_amount,
        decision=bet.decision,
        result=bet.result,
        payout=bet.payout,
        net=bet.net,
        transactions=bet.transactions,
    )
