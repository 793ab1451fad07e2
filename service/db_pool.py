"""Borrowing a pooled connection, counted: how many tasks wait for one, and how many connections are open."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from service import metrics


@contextlib.asynccontextmanager
async def acquire(pool: asyncpg.Pool) -> AsyncIterator[PoolConnectionProxy]:
    """`pool.acquire()`, with the waiters gauge up while this task waits and the pool's size sampled after."""
    metrics.DB_POOL_WAITERS.inc()
    try:
        conn: PoolConnectionProxy = await pool.acquire()
    finally:
        metrics.DB_POOL_WAITERS.dec()
        metrics.DB_POOL_SIZE.set(pool.get_size())
    try:
        yield conn
    finally:
        await pool.release(conn)
