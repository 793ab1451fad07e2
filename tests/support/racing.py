"""Helpers for tests that race requests: land each at a chosen moment, and name how each was answered."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

import httpx

T = TypeVar("T")


async def after(delay: float, work: Awaitable[T]) -> T:
    """Start `work` after `delay` seconds, to land requests at chosen moments around a deadline."""
    await asyncio.sleep(delay)
    return await work


def code(response: httpx.Response) -> str:
    """ "OK" for a success, else the problem's `code`."""
    return "OK" if response.status_code < 300 else str(response.json()["code"])
