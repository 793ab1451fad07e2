"""The audit export from the database: the lines `reddog audit export` writes and `GET /v1/audit/records` pages.

Every line is made here, so the file and the API carry the same bytes for the same record. A table's head is read
before its records and no record past it is exported, so a head never claims more than its export holds.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable
from datetime import datetime
from uuid import UUID

import msgspec

from audit.export_format import (
    CheckpointLine,
    ExportEnd,
    ExportHeader,
    HashLine,
    Line,
    RecordLine,
    TableHead,
    encode_lines,
    record_line,
)
from service.db import Conn
from service.db.audit_export_sql import (
    ExportTable,
    StoredRecord,
    first_seq_since,
    select_checkpoints,
    select_export_tables,
    select_hashes,
    select_records,
    stream_records,
)

MAX_PAGE = 10_000


class Scope(msgspec.Struct, frozen=True, kw_only=True):
    """Whose chains a reader may export: one operator's, or every operator's (None) for an auditor."""

    operator_id: str | None
    table_id: UUID | None = None


def line_of(table_id: UUID, r: StoredRecord) -> RecordLine:
    return record_line(
        table_id=str(table_id),
        seq=r.seq,
        prev_hash=r.prev_hash,
        hash=r.hash,
        recorded_at=r.recorded_at,
        kind=r.kind,
        round_id=None if r.round_id is None else str(r.round_id),
        bet_id=r.bet_id,
        test=r.test,
        body=r.body,
    )


def head_of(table: ExportTable) -> TableHead:
    return TableHead(table_id=str(table.table_id), operator_id=table.operator_id, seq=table.seq, hash=table.hash.hex())


async def checkpoint_lines(conn: Conn, tables: Iterable[ExportTable]) -> dict[UUID, list[CheckpointLine]]:
    """Each table's checkpoints, smallest first, none past the head read for it."""
    heads = {t.table_id: t.seq for t in tables}
    found: dict[UUID, list[CheckpointLine]] = {table_id: [] for table_id in heads}
    for table_id, size, note in await select_checkpoints(conn, list(heads)):
        if size <= heads[table_id]:
            found[table_id].append(CheckpointLine(table_id=str(table_id), size=size, note=note))
    return found


async def export_lines(
    conn: Conn, scope: Scope, *, exported_at: datetime, since: datetime | None = None
) -> AsyncIterator[Line]:
    """A whole export, line by line; the caller holds one REPEATABLE READ transaction so it is one snapshot."""
    yield ExportHeader(
        exported_at=exported_at, table_id=None if scope.table_id is None else str(scope.table_id), since=since
    )
    tables = await select_export_tables(conn, operator_id=scope.operator_id, table_id=scope.table_id)
    checkpoints = await checkpoint_lines(conn, tables)
    exported = records = hashes = 0
    for table in tables:
        start = 0
        if since is not None:
            first = await first_seq_since(conn, table.table_id, since)
            if first is None or first > table.seq:
                continue
            start = first - 1
        exported += 1
        yield head_of(table)
        for line in checkpoints[table.table_id]:
            yield line
        if start > 0:  # `--since`: the table's creation in full (its settings), then only hashes up to `since`
            async for r in stream_records(conn, table.table_id, 0, 1):
                records += 1
                yield line_of(table.table_id, r)
            for seq, digest in await select_hashes(conn, table.table_id, 1, start + 1):
                hashes += 1
                yield HashLine(table_id=str(table.table_id), seq=seq, hash=digest.hex())
        async for r in stream_records(conn, table.table_id, start, table.seq):
            records += 1
            yield line_of(table.table_id, r)
    yield ExportEnd(tables=exported, records=records, hashes=hashes)


async def export_total(conn: Conn, scope: Scope) -> int:
    """How many records an export of this scope holds at most: the progress bar's end."""
    tables = await select_export_tables(conn, operator_id=scope.operator_id, table_id=scope.table_id)
    return sum(t.seq for t in tables)


class Page(msgspec.Struct, frozen=True, kw_only=True):
    """One page of `GET /v1/audit/records`: its lines, and where the next page starts (None: this was the last)."""

    lines: list[Line]
    next_after: tuple[UUID, int] | None


async def page(conn: Conn, scope: Scope, *, after: tuple[UUID, int] | None, limit: int) -> Page:
    """Up to `limit` records after (table_id, seq), each table's section led by its head and the checkpoints the
    page's records reach; `scope.table_id` keeps it to one table."""
    start_table = None if after is None else after[0]
    tables = await select_export_tables(conn, operator_id=scope.operator_id, table_id=scope.table_id, after=start_table)
    checkpoints = await checkpoint_lines(conn, tables)
    lines: list[Line] = []
    left = limit
    last: tuple[UUID, int] | None = None
    for table in tables:
        after_seq = after[1] if after is not None and table.table_id == after[0] else 0
        if after_seq >= table.seq or left == 0:
            if left == 0:
                break
            continue
        found = await select_records(conn, table.table_id, after_seq, table.seq, left)
        reach = found[-1].seq if found else after_seq
        lines.append(head_of(table))
        lines.extend(c for c in checkpoints[table.table_id] if after_seq < c.size <= reach)
        lines.extend(line_of(table.table_id, r) for r in found)
        left -= len(found)
        if found:
            last = (table.table_id, reach)
    return Page(lines=lines, next_after=last if left == 0 else None)


def encode_page(lines: list[Line], chunk: int = 500) -> Callable[[], AsyncIterator[bytes]]:
    """The page's bytes in chunks of lines, for a streamed response."""

    async def chunks() -> AsyncIterator[bytes]:
        for start in range(0, len(lines), chunk):
            yield encode_lines(lines[start : start + chunk])

    return chunks
