"""Domain values to wire Structs and back: the one place that decides what a request means and a response shows."""

from __future__ import annotations

import functools
from uuid import UUID

import msgspec

from paytables.currency import minor_unit_exponent
from paytables.red_dog import loader
from paytables.red_dog.analysis import rtp
from paytables.red_dog.paytable import Paytable
from paytables.red_dog.red_dog import Direction
from paytables.red_dog.round import Bet, Call, DealtCard, PlayerDecision, Raise, Round
from paytables.refusals import RaiseExceedsAnte
from service.api import wire
from service.db.table_sql import TableRow
from service.use_cases.round_use_cases import NewRound, RoundView
from service.use_cases.table_use_cases import NewTable

_encode = msgspec.json.Encoder().encode


def encode(value: msgspec.Struct) -> bytes:
    """A reply's bytes: what is sent, and what an idempotent replay sends again."""
    return _encode(value)


def new_table(data: wire.CreateTable) -> NewTable:
    return msgspec.convert(msgspec.structs.asdict(data), NewTable)


def new_round(data: wire.CreateRound) -> NewRound:
    return NewRound(antes=tuple((b.player_id, b.ante) for b in data.bets), forced_cards=tuple(data.forced_cards or ()))


def decision(data: wire.DecisionIn) -> PlayerDecision:
    match data:
        case wire.RaiseIn(bet_id=bet_id, amount=amount):
            return Raise(bet_id=bet_id, amount=amount)
        case wire.CallIn(bet_id=bet_id, amount=amount):
            if amount:
                raise RaiseExceedsAnte("a call takes no amount (or 0)")
            return Call(bet_id=bet_id)


@functools.lru_cache(maxsize=64)
def theoretical(paytable_id: str, decks: int) -> rtp.Theoretical:
    """Exact figures, computed once per paytable and deck count (released terms never change)."""
    return rtp.compute(loader.get(paytable_id), decks)


def paytable_out(paytable: Paytable, decks: int | None = None) -> wire.PaytableOut:
    terms = paytable.terms
    return wire.PaytableOut(
        id=paytable.id,
        name=paytable.name,
        version=paytable.version,
        sha256=paytable.sha256,
        description=paytable.description,
        spread_odds=list(terms.spread_odds),
        trips_odds=terms.trips_odds,
        post_rule=terms.post_rule.value,
        max_raise_multiple=terms.max_raise_multiple,
        theoretical=None if decks is None else theoretical(paytable.id, decks),
    )


def table_out(table: TableRow) -> wire.TableOut:
    settings = table.settings
    return msgspec.convert(
        {
            **msgspec.structs.asdict(settings),
            "table_id": table.table_id,
            "status": table.status,
            "created_at": table.created_at,
            "closed_at": table.closed_at,
            "theoretical": theoretical(settings.paytable, settings.decks),
            "currency_exponent": minor_unit_exponent(settings.currency) or 0,
        },
        wire.TableOut,
        from_attributes=True,
    )


def table_list(tables: list[TableRow]) -> wire.TableList:
    return wire.TableList(items=[table_out(t) for t in tables])


def round_out(view: RoundView) -> wire.RoundOut:
    """The round as the API shows it. The third card is not in `round.cards` until the round settles."""
    rnd = view.round
    reveal = None if view.reveal is None else wire.RevealOut(salt=view.reveal.salt, order=view.reveal.order)
    return wire.RoundOut(
        round_id=UUID(rnd.round_id),
        table_id=UUID(rnd.table_id),
        status=rnd.status.value,
        paytable=rnd.paytable,
        paytable_sha256=rnd.paytable_sha256,
        decks=rnd.decks,
        deal=rnd.deal.value,
        cards=[card_out(c) for c in rnd.cards],
        outcome=None if rnd.outcome is None else rnd.outcome.value,
        spread=rnd.spread,
        payout_odds=rnd.payout_odds,
        raise_window_closes_at=rnd.raise_window_closes_at,
        opened_at=rnd.opened_at,
        settled_at=rnd.settled_at,
        void_reason=rnd.void_reason,
        test=rnd.test,
        shoe=wire.ShoeOut(commitment=rnd.commitment, reveal=reveal),
        bets=[bet_out(b, rnd, view.currency) for b in rnd.bets],
        currency=view.currency,
        rolled_back_at=rnd.rolled_back_at,
        rollback_reason=rnd.rollback_reason,
        recall_link=recall_link(rnd.round_id),
        checkpoint_size=view.checkpoint_size,
    )


def recall_link(round_id: str) -> str:
    """Where support staff get a round's replay page: a signed POST to this path returns a link to it."""
    return f"/v1/rounds/{round_id}/recall-link"


def card_out(card: DealtCard) -> wire.CardOut:
    return wire.CardOut(position=card.position, card=card.card, shoe_index=card.shoe_index, seat=card.seat)


def bet_out(bet: Bet, rnd: Round, currency: str) -> wire.BetOut:
    """A bet and the hand it plays: its own on a per-seat deal, the round's on a shared one."""
    hand = bet if rnd.per_seat else rnd
    return wire.BetOut(
        bet_id=bet.bet_id,
        player_id=bet.player_id,
        ante=bet.ante,
        raise_=bet.raise_amount,
        decision=None if bet.decision is None else bet.decision.value,
        result=None if bet.result is None else bet.result.value,
        payout=bet.payout,
        net=bet.net,
        transactions=[
            wire.TransactionOut(
                id=t.id,
                kind=t.kind.value,
                type=t.type.value,
                amount=t.amount,
                currency=currency,
                reverses=t.reverses,
            )
            for t in bet.transactions
        ],
        cards=[card_out(c) for c in hand.cards],
        outcome=None if hand.outcome is None else hand.outcome.value,
        spread=hand.spread,
        payout_odds=hand.payout_odds,
    )


def round_page(views: list[RoundView], next_cursor: str | None) -> wire.RoundPage:
    """A page of rounds and, per currency, what its transactions moved: every debit (wagered), every credit (paid)."""
    totals: dict[str, wire.CurrencyTotals] = {}
    for v in views:
        t = totals.setdefault(v.currency, wire.CurrencyTotals(currency=v.currency, rounds=0, wagered=0, paid=0, net=0))
        t.rounds += 1
        for bet in v.round.bets:
            for move in bet.transactions:
                if move.type is Direction.DEBIT:
                    t.wagered += move.amount
                else:
                    t.paid += move.amount
        t.net = t.paid - t.wagered
    return wire.RoundPage(
        items=[round_out(v) for v in views], next_cursor=next_cursor, totals=[totals[c] for c in sorted(totals)]
    )
