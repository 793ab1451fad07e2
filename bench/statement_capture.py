"""Statements recorded from the real service, cut into transactions and matched to the rounds that caused them."""

from __future__ import annotations

import pickle
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any
from uuid import UUID

import msgspec
from asyncpg import introspection

# What asyncpg itself sends (type introspection, switching JIT off around it): not the application's work.
_DRIVER_STATEMENTS = (introspection.INTRO_LOOKUP_TYPES, introspection.INTRO_LOOKUP_TYPES_13)


def is_driver_statement(sql: str) -> bool:
    return sql in _DRIVER_STATEMENTS or "set_config('jit'" in sql


class Statement(msgspec.Struct, frozen=True):
    sql: str
    args: tuple[Any, ...]


class Transaction(msgspec.Struct, frozen=True):
    """BEGIN ... COMMIT on one connection, both included; or one statement sent outside a transaction (it commits
    on its own, as a request's unlocked read and its one-statement write do)."""

    statements: tuple[Statement, ...]


class CapturedRound(msgspec.Struct, frozen=True, kw_only=True):
    round_id: UUID
    keys: tuple[str, ...]  # the Idempotency-Key of each request: open, and the decision if there was one
    transactions: tuple[Transaction, ...]  # every request's, in order (one locked, or an unlocked read and write)
    head_before: int  # the table's audit chain head when the round began


def read_records(path: Path) -> list[tuple[int, str, tuple[Any, ...]]]:
    records: list[tuple[int, str, tuple[Any, ...]]] = []
    with path.open("rb") as f:
        while True:
            try:
                number, sql, args = pickle.load(f)  # noqa: S301 - written by our own capture_serve child
            except EOFError:
                return records
            records.append((int(number), str(sql), tuple(args)))


def _keyword(sql: str) -> str:
    return sql.strip().rstrip(";").split(None, 1)[0].upper() if sql.strip() else ""


def transactions(records: Iterable[tuple[int, str, tuple[Any, ...]]]) -> list[Transaction]:
    """Committed transactions in the order they committed; a statement outside a transaction is one of its own.
    The capture sees what was sent, not whether it failed: its one client plays one request at a time on a table of
    its own and no raise window expires meanwhile, so no write races another. (One that had, and run again locked,
    would show as three transactions of one key, which `match_rounds` refuses loudly.) Rolled-back transactions
    and the driver's own statements are left out."""
    open_by_connection: dict[int, list[Statement]] = {}
    done: list[Transaction] = []
    for number, sql, args in records:
        word = _keyword(sql)
        if word in ("BEGIN", "START"):
            open_by_connection[number] = [Statement(sql, args)]
        elif number in open_by_connection:
            open_by_connection[number].append(Statement(sql, args))
            if word in ("COMMIT", "END"):
                done.append(Transaction(tuple(open_by_connection.pop(number))))
            elif word == "ROLLBACK":
                del open_by_connection[number]
        elif not is_driver_statement(sql):
            done.append(Transaction((Statement(sql, args),)))
    return done


def _mentions(transaction: Transaction, key: str) -> bool:
    return any(key in statement.args for statement in transaction.statements)


def _unlocked(committed: Sequence[Transaction], pair: Sequence[int]) -> bool:
    """Two transactions of one request: an unlocked read, then its one-statement write."""
    return all(len(committed[i].statements) == 1 for i in pair)


# A capture appends far fewer records than this, and no other integer the service sends falls between `base` and
# `base + SEQ_SPAN` (the outbox's advisory lock key, 9e13, is above it: taken for a seq, it moved every script's chain
# below zero and every replayed round failed).
SEQ_SPAN = 10**9


def is_seq(value: object, base: int) -> bool:
    """Whether an argument is an audit sequence number of the capture table's chain, which was moved to `base`."""
    return isinstance(value, int) and not isinstance(value, bool) and base <= value < base + SEQ_SPAN


def seq_values(transaction: Transaction, base: int) -> list[int]:
    """Audit sequence numbers in a transaction's arguments: the capture table's chain was moved to start at `base`."""
    found: list[int] = []
    for statement in transaction.statements:
        for arg in statement.args:
            found.extend(value for value in (arg if isinstance(arg, list) else [arg]) if is_seq(value, base))
    return found


def match_rounds(
    committed: Sequence[Transaction], played: Sequence[tuple[UUID, Sequence[str]]], seq_base: int
) -> list[CapturedRound]:
    """Each played round with the committed transactions of each of its requests (found by its Idempotency-Key):
    one transaction for a locked request, its read and its write for an unlocked one."""
    head = seq_base
    heads: list[int] = []  # the chain head before each committed transaction
    for transaction in committed:
        heads.append(head)
        head = max([head, *seq_values(transaction, seq_base)])
    rounds = []
    for round_id, keys in played:
        found = []
        for key in keys:
            matches = [i for i, t in enumerate(committed) if _mentions(t, key)]
            if not 1 <= len(matches) <= 2 or (len(matches) == 2 and not _unlocked(committed, matches)):
                raise ValueError(f"request {key} of round {round_id}: {len(matches)} transactions, not one or a pair")
            found.extend(matches)
        rounds.append(
            CapturedRound(
                round_id=round_id,
                keys=tuple(keys),
                transactions=tuple(committed[i] for i in found),
                head_before=heads[found[0]],
            )
        )
    return rounds
