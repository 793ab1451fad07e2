"""`reddog serve` with every database connection's statements recorded: what the database ceiling replays.

Run as `python -m bench.capture_serve FILE`. It wraps asyncpg's connect before the service is imported, so every
connection the service opens (pool or not) gets a query logger, then runs the `reddog` console script itself. Each
statement is appended to FILE as a pickled (connection number, SQL, arguments) tuple, in the order it completed.
"""

from __future__ import annotations

import itertools
import pickle
import sys
import uuid
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import IO, Any

import asyncpg
import asyncpg.connection

from bench.statement_capture import is_driver_statement


def plain(value: Any) -> Any:
    """Arguments as standard-library values (asyncpg's own UUID type becomes uuid.UUID) so they unpickle anywhere."""
    if isinstance(value, uuid.UUID):
        return uuid.UUID(bytes=value.bytes)
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def recorder(out: IO[bytes]) -> Callable[[asyncpg.Connection], None]:
    numbers = itertools.count()

    def attach(conn: asyncpg.Connection) -> None:
        number = next(numbers)

        def log(record: Any) -> None:
            if record.exception is None and not is_driver_statement(record.query):
                pickle.dump((number, record.query, plain(record.args)), out)
                out.flush()

        conn.add_query_logger(log)

    return attach


def install(out: IO[bytes]) -> None:
    attach = recorder(out)
    original = asyncpg.connection.connect

    async def connect(*args: Any, **kwargs: Any) -> Any:
        conn = await original(*args, **kwargs)
        attach(conn)
        return conn

    # The pool calls asyncpg.connection.connect; application code calls asyncpg.connect: wrap both names.
    asyncpg.connection.connect = connect
    asyncpg.connect = connect


def main() -> None:
    out = open(sys.argv[1], "ab")  # noqa: SIM115 - open for the life of the process; closed at exit
    install(out)
    (reddog,) = entry_points(group="console_scripts", name="reddog")
    sys.argv = ["reddog", "serve"]
    raise SystemExit(reddog.load()())


if __name__ == "__main__":
    main()
