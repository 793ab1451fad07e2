"""One real `reddog serve` (two workers, its own database) for the end-to-end tests, and a signed client for it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.support.client import Signed
from tests.support.scratch import verified_scratch_database
from tests.support.served import AUDITOR, OPERATOR, Served, served

Sample = tuple[str, frozenset[tuple[str, str]]]


@pytest.fixture(scope="session")
async def served_database(database_server: str) -> AsyncIterator[str]:
    """Migrated by its owner; the served process connects as a login in the app role, as in production."""
    async with verified_scratch_database(database_server) as database:
        yield database.app_url


@pytest.fixture(scope="session")
def server(served_database: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """Two workers, so every figure on the metrics port must be the sum of both processes' files."""
    with served(served_database, Path(tmp_path_factory.mktemp("served")), workers=2) as running:
        yield running


@pytest.fixture
async def e2e_api(server: Served) -> AsyncIterator[Signed]:
    async with httpx.AsyncClient(base_url=server.api_url, timeout=30) as client:
        yield Signed(client, *OPERATOR)


@pytest.fixture
async def e2e_auditor(server: Served) -> AsyncIterator[Signed]:
    async with httpx.AsyncClient(base_url=server.api_url, timeout=30) as client:
        yield Signed(client, *AUDITOR)


def scrape(metrics_url: str) -> dict[Sample, float]:
    """Every sample the metrics port shows, by name and labels."""
    response = httpx.get(metrics_url, timeout=10)
    assert response.status_code == 200, response.text
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(response.text)
        for s in family.samples
    }


async def scrape_until_shown(metrics_url: str, *wanted: Sample) -> dict[Sample, float]:
    """`scrape`, once every `wanted` sample is there (or after 20 s): what a worker computes off its event loop (a
    new configuration's theory) shows a moment after the request that caused it."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(20):
            while not all(w in scrape(metrics_url) for w in wanted):  # noqa: ASYNC110 - another process: no event
                await asyncio.sleep(0.05)
    return scrape(metrics_url)


def key(name: str, **labels: str) -> Sample:
    return name, frozenset(labels.items())
