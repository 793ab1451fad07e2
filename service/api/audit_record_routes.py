"""`GET /v1/audit/records`: the audit export's lines, a page at a time, for the owning operator and for auditors."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlencode
from uuid import UUID

from litestar import Request, get
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import QueryParameter
from litestar.response import Stream

from service.api.auth import AUDITORS_ALLOWED, Role, caller_of
from service.api.openapi.openapi_docs import SIGNED, responses
from service.api.query_values import MAX_SEQ
from service.api.replies import read
from service.chains import audit_export
from service.chains.audit_export import Page, Scope
from service.db.audit_export_sql import select_export_tables
from service.db.unit_of_work import UnitOfWork
from service.errors import not_found, validation

NDJSON = "application/x-ndjson"
DEFAULT_LIMIT = 1000

_ok = ResponseSpec(
    data_container=str,
    media_type=NDJSON,
    description="JSON Lines, exactly the lines of `reddog audit export` (docs/audit.md): per table its `table` head, "
    "the `checkpoint` lines this page's records reach, then its `record` lines in seq order. A full page carries a "
    'Link header (rel="next") to the next one; resuming from the last record line\'s table_id and seq is the same.',
    generate_examples=False,
)


@get(
    "/audit/records",
    opt={AUDITORS_ALLOWED: True},
    responses={**responses(200, str, *SIGNED, 404, 422), 200: _ok},
    summary="Audit records, byte-exact, resumable: your own chains, or every operator's with auditor credentials",
    tags=["audit"],
)
async def audit_records(
    request: Request[Any, Any, Any],
    table_id: Annotated[UUID | None, QueryParameter(description="only this table's chain")] = None,
    after_seq: Annotated[int, QueryParameter(ge=0, le=MAX_SEQ, description="resume after this seq")] = 0,
    after_table: Annotated[
        UUID | None, QueryParameter(description="without table_id: resume after `after_seq` of this table")
    ] = None,
    limit: Annotated[int, QueryParameter(ge=1, le=audit_export.MAX_PAGE)] = DEFAULT_LIMIT,
) -> Stream:
    caller = caller_of(request)
    scope = Scope(operator_id=None if caller.role is Role.AUDITOR else caller.operator_id, table_id=table_id)
    if table_id is not None and after_table is not None:
        raise validation("give table_id or after_table, not both")
    start = table_id or after_table
    if start is None and after_seq:
        raise validation("after_seq needs the table it counts in: table_id or after_table")
    after = None if start is None else (start, after_seq)

    async def work(unit: UnitOfWork) -> Page:
        found = await audit_export.page(unit.conn, scope, after=after, limit=limit)
        if table_id is not None and not found.lines and await _absent(unit, scope):
            raise not_found("table")  # another operator's table is as absent as one that never was
        return found

    found = await read(request, work)
    headers = {} if found.next_after is None else {"Link": _next_link(request, table_id, found, limit)}
    return Stream(audit_export.encode_page(found.lines)(), media_type=NDJSON, headers=headers)


async def _absent(unit: UnitOfWork, scope: Scope) -> bool:
    tables = await select_export_tables(unit.conn, operator_id=scope.operator_id, table_id=scope.table_id)
    return not tables


def _next_link(request: Request[Any, Any, Any], table_id: UUID | None, found: Page, limit: int) -> str:
    assert found.next_after is not None
    last_table, last_seq = found.next_after
    query: dict[str, str] = {"after_seq": str(last_seq), "limit": str(limit)}
    query.update({"table_id": str(table_id)} if table_id is not None else {"after_table": str(last_table)})
    return f'<{request.url.path}?{urlencode(query)}>; rel="next"'


handlers = [audit_records]
