"""Turn a captured round's statements into a pgbench script that replays them with fresh identities.

Every statement is the service's own SQL text; every argument is passed as a pgbench variable, so PostgreSQL binds and
parses it on each execution as it does for the service. Only what must differ from one replayed round to the next is
rewritten, recognised by value rather than by statement, so the script follows whatever SQL the code sends:

- the round's id (alone, in arrays, or inside text such as bet ids and the round's JSON) becomes a fresh time-ordered
  id, as the service's UUIDv7 ids are: the client's chain position :seq first (rising with time), then md5(:r);
- the requests' Idempotency-Keys become md5(:r) plus the request's number;
- audit hashes the capture wrote become sha256(:r, n), random like real ones;
- audit sequence numbers (the capture table's chain was moved to start at SEQ_BASE) follow the client's own table;
- the capture table's id becomes the client's table, and timestamps become now() plus the captured offset;
- any other id (a notification's message id: unique in the outbox) becomes md5(:r) and the id, fresh each replay.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

import msgspec

from bench.statement_capture import CapturedRound, Transaction, is_seq
from service.db.table_sql import LATEST_CHECKPOINT

SEQ_BASE = 10**12
MAX_REFERENCES = 255  # pgbench's limit on variables in one SQL command
_ROUND_HEX = "(lpad(to_hex(:seq::bigint), 12, '0') || substr(md5(:r::text), 13))"  # time-ordered, like UUIDv7
ROUND_UUID = f"{_ROUND_HEX}::uuid"
ROUND_TEXT = f"{_ROUND_HEX}::uuid::text"
CLIENT_TABLE = "('00000000-0000-4000-8000-' || lpad(:client_id::text, 12, '0'))::uuid"
_PLACEHOLDER = re.compile(r"\$(\d+)")
# The guard table_sql.update_table adds for a remembered row, its table's placeholder whatever number it was given
_CHECKPOINT_LOOKUP = re.escape(LATEST_CHECKPOINT).replace(re.escape("$1"), r"\$(\d+)")
_CHECKPOINT_GUARD = re.compile(rf"reddog_expect_head\((?P<lookup>{_CHECKPOINT_LOOKUP}), \$\d+\)")
_REFERENCE = re.compile(r"(?<!:):([A-Za-z0-9_]+)")

Render = Callable[[Any, str], str]  # (value, SQL type) -> the value's PostgreSQL text form


class ParamType(msgspec.Struct, frozen=True):
    name: str  # as format_type() spells it: "bigint[]", "timestamp with time zone"
    element: str | None = None  # for an array, its element type


class Script(msgspec.Struct, frozen=True, kw_only=True):
    text: str
    settles_at_open: bool  # one request (consecutive, pair, trips) rather than open + decision
    seq_step: int  # audit records the round appends


def client_table(client: int) -> UUID:
    """The table pgbench client n replays on (CLIENT_TABLE computes the same id inside PostgreSQL)."""
    return UUID(f"00000000-0000-4000-8000-{client:012d}")


class Variables:
    """Constant arguments, passed to pgbench with -D: one variable per distinct text."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def reference(self, text: str) -> str:
        return ":" + self.names.setdefault(text, f"v{len(self.names)}")

    def arguments(self) -> list[str]:
        return [arg for text, name in self.names.items() for arg in ("-D", f"{name}={text}")]


class _Round:
    """What is volatile in one captured round, and the expression each volatile value becomes."""

    def __init__(self, captured: CapturedRound, table_id: UUID, hashes: frozenset[bytes]) -> None:
        self.captured = captured
        self.table_id = table_id
        self.known_hashes = hashes
        self.hash_numbers: dict[bytes, int] = {}
        self.tokens = {str(captured.round_id): ROUND_TEXT}
        self.tokens.update({key: f"(md5(:r::text) || '-k{i}')" for i, key in enumerate(captured.keys)})
        self.base_time: datetime | None = None
        self.seq_max = captured.head_before

    def volatile(self, value: Any, variables: Variables) -> str | None:
        """The expression replacing a value, or None when the captured constant will do."""
        if isinstance(value, bool) or value is None:
            return None
        if isinstance(value, UUID):
            return self._uuid(value)
        if is_seq(value, SEQ_BASE):
            self.seq_max = max(self.seq_max, value)
            return f"(:seq::bigint + {value - self.captured.head_before})"
        if isinstance(value, bytes) and value in self.known_hashes:
            number = self.hash_numbers.setdefault(value, len(self.hash_numbers))
            return f"sha256((:r::text || '/{number}')::bytea)"
        if isinstance(value, datetime) and self.base_time is not None:
            offset = value - self.base_time
            return f"(now() + interval '{offset // _MICROSECOND} microseconds')"
        if isinstance(value, str):
            return self._text(value, variables)
        return None

    def _uuid(self, value: UUID) -> str | None:
        """The round and the table as above; any other id the round wrote (its notification's message id, unique in
        the outbox) fresh each replay, the same within it; the nil id (the system chain's) stays."""
        if value == self.captured.round_id:
            return ROUND_UUID
        if value == self.table_id:
            return CLIENT_TABLE
        return None if value.int == 0 else f"md5(:r::text || '/{value}')::uuid"

    def _text(self, value: str, variables: Variables) -> str | None:
        """Text holding the round id or a key (bet ids, the round's JSON): spliced around the fresh values."""
        pieces: list[str] = []
        rest = value
        while rest:
            hits = [(rest.find(token), token) for token in self.tokens if token in rest]
            if not hits:
                break
            at, token = min(hits, key=lambda hit: (hit[0], -len(hit[1])))
            if at:
                pieces.append(f"{variables.reference(rest[:at])}::text")
            pieces.append(self.tokens[token])
            rest = rest[at + len(token) :]
        if not pieces:
            return None
        if rest:
            pieces.append(f"{variables.reference(rest)}::text")
        return " || ".join(pieces)


