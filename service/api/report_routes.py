"""Report routes (signed; auditors too): the RTP report from the database."""

from __future__ import annotations

import math
from datetime import datetime
from fractions import Fraction
from typing import Annotated, Any
from uuid import UUID

from litestar import Request, get
from litestar.params import FromQuery, QueryParameter

from paytables.red_dog.analysis.rtp import decimal_string, fraction_string
from paytables.red_dog.analysis.rtp_report import RtpLine
from service.api.auth import AUDITORS_ALLOWED, Role, caller_of
from service.api.openapi.openapi_docs import SIGNED, responses
from service.api.replies import read
from service.api.report_wire import ChiSquareOut, ModeName, OutcomeOut, RtpLineOut, RtpReportOut
from service.use_cases import report_use_cases
from service.use_cases.report_use_cases import RtpQuery
from service.use_cases.table_use_cases import released_paytable


@get(
    "/reports/rtp",
    responses=responses(200, RtpReportOut, *SIGNED, 422),
    summary="RTP from the database: paid against the exact expectation of the decisions taken, and the outcome mix",
    opt={AUDITORS_ALLOWED: True},
)
async def rtp_report(
    request: Request[Any, Any, Any],
    ended_from: Annotated[datetime | None, QueryParameter(name="from", description="ended at or after")] = None,
    ended_to: Annotated[datetime | None, QueryParameter(name="to", description="ended before")] = None,
    paytable: Annotated[str | None, QueryParameter(max_length=64)] = None,
    table_id: FromQuery[UUID | None] = None,
    mode: FromQuery[ModeName] = "live",
) -> RtpReportOut:
    if paytable is not None:
        released_paytable(paytable)  # a typo is a 422, not an empty report
    test = mode == "test"
    query = RtpQuery(ended_from=ended_from, ended_to=ended_to, paytable=paytable, table_id=table_id, test=test)
    every_operator = caller_of(request).role is Role.AUDITOR
    totals = await read(request, lambda unit: report_use_cases.rtp_totals(unit, query, every_operator=every_operator))
    lines = await report_use_cases.rtp_lines(totals)
    return RtpReportOut(
        from_=ended_from,
        to=ended_to,
        mode=mode,
        paytable=paytable,
        table_id=table_id,
        lines=[rtp_line_out(line) for line in lines],
    )


def rtp_line_out(line: RtpLine) -> RtpLineOut:
    t, e = line.totals, line.totals.expectation
    return RtpLineOut(
        paytable=line.paytable,
        decks=line.decks,
        currency=line.currency,
        rounds=t.rounds,
        voided_rounds=t.voided_rounds,
        bets=t.bets,
        voided_bets=t.voided_bets,
        wagered=t.wagered,
        paid=t.paid,
        refunded=t.refunded,
        net=t.paid - t.wagered,
        observed_rtp=_decimal(line.observed_rtp),
        observed_rtp_fraction=_fraction(line.observed_rtp),
        expected_paid=decimal_string(e.expected_paid),
        expected_paid_fraction=fraction_string(e.expected_paid),
        expected_wagered=decimal_string(e.expected_wagered),
        expected_wagered_fraction=fraction_string(e.expected_wagered),
        expected_rtp=_decimal(line.expected_rtp),
        expected_rtp_fraction=_fraction(line.expected_rtp),
        net_variance=decimal_string(e.variance),
        net_variance_fraction=fraction_string(e.variance),
        integrity_z=line.integrity_z if line.integrity_z is None or math.isfinite(line.integrity_z) else None,
        theoretical_rtp=decimal_string(line.theoretical_rtp),
        theoretical_rtp_fraction=fraction_string(line.theoretical_rtp),
        outcomes=[
            OutcomeOut(
                outcome=o.outcome,
                observed=o.observed,
                expected=decimal_string(o.expected, 4),
                probability=decimal_string(o.probability),
                probability_fraction=fraction_string(o.probability),
            )
            for o in line.outcomes
        ],
        chi_square=ChiSquareOut(
            statistic=line.chi_square.statistic,
            degrees_of_freedom=line.chi_square.degrees_of_freedom,
            p_value=line.chi_square.p_value,
        ),
    )


def _decimal(value: Fraction | None) -> str | None:
    return None if value is None else decimal_string(value)


def _fraction(value: Fraction | None) -> str | None:
    return None if value is None else fraction_string(value)


handlers = [rtp_report]
