"""SQL as small async functions named by verb; the caller owns the transaction."""

import re
from collections.abc import Sequence
from typing import Any, TypeAlias

import asyncpg
import msgspec
from asyncpg.pool import PoolConnectionProxy

# A plain connection (migrations, CLI) or one borrowed from the pool (requests): the queries take either.
Conn: TypeAlias = asyncpg.Connection | PoolConnectionProxy


class RetryTransaction(Exception):
    """The transaction met a race that a fresh attempt resolves."""


class Statement(msgspec.Struct, frozen=True):
    """One write and its arguments, built now and run at the end of the transaction with the others.

    `leads`: run before the other writes it is combined with, leading writes in their order (it has a RETURNING
    clause, which the combined query reads). An unlocked request's idempotency key leads, then the table-row update
    that checks the audit head: every writer takes a key, then a table's row, then a round's, and one that finds the
    head moved fails before it writes anything else."""

    sql: str
    args: tuple[Any, ...]
    leads: bool = False


_PLACEHOLDER = re.compile(r"\$(\d+)")


_Shape = tuple[tuple[str, int, bool], ...]  # each write's text, argument count and whether it leads
_COMBINED: dict[_Shape, str] = {}  # the combined text of each sequence of writes seen, built once
_COMBINED_MOST = 512  # a handful of sequences occur; the bound only stops a bug from growing it without end


async def execute_together(conn: Conn, statements: Sequence[Statement]) -> None:
    """Run the writes as one query, each a data-modifying CTE: one round trip however many there are.

    PostgreSQL runs every data-modifying CTE exactly once, read or not: those the final SELECT reads (the leading
    writes) first, in order, the others after them. The writes see the same snapshot, so two of them must never
    touch the same row; what needs an earlier write's effect runs as its own statement.
    """
    if not statements:
        return
    if len(statements) == 1:
        await conn.execute(statements[0].sql, *statements[0].args)
        return
    shape = tuple((s.sql, len(s.args), s.leads) for s in statements)
    combined = _COMBINED.get(shape)
    if combined is None:
        combined = _combine(statements)
        if len(_COMBINED) >= _COMBINED_MOST:
            _COMBINED.clear()
        _COMBINED[shape] = combined
    await conn.execute(combined, *[arg for statement in statements for arg in statement.args])


def _combine(statements: Sequence[Statement]) -> str:
    parts: list[str] = []
    offset = 0
    for i, statement in enumerate(statements):
        parts.append(f"w{i} AS ({_renumber(statement.sql, offset)})")
        offset += len(statement.args)
    leading = [f"(SELECT count(*) FROM w{i})" for i, s in enumerate(statements) if s.leads]  # noqa: S608 - ours
    return f"WITH {', '.join(parts)} SELECT {' + '.join(leading) or '1'}"


def _renumber(sql: str, offset: int) -> str:
    """Shift $n placeholders past the arguments of the writes before this one."""

    def shifted(match: re.Match[str]) -> str:
        return f"${int(match.group(1)) + offset}"

    return _PLACEHOLDER.sub(shifted, sql)
