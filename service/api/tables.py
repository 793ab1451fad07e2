"""Table routes (signed)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from litestar import Request, Response, get, post
from litestar.params import FromPath, JSONBody

from service import tables
from service.api import wire
from service.api.docs import SIGNED, IdempotencyKey, responses
from service.api.reply import read, reply, write


@post(
    "/tables",
    status_code=201,
    responses=responses(201, wire.TableOut, *SIGNED, 403, 409, 422),
    summary="Open a table",
)
async def create_table(
    request: Request[Any, Any, Any], data: JSONBody[wire.CreateTable], idempotency_key: IdempotencyKey
) -> Response[bytes]:
    return reply(await write(request, 201, lambda unit: tables.create_table(unit, data)))


@get("/tables", responses=responses(200, wire.TableList, *SIGNED), summary="The operator's tables")
async def list_tables(request: Request[Any, Any, Any]) -> wire.TableList:
    return await read(request, tables.list_tables)


@get("/tables/{table_id:uuid}", responses=responses(200, wire.TableOut, *SIGNED, 404), summary="One table")
async def get_table(request: Request[Any, Any, Any], table_id: FromPath[UUID]) -> wire.TableOut:
    return await read(request, lambda unit: tables.get_table(unit, table_id))


@post(
    "/tables/{table_id:uuid}/close",
    status_code=200,
    responses=responses(200, wire.TableOut, *SIGNED, 404, 409),
    summary="Close a table: no new rounds; rounds in flight finish",
)
async def close_table(
    request: Request[Any, Any, Any], table_id: FromPath[UUID], idempotency_key: IdempotencyKey
) -> Response[bytes]:
    return reply(await write(request, 200, lambda unit: tables.close_table(unit, table_id)))


handlers = [create_table, list_tables, get_table, close_table]
