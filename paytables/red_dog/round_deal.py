"""Dealing a Red Dog round and settling its bets, for both deals.

Shared: two posts for the whole round; a spread opens the raise window; the one third card settles every bet.
Per seat: the first card to every seat in seat order, then the second to every seat; then each pair gets its third
card at once, in seat order, and each push or pair settles there; every spread bet waits in the round's one raise
window, and when the window ends their third cards are dealt in seat order. Round-robin dealing is what a dealer at
the table does, and the order is fixed so that a replay deals the same cards to the same seats.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import msgspec

from paytables.red_dog import red_dog
from paytables.red_dog.events import BetSettled, CardDealt, Event, RoundSettled, SpreadAnnounced
from paytables.red_dog.paytable import Paytable
from paytables.red_dog.red_dog import Classification, Outcome
from paytables.red_dog.round_model import Bet, DealtCard, Round, RoundStatus, Step
from shoe.cards import rank
from shoe.shoe import Shoe

Dealt = tuple[Round, Shoe, list[Event]]


def deal_posts(rnd: Round, shoe: Shoe, paytable: Paytable, now: datetime, window_seconds: int) -> Step:
    """Deal the posts; what needs no decision settles now, a spread opens the raise window until now + window."""
    events: list[Event] = []
    if rnd.per_seat:
        rnd, shoe, events = _per_seat_posts(rnd, shoe, paytable, now)
        opens = any(b.awaits_decision for b in rnd.bets)
    else:
        for _ in range(2):
            rnd, shoe, event = _deal(rnd, shoe)
            events.append(event)
        c = _classification(rnd.cards, paytable)
        opens = c.outcome is Outcome.SPREAD
        if opens:
            rnd = msgspec.structs.replace(rnd, outcome=Outcome.SPREAD, spread=c.spread, payout_odds=c.odds)
    if not opens:
        return finish(rnd, shoe, paytable, now, events)
    closes = now + timedelta(seconds=window_seconds)
    rnd = msgspec.structs.replace(rnd, raise_window_closes_at=closes)
    events.extend(_announcements(rnd, closes))
    return Step(round=rnd, shoe=shoe, events=tuple(events))


def finish(rnd: Round, shoe: Shoe, paytable: Paytable, now: datetime, events: list[Event]) -> Step:
    """Deal the third cards still owed and settle every bet still open; the round is then settled."""
    if rnd.per_seat:
        for index, bet in enumerate(rnd.bets):
            if bet.result is None:
                rnd, shoe = _third_for_seat(rnd, shoe, paytable, index, events)
        outcome = None
    else:
        rnd, shoe, outcome = _third_for_all(rnd, shoe, paytable, events)
    rnd = msgspec.structs.replace(rnd, status=RoundStatus.SETTLED, outcome=outcome, settled_at=now)
    total = sum(b.net or 0 for b in rnd.bets)
    events.append(RoundSettled(round_id=rnd.round_id, outcome=outcome, settled_at=now, total_net=total))
    return Step(round=rnd, shoe=shoe, events=tuple(events))


def settled(bet: Bet, s: red_dog.Settlement) -> Bet:
    return msgspec.structs.replace(bet, result=s.result, payout=s.payout, net=s.net, transactions=s.transactions)


def settled_event(rnd: Round, bet: Bet) -> BetSettled:
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
        outcome=bet.outcome,
    )


def _third_for_all(rnd: Round, shoe: Shoe, paytable: Paytable, events: list[Event]) -> tuple[Round, Shoe, Outcome]:
    c = _classification(rnd.cards, paytable)
    third: int | None = None
    if c.needs_third_card:
        rnd, shoe, event = _deal(rnd, shoe)
        events.append(event)
        third = rank(rnd.cards[2].card)
    first, second = rank(rnd.cards[0].card), rank(rnd.cards[1].card)
    bets = tuple(
        settled(bet, red_dog.settle(paytable, first, second, third, bet.ante, bet.raise_amount, bet.bet_id))
        for bet in rnd.bets
    )
    rnd = msgspec.structs.replace(rnd, bets=bets)
    events.extend(settled_event(rnd, bet) for bet in rnd.bets)
    return rnd, shoe, red_dog.round_outcome(c, first, third)


def _per_seat_posts(rnd: Round, shoe: Shoe, paytable: Paytable, now: datetime) -> Dealt:
    events: list[Event] = []
    for _ in range(2):
        for index in range(len(rnd.bets)):
            rnd, shoe, event = _deal(rnd, shoe, seat=index + 1)
            events.append(event)
    for index, bet in enumerate(rnd.bets):
        c = _classification(bet.cards, paytable)
        rnd = _with_bet(rnd, index, outcome=c.outcome, spread=c.spread, payout_odds=c.odds)
        if c.outcome is not Outcome.SPREAD:
            rnd, shoe = _third_for_seat(rnd, shoe, paytable, index, events)
    return rnd, shoe, events


def _third_for_seat(rnd: Round, shoe: Shoe, paytable: Paytable, index: int, events: list[Event]) -> tuple[Round, Shoe]:
    """Settle one seat's bet on its own cards, dealing its third card first where its posts need one."""
    bet = rnd.bets[index]
    c = _classification(bet.cards, paytable)
    third: int | None = None
    if c.needs_third_card:
        rnd, shoe, event = _deal(rnd, shoe, seat=index + 1)
        events.append(event)
        bet = rnd.bets[index]
        third = rank(bet.cards[2].card)
    first, second = rank(bet.cards[0].card), rank(bet.cards[1].card)
    s = red_dog.settle(paytable, first, second, third, bet.ante, bet.raise_amount, bet.bet_id)
    rnd = _with_bet(rnd, index, outcome=red_dog.round_outcome(c, first, third))
    rnd = _with_bet(rnd, index, result=s.result, payout=s.payout, net=s.net, transactions=s.transactions)
    events.append(settled_event(rnd, rnd.bets[index]))
    return rnd, shoe


