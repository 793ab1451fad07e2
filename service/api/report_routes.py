"""Report routes (signed; auditors too): the RTP report from the database."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any
from uuid import UUID

from litestar import Request, get
from litestar.params import FromQuery, QueryParameter

from service.api.auth import AUDITORS_ALLOWED, Role, caller_of
from service.api.openapi.openapi_docs import SIGNED, responses
from service.api.query_values import WITH_OFFSET, query_time
from service.api.replies import read
from service.api.report_presenters import rtp_line_out
from service.api.report_wire import ModeName, RtpReportOut
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
    ended_from: Annotated[
        datetime | None, QueryParameter(name="from", description=f"ended at or after; {WITH_OFFSET}")
    ] = None,
    ended_to: Annotated[datetime | None, QueryParameter(name="to", description=f"ended before; {WITH_OFFSET}")] = None,
    paytable: Annotated[str | None, QueryParameter(max_length=64)] = None,
    table_id: FromQuery[UUID | None] = None,
    mode: FromQuery[ModeName] = "live",
) -> RtpReportOut:
    if paytable is not None:
        released_paytable(paytable)  # a typo is a 422, not an empty report
    test = mode == "test"
    query = RtpQuery(
        ended_from=query_time("from", ended_from),
        ended_to=query_time("to", ended_to),
        paytable=paytable,
        table_id=table_id,
        test=test,
    )
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


handlers = [rtp_report]
