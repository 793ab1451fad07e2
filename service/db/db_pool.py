"""Borrowing a pooled connection, counted: how many tasks wait for one, and how many connections are open."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import asyncpg
from asyncpg.pool import PoolConnectionProxy

from service.observability import metrics


@contextlib.asynccontextmanager
async def acquire(pool: asyncpg.Pool) -> AsyncIterator[PoolConnectionProxy]:
    """`pool.acquire()`, with the waiters gauge up while this task waits and the pool's size sampled after.

    With a connection idle there is nothing to wait for, and the gauges (each a write to a shared file in
    multiprocess mode) are left alone: the busy path is the one they describe."""
    try:
        if pool.get_idle_size() > 0:
            conn: PoolConnectionProxy = await pool.acquire()
        else:
            metrics.DB_POOL_WAITERS.inc()
            try:
                conn = await pool.acquire()
            finally:
                metrics.DB_POOL_WAITERS.dec()
    finally:
        metrics.observe_pool_size(pool.get_size())
    try:
        yield conn
    finally:
        await pool.release(conn)