def _deal(rnd: Round, shoe: Shoe, *, seat: int | None = None) -> tuple[Round, Shoe, CardDealt]:
    """The next card from the shoe, to the round's cards and, per seat, to that seat's hand."""
    card, index, shoe = shoe.deal()
    hand = rnd.cards if seat is None else rnd.bets[seat - 1].cards
    dealt = DealtCard(position=len(hand) + 1, card=card, shoe_index=index, seat=seat)
    rnd = msgspec.structs.replace(rnd, cards=(*rnd.cards, dealt))
    if seat is not None:
        rnd = _with_bet(rnd, seat - 1, cards=(*hand, dealt))
    event = CardDealt(
        round_id=rnd.round_id,
        position=dealt.position,
        card=card,
        shoe_index=index,
        commitment=shoe.commitment,
        seat=seat,
    )
    return rnd, shoe, event


def _announcements(rnd: Round, closes: datetime) -> list[Event]:
    """The spread and its odds, for the round (shared) or for each bet that has one (per seat)."""
    if not rnd.per_seat:
        assert rnd.spread is not None
        assert rnd.payout_odds is not None
        return [
            SpreadAnnounced(
                round_id=rnd.round_id, spread=rnd.spread, odds=rnd.payout_odds, raise_window_closes_at=closes
            )
        ]
    return [
        SpreadAnnounced(
            round_id=rnd.round_id, spread=b.spread, odds=b.payout_odds, raise_window_closes_at=closes, bet_id=b.bet_id
        )
        for b in rnd.bets
        if b.awaits_decision and b.spread is not None and b.payout_odds is not None
    ]


def _with_bet(rnd: Round, index: int, **changes: object) -> Round:
    bet = msgspec.structs.replace(rnd.bets[index], **changes)
    return msgspec.structs.replace(rnd, bets=(*rnd.bets[:index], bet, *rnd.bets[index + 1 :]))


def _classification(cards: tuple[DealtCard, ...], paytable: Paytable) -> Classification:
    return red_dog.classify(rank(cards[0].card), rank(cards[1].card), paytable)
