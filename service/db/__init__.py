"""SQL as small async functions named by verb; the caller owns the transaction."""

from typing import TypeAlias

import asyncpg
from asyncpg.pool import PoolConnectionProxy

# A plain connection (migrations, CLI) or one borrowed from the pool (requests): the queries take either.
Conn: TypeAlias = asyncpg.Connection | PoolConnectionProxy


class RetryTransaction(Exception):
    """The transaction met a race that a fresh attempt resolves."""
