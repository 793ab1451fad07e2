"""`reddog report rtp`: the figures of GET /v1/reports/rtp, read from the database and printed as a table."""

from __future__ import annotations

import argparse
from fractions import Fraction

import asyncpg
import msgspec

from paytables.red_dog.analysis.rtp import decimal_string
from paytables.red_dog.analysis.rtp_report import RtpLine, Totals
from service.api.report_presenters import rtp_line_out
from service.clock import system_clock
from service.db.unit_of_work import Runner, UnitOfWork, run
from service.settings import Settings
from service.use_cases import report_use_cases
from service.use_cases.report_use_cases import RtpQuery

EVERY_OPERATOR = "every operator"


async def rtp_report(url: str, settings: Settings, args: argparse.Namespace) -> list[RtpLine]:
    query = RtpQuery(
        ended_from=args.ended_from,
        ended_to=args.ended_to,
        paytable=args.paytable,
        table_id=args.table_id,
        test=args.mode == "test",
    )

    async def work(unit: UnitOfWork) -> dict[report_use_cases.LineKey, Totals]:
        return await report_use_cases.rtp_totals(unit, query, every_operator=args.operator is None)

    pool: asyncpg.Pool = await asyncpg.create_pool(url, min_size=1, max_size=1)
    try:
        totals = await run(Runner(pool, settings, system_clock), args.operator or EVERY_OPERATOR, work)
    finally:
        await pool.close()
    return await report_use_cases.rtp_lines(totals)


def print_report(lines: list[RtpLine], as_json: bool) -> None:
    if as_json:
        print(msgspec.json.encode([rtp_line_out(line) for line in lines]).decode())
        return
    if not lines:
        print("no rounds ended in this selection")
    for line in lines:
        print("\n".join(table(line)))
        print()


def table(line: RtpLine) -> list[str]:
    t, e = line.totals, line.totals.expectation
    z = "n/a (nothing at risk)" if line.integrity_z is None else f"{line.integrity_z:+.3f}"
    rows = [
        f"{line.paytable}, {line.decks} deck(s), {line.currency}",
        f"  rounds            {t.rounds} settled ({t.bets} bets), {t.voided_rounds} voided ({t.voided_bets} bets)",
        f"  wagered / paid    {t.wagered} / {t.paid}   net {t.paid - t.wagered}   refunded {t.refunded}",
        f"  observed RTP      {_ratio(line.observed_rtp)}",
        f"  expected          paid {decimal_string(e.expected_paid, 2)}"
        f" / wagered {decimal_string(e.expected_wagered, 2)}   RTP {_ratio(line.expected_rtp)}"
        "   (given the posts, shoes and decisions)",
        f"  integrity z       {z}   (net variance {decimal_string(e.variance, 2)})",
        f"  theoretical RTP   {decimal_string(line.theoretical_rtp, 6)}   (optimal play, fresh shoe)",
        "  outcome          observed     expected   probability",
    ]
    rows += [
        f"    {o.outcome:<14} {o.observed:>8} {decimal_string(o.expected, 2):>12}   {decimal_string(o.probability, 8)}"
        for o in line.outcomes
    ]
    chi = line.chi_square
    dof = chi.degrees_of_freedom
    rows.append(f"  chi-square        {chi.statistic:.3f}, {dof} degrees of freedom, p = {chi.p_value:.4g}")
    return rows


def _ratio(value: Fraction | None) -> str:
    return "n/a" if value is None else decimal_string(value, 6)