_MICROSECOND = datetime(2000, 1, 1, 0, 0, 0, 1) - datetime(2000, 1, 1)


def _datetimes(transaction: Transaction) -> list[datetime]:
    found: list[datetime] = []
    for statement in transaction.statements:
        for arg in statement.args:
            found.extend(v for v in (arg if isinstance(arg, list) else [arg]) if isinstance(v, datetime))
    return found


class _Writer:
    """Writes one round's statements, each argument a variable or the expression that replaces it."""

    def __init__(self, state: _Round, variables: Variables, render: Render) -> None:
        self.state = state
        self.variables = variables
        self.render = render

    def constant(self, value: Any, type_name: str) -> str:
        return self.variables.reference(self.render(value, type_name))

    def argument(self, value: Any, kind: ParamType) -> str:
        if value is None:
            return "NULL"
        if isinstance(value, list) and kind.element is not None:
            return self.array(value, kind, kind.element)
        expression = self.state.volatile(value, self.variables)
        if expression is None:
            return self.constant(value, kind.name)  # bare, so PostgreSQL infers its type as it did for the service
        return f"({expression})::{kind.name}"

    def array(self, values: list[Any], kind: ParamType, element: str) -> str:
        """A whole constant array stays one variable; one with fresh elements is built element by element."""
        expressions = [self.state.volatile(v, self.variables) for v in values]
        if all(e is None for e in expressions):
            return self.constant(values, kind.name)
        parts = [
            "NULL" if v is None else f"({e})::{element}" if e is not None else f"{self.constant(v, element)}::{element}"
            for v, e in zip(values, expressions, strict=True)
        ]
        return f"ARRAY[{', '.join(parts)}]::{kind.name}"

    def statement(self, sql: str, args: tuple[Any, ...], kinds: tuple[ParamType, ...]) -> str:
        if len(args) != len(kinds):
            raise ValueError(f"{len(args)} arguments for {len(kinds)} parameters in {sql[:80]!r}")
        rendered = [self.argument(v, k) for v, k in zip(args, kinds, strict=True)]
        # A write from a remembered row names its table's latest checkpoint size as it last saw it; a replayed
        # table's is whatever its client's earlier scripts signed, which a script cannot know: it compares the
        # size with itself, the same lookup once more, rather than with a captured size that would fail.
        sql = _CHECKPOINT_GUARD.sub(r"reddog_expect_head(\g<lookup>, \g<lookup>)", sql)
        text = _PLACEHOLDER.sub(lambda m: rendered[int(m.group(1)) - 1], " ".join(sql.split()).rstrip(";"))
        if len(_REFERENCE.findall(text)) > MAX_REFERENCES:
            raise ValueError(f"more than {MAX_REFERENCES} pgbench variables in one statement: {sql[:80]!r}")
        return text + ";"


def build_script(
    captured: CapturedRound,
    *,
    table_id: UUID,
    hashes: frozenset[bytes],
    types: Mapping[str, tuple[ParamType, ...]],
    variables: Variables,
    render: Render,
) -> Script:
    """One round as a pgbench script: a fresh :r, the round's transactions, then the client's chain head moves on."""
    state = _Round(captured, table_id, hashes)
    writer = _Writer(state, variables, render)
    lines = ["\\set r random(1, 4611686018427387903)"]
    for transaction in captured.transactions:
        times = _datetimes(transaction)
        state.base_time = min(times) if times else None
        lines.extend(writer.statement(s.sql, s.args, types.get(s.sql, ())) for s in transaction.statements)
    step = state.seq_max - captured.head_before
    lines.append(f"\\set seq :seq + {step}")
    return Script(text="\n".join(lines) + "\n", settles_at_open=len(captured.keys) == 1, seq_step=step)


def references(script: str) -> set[str]:
    """The pgbench variables a script reads (for checking that every one is defined)."""
    return set(_REFERENCE.findall(script))


def shape(captured: CapturedRound) -> tuple[object, ...]:
    """What makes one round's statements cost differently from another's: statements, arguments, array lengths."""
    return tuple(
        (len(s.args), tuple(len(a) for a in s.args if isinstance(a, list)))
        for t in captured.transactions
        for s in t.statements
    )


def sample(rounds: Sequence[CapturedRound], per_kind: int) -> list[CapturedRound]:
    """Up to `per_kind` rounds settled at open and as many with a decision, every distinct shape first.

    Few scripts keep pgbench close to the service: each script's statements are prepared separately on every
    connection, and a statement run only a few times per connection is planned afresh more often than the service's.
    """
    chosen: list[CapturedRound] = []
    for settles_at_open in (True, False):
        kind = [r for r in rounds if (len(r.keys) == 1) == settles_at_open]
        first_of_shape: dict[tuple[object, ...], int] = {}
        for i, r in enumerate(kind):
            first_of_shape.setdefault(shape(r), i)
        firsts = list(first_of_shape.values())
        order = firsts + [i for i in range(len(kind)) if i not in firsts]
        chosen.extend(kind[i] for i in order[:per_kind])
    return chosen
