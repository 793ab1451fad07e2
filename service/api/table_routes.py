"""Table routes (signed)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from litestar import Request, Response, get, post
from litestar.params import FromPath

from service.api import presenters, wire
from service.api.bodies import body, body_of
from service.api.openapi.openapi_docs import JSON_BODY, KEY, SIGNED, IdempotencyKey, responses
from service.api.replies import read, write
from service.use_cases import table_use_cases


def _present(table: Any) -> bytes:
    return presenters.encode(presenters.table_out(table))


@post(
    "/tables",
    status_code=201,
    responses=responses(201, wire.TableOut, *SIGNED, *JSON_BODY, 403, 409, 422, conflicts=KEY),
    summary="Open a table",
    **body(wire.CreateTable),
)
async def create_table(request: Request[Any, Any, Any], idempotency_key: IdempotencyKey) -> Response[bytes]:
    new = presenters.new_table(body_of(request))
    return await write(request, 201, lambda unit: table_use_cases.create_table(unit, new), _present)


@get("/tables", responses=responses(200, wire.TableList, *SIGNED), summary="The operator's tables")
async def list_tables(request: Request[Any, Any, Any]) -> wire.TableList:
    return presenters.table_list(await read(request, table_use_cases.list_tables))


@get("/tables/{table_id:uuid}", responses=responses(200, wire.TableOut, *SIGNED, 404), summary="One table")
async def get_table(request: Request[Any, Any, Any], table_id: FromPath[UUID]) -> wire.TableOut:
    return presenters.table_out(await read(request, lambda unit: table_use_cases.get_table(unit, table_id)))


@post(
    "/tables/{table_id:uuid}/close",
    status_code=200,
    responses=responses(200, wire.TableOut, *SIGNED, 404, 409, conflicts=(*KEY, "TABLE_CLOSED")),
    summary="Close a table: no new rounds; rounds in flight finish",
)
async def close_table(
    request: Request[Any, Any, Any], table_id: FromPath[UUID], idempotency_key: IdempotencyKey
) -> Response[bytes]:
    return await write(request, 200, lambda unit: table_use_cases.close_table(unit, table_id), _present)


handlers = [create_table, list_tables, get_table, close_table]
