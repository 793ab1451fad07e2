"""The Red Dog round state machine: open, decide, close the raise window, void. Values in, values and events out.

Every move takes the time as `now` and returns a `Step`: the round and shoe after it, the audit events it caused,
and, where the move was refused only after something had to happen anyway (a decision that arrived after the
deadline settles the round by timeout first), the refusal to report once that has been committed.
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from paytables.red_dog import red_dog
from paytables.red_dog.events import Decided, DecidedBy, Event, OpenedBet, RoundOpened, RoundVoided
from paytables.red_dog.paytable import Paytable
from paytables.red_dog.red_dog import Decision
from paytables.red_dog.round_deal import deal_posts, finish, settled, settled_event
from paytables.red_dog.round_model import SYSTEM as SYSTEM
from paytables.red_dog.round_model import Bet as Bet
from paytables.red_dog.round_model import Call as Call
from paytables.red_dog.round_model import DealtCard as DealtCard
from paytables.red_dog.round_model import PlayerDecision as PlayerDecision
from paytables.red_dog.round_model import Raise as Raise
from paytables.red_dog.round_model import Round as Round
from paytables.red_dog.round_model import RoundStatus as RoundStatus
from paytables.red_dog.round_model import Step as Step
from paytables.red_dog.round_model import bet_id_for
from paytables.red_dog.table import DealMode
from paytables.refusals import AlreadyDecided, NotInRaiseWindow, RaiseWindowClosed, UnknownBet
from shoe.shoe import Shoe


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
    deal: DealMode = DealMode.SHARED,
) -> Step:
    """Take the antes and deal the posts (round_deal.py): what needs no decision settles at once, a spread opens the
    raise window."""
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
        deal=deal,
    )
    dealt = deal_posts(rnd, shoe, paytable, now, window_seconds)
    return msgspec.structs.replace(dealt, events=(_opened_event(rnd, actor), *dealt.events))


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
    if bet.result is not None:
        raise NotInRaiseWindow(f"bet {bet.bet_id} settled at the deal: its {bet.outcome} has no raise window")
    match decision:
        case Raise(amount=amount):
            decided = msgspec.structs.replace(
                bet, decision=Decision.RAISE, raise_amount=red_dog.allowed_raise(paytable, bet.ante, amount)
            )
        case Call():
            decided = msgspec.structs.replace(bet, decision=Decision.CALL, raise_amount=0)
    rnd = msgspec.structs.replace(rnd, bets=(*rnd.bets[:index], decided, *rnd.bets[index + 1 :]))
    event = _decision_event(rnd, decided, DecidedBy.PLAYER, actor)
    if any(b.awaits_decision for b in rnd.bets):
        return Step(round=rnd, shoe=shoe, events=(event,))
    return finish(rnd, shoe, paytable, now, [event])


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
    """End a round that cannot continue: every stake not yet settled is refunded by a credit (a per-seat bet that
    settled at the deal keeps its result)."""
    expired = settle_if_expired(rnd, shoe, paytable, now=now)
    if expired is not None:
        refusal = NotInRaiseWindow(f"round {rnd.round_id} settled when its raise window closed")
        return msgspec.structs.replace(expired, refusal=refusal)
    if not rnd.is_open:
        raise NotInRaiseWindow(f"round {rnd.round_id} is {rnd.status}; only an unsettled round can be voided")
    open_bets = [bet.bet_id for bet in rnd.bets if bet.result is None]
    bets = tuple(
        settled(bet, red_dog.refund(bet.bet_id, bet.ante, bet.raise_amount)) if bet.bet_id in open_bets else bet
        for bet in rnd.bets
    )
    rnd = msgspec.structs.replace(rnd, status=RoundStatus.VOID, bets=bets, settled_at=now, void_reason=reason)
    events: list[Event] = [settled_event(rnd, bet) for bet in bets if bet.bet_id in open_bets]
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
        if bet.awaits_decision:
            bet = msgspec.structs.replace(bet, decision=Decision.TIMEOUT_CALL)
            events.append(_decision_event(rnd, bet, by, actor, requested_by))
        bets.append(bet)
    return finish(msgspec.structs.replace(rnd, bets=tuple(bets)), shoe, paytable, now, events)


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
        deal=rnd.deal,
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
