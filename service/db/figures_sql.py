"""SQL for round_figures: what each ended round adds to the RTP report, and the report's sums over them."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

import asyncpg
import msgspec

from paytables.red_dog.analysis.rtp_report import RoundFigures
from paytables.red_dog.round import Round, RoundStatus
from service.db import Conn, Statement
from service.db.round_sql import round_of, state_columns
from shoe.shoe import Shoe, decode_shoe


class ReportFilter(msgspec.Struct, frozen=True, kw_only=True):
    """Which ended rounds a report covers; `operator_id` None is every operator's (auditors)."""

    operator_id: str | None
    ended_from: datetime | None = None
    ended_to: datetime | None = None
    paytable: str | None = None
    table_id: UUID | None = None
    test: bool = False


class Group(msgspec.Struct, frozen=True, kw_only=True):
    """Rounds of one paytable, deck count and currency that share status, outcome and scale, added up."""

    paytable: str
    decks: int
    currency: str
    rounds: int
    figures: RoundFigures  # the sums of the group's bets, money and scaled expectations


class Unscored(msgspec.Struct, frozen=True, kw_only=True):
    """An ended round without stored figures, with what computing them needs."""

    round: Round
    shoe: Shoe
    currency: str


def insert_figures(rnd: Round, figures: RoundFigures, *, operator_id: str, currency: str) -> Statement:
    assert rnd.settled_at is not None
    return Statement(
        sql="INSERT INTO round_figures (round_id, table_id, operator_id, paytable, decks, currency, test, status,"
        " outcome, ended_at, bets, wagered, paid, refunded, expectation_scale, expected_paid, expected_wagered,"
        " net_variance) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)",
        args=(
            UUID(rnd.round_id),
            UUID(rnd.table_id),
            operator_id,
            rnd.paytable,
            rnd.decks,
            currency,
            rnd.test,
            figures.status.value,
            figures.outcome,
            rnd.settled_at,
            figures.bets,
            figures.wagered,
            figures.paid,
            figures.refunded,
            figures.scale,
            figures.expected_paid,
            figures.expected_wagered,
            figures.net_variance,
        ),
    )


def roll_back_figures(rnd: Round) -> Statement:
    """A rollback of a round that had ended: its figures become nothing (every transaction was reversed). A round
    rolled back while open never had any: it gets its figures (all zero) from `insert_figures` instead."""
    assert rnd.rolled_back_at is not None
    return Statement(
        sql="UPDATE round_figures SET status = 'rolled_back', ended_at = $2, wagered = 0, paid = 0, refunded = 0,"
        " expectation_scale = 1, expected_paid = 0, expected_wagered = 0, net_variance = 0 WHERE round_id = $1",
        args=(UUID(rnd.round_id), rnd.rolled_back_at),
    )


_WHERE = (
    " AND ($1::text IS NULL OR {alias}operator_id = $1)"
    " AND ($2::timestamptz IS NULL OR {end} >= $2)"
    " AND ($3::timestamptz IS NULL OR {end} < $3)"
    " AND ($4::text IS NULL OR {paytable} = $4)"
    " AND ($5::uuid IS NULL OR {alias}table_id = $5)"
    " AND {test} = $6"
)


def _args(f: ReportFilter) -> tuple[object, ...]:
    return (f.operator_id, f.ended_from, f.ended_to, f.paytable, f.table_id, f.test)


async def select_groups(conn: Conn, f: ReportFilter) -> list[Group]:
    """The stored figures added up in SQL (exactly: integers and numerics), one row per kind of round."""
    where = _WHERE.format(alias="", end="ended_at", paytable="paytable", test="test")
    records = await conn.fetch(
        "SELECT paytable, decks, currency, status, outcome, expectation_scale, count(*) AS rounds,"  # noqa: S608 - ours
        " sum(bets) AS bets, sum(wagered) AS wagered, sum(paid) AS paid, sum(refunded) AS refunded,"
        " sum(expected_paid) AS expected_paid, sum(expected_wagered) AS expected_wagered,"
        " sum(net_variance) AS net_variance"
        f" FROM round_figures WHERE true{where}"
        " GROUP BY paytable, decks, currency, status, outcome, expectation_scale",
        *_args(f),
    )
    return [_group(r) for r in records]


def _group(r: asyncpg.Record) -> Group:
    figures = RoundFigures(
        status=RoundStatus(r["status"]),
        outcome=r["outcome"],
        bets=int(r["bets"]),
        wagered=int(r["wagered"]),
        paid=int(r["paid"]),
        refunded=int(r["refunded"]),
        scale=int(r["expectation_scale"]),  # numeric comes back as an exact Decimal; these are whole numbers
        expected_paid=int(r["expected_paid"]),
        expected_wagered=int(r["expected_wagered"]),
        net_variance=int(r["net_variance"]),
    )
    return Group(paytable=r["paytable"], decks=r["decks"], currency=r["currency"], rounds=r["rounds"], figures=figures)


async def select_unscored(conn: Conn, f: ReportFilter) -> list[Unscored]:
    """Ended rounds the filter covers that have no figures row: ended before migration 006, or by an older
    release during a rolling upgrade."""
    where = _WHERE.format(alias="r.", end="r.settled_at", paytable="t.paytable", test="r.test")
    records = await conn.fetch(
        f"SELECT {state_columns('r')}, r.shoe, t.currency FROM rounds r"  # noqa: S608
        " JOIN game_tables t ON t.table_id = r.table_id"
        f" WHERE r.settled_at IS NOT NULL AND r.status <> 'raise_window'{where}"
        " AND NOT EXISTS (SELECT 1 FROM round_figures x WHERE x.round_id = r.round_id)",
        *_args(f),
    )
    return [Unscored(round=round_of(r), shoe=decode_shoe(r["shoe"]), currency=r["currency"]) for r in records]
