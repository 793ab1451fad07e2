"""The RTP report from the database: the authoritative figures (Prometheus counters reset; these rows do not)."""

from __future__ import annotations

import asyncio
import functools
from datetime import datetime
from fractions import Fraction
from uuid import UUID

import msgspec

from paytables.red_dog import loader
from paytables.red_dog.analysis.chi_square import outcome_probabilities
from paytables.red_dog.analysis.red_dog_expectation import optimal_play_return
from paytables.red_dog.analysis.rtp_report import RtpLine, Totals, add, round_figures, rtp_line
from service.db import figures_sql
from service.db.figures_sql import ReportFilter
from service.db.unit_of_work import UnitOfWork

LineKey = tuple[str, int, str]  # paytable, decks, currency


class RtpQuery(msgspec.Struct, frozen=True, kw_only=True):
    """Rounds that ended in [ended_from, ended_to), of one paytable or table if asked, live or test."""

    ended_from: datetime | None = None
    ended_to: datetime | None = None
    paytable: str | None = None
    table_id: UUID | None = None
    test: bool = False


async def rtp_totals(unit: UnitOfWork, query: RtpQuery, *, every_operator: bool) -> dict[LineKey, Totals]:
    """The ended rounds added up by paytable, deck count and currency: stored figures summed in SQL, and the
    figures of rounds that ended without them (before migration 006) computed from their stored round and shoe."""
    where = ReportFilter(operator_id=None if every_operator else unit.operator_id, **msgspec.structs.asdict(query))
    totals: dict[LineKey, Totals] = {}
    for group in await figures_sql.select_groups(unit.conn, where):
        key = (group.paytable, group.decks, group.currency)
        totals[key] = add(totals.get(key, Totals()), group.figures, group.rounds)
    for unscored in await figures_sql.select_unscored(unit.conn, where):
        rnd = unscored.round
        figures = round_figures(rnd, unscored.shoe.order, loader.get(rnd.paytable))
        key = (rnd.paytable, rnd.decks, unscored.currency)
        totals[key] = add(totals.get(key, Totals()), figures)
    return totals


async def rtp_lines(totals: dict[LineKey, Totals]) -> list[RtpLine]:
    """One line per paytable, deck count and currency, in that order; the exact theory is computed off the event
    loop the first time a configuration is asked for."""
    lines = []
    for (paytable_id, decks, currency), line_totals in sorted(totals.items()):
        probabilities, theory = await asyncio.to_thread(_theory, paytable_id, decks)
        paytable = loader.get(paytable_id)
        lines.append(
            rtp_line(paytable, decks, currency, line_totals, probabilities=probabilities, theoretical_rtp=theory)
        )
    return lines


@functools.lru_cache(maxsize=64)
def _theory(paytable_id: str, decks: int) -> tuple[dict[str, Fraction], Fraction]:
    paytable = loader.get(paytable_id)
    return outcome_probabilities(paytable, decks), optimal_play_return(paytable, decks)
