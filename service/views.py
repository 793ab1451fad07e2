"""Domain values to wire Structs: the one place that decides what a response may show."""

from __future__ import annotations

import functools
from uuid import UUID

import msgspec

from paytables import loader, rtp
from paytables.paytable import Paytable
from paytables.round import Bet, Round, RoundStatus
from service.api import wire
from service.db.tables import TableRow
from shoe.shoe import Shoe


def theoretical(paytable: Paytable, decks: int) -> wire.Theoretical:
    return _theoretical(paytable.id, decks)


@functools.lru_cache(maxsize=64)
def _theoretical(paytable_id: str, decks: int) -> wire.Theoretical:
    """Exact figures, computed once per paytable and deck count (released terms never change)."""
    figures = rtp.compute(loader.get(paytable_id), decks)
    return msgspec.convert(msgspec.structs.asdict(figures), wire.Theoretical)


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
        theoretical=None if decks is None else theoretical(paytable, decks),
    )


def table_out(table: TableRow, paytable: Paytable) -> wire.TableOut:
    return wire.TableOut(
        table_id=table.table_id,
        name=table.name,
        status="closed" if table.status == "closed" else "open",
        paytable=table.paytable_id,
        paytable_sha256=table.paytable_sha256,
        decks=table.decks,
        shoe_policy=table.shoe_policy,
        penetration=table.penetration,
        currency=table.currency,
        min_ante=table.min_ante,
        max_ante=table.max_ante,
        max_bets=table.max_bets,
        raise_window_seconds=table.raise_window_seconds,
        mode=table.mode,
        created_at=table.created_at,
        closed_at=table.closed_at,
        theoretical=theoretical(paytable, table.decks),
    )


def round_out(rnd: Round, shoe: Shoe, table_shoe_commitment: str | None) -> wire.RoundOut:
    """The round as the API shows it. The third card is not in `rnd.cards` until the round settles."""
    retired = shoe.cut_position is None or table_shoe_commitment != shoe.commitment
    reveal = None
    if rnd.status is not RoundStatus.RAISE_WINDOW and retired:
        reveal = wire.RevealOut(salt=shoe.salt, order=shoe.order)
    return wire.RoundOut(
        round_id=UUID(rnd.round_id),
        table_id=UUID(rnd.table_id),
        status=rnd.status.value,
        paytable=rnd.paytable_id,
        paytable_sha256=rnd.paytable_sha256,
        decks=rnd.decks,
        cards=[wire.CardOut(position=c.position, card=c.card, shoe_index=c.shoe_index) for c in rnd.cards],
        outcome=rnd.outcome,  # type: ignore[arg-type]  # the game core sets only the four outcomes
        spread=rnd.spread,
        payout_odds=rnd.payout_odds,
        raise_window_closes_at=rnd.raise_window_closes_at,
        opened_at=rnd.opened_at,
        settled_at=rnd.settled_at,
        void_reason=rnd.void_reason,
        test=rnd.test,
        shoe=wire.ShoeOut(commitment=shoe.commitment, reveal=reveal),
        bets=[msgspec.convert(_bet_dict(b), wire.BetOut) for b in rnd.bets],
    )


def _bet_dict(bet: Bet) -> dict[str, object]:
    """The bet under its wire names (`raise` is a keyword in Python); convert() then checks every value's type."""
    fields = msgspec.structs.asdict(bet)
    fields["raise"] = fields.pop("raise_amount")
    fields["transactions"] = [msgspec.structs.asdict(m) for m in fields["transactions"]]
    return fields
