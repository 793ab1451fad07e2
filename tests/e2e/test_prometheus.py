"""End to end: a real Prometheus scrapes the running server's metrics port with the repository's recording rules,
and its RTP rule gives the figure the report endpoint reads from the database."""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path

import pytest

from tests.deploy.support import tool
from tests.support import every_outcome as hand
from tests.support.client import Signed
from tests.support.prometheus import Prometheus, prometheus, until, value
from tests.support.served import Served

CURRENCY = "NOK"  # a currency no other test plays, so these series hold only this test's rounds
SERIES = f'{{paytable="standard/v1",decks="1",currency="{CURRENCY}",mode="test"}}'


@pytest.fixture
def scraping(server: Served, tmp_path: Path) -> Iterator[Prometheus]:
    target = server.metrics_url.removeprefix("http://").removesuffix("/metrics")
    with prometheus(tool("prometheus"), target, tmp_path) as running:
        yield running


async def test_the_rtp_recording_rule_gives_the_figure_of_the_report_endpoint(
    scraping: Prometheus, e2e_api: Signed
) -> None:
    table = await e2e_api.table(**hand.TABLE, currency=CURRENCY)
    # The money series start at 0 when the table is created: Prometheus must see that before any round ends,
    # or increase() would take the first value it sees as the baseline and miss it.
    await until(lambda: value(scraping, f"reddog_wagered_minor_units_total{SERIES} == 0"), "the series at zero")
    await hand.play_every_outcome(e2e_api, table["table_id"])
    report = await e2e_api.ok("GET", f"/v1/reports/rtp?mode=test&table_id={table['table_id']}")
    (line,) = report["lines"]
    raw = f"reddog_paid_minor_units_total{SERIES} == 163 and on () reddog_wagered_minor_units_total{SERIES} == 74"
    await until(lambda: value(scraping, raw), "the rounds' counters scraped")
    scraped = datetime.now(UTC)
    await until(lambda: scraping.last_evaluation("reddog.integrity") > scraped or None, "the rules evaluated again")

    observed = value(scraping, f"reddog:rtp_observed:ratio1h{SERIES}")
    expected = value(scraping, f"reddog:rtp_expected:ratio1h{SERIES}")
    assert observed is not None
    assert expected is not None
    assert math.isclose(observed, float(Fraction(line["observed_rtp_fraction"])), rel_tol=1e-12)  # 163/74
    assert math.isclose(expected, float(Fraction(line["expected_rtp_fraction"])), rel_tol=1e-12)  # 1041/925
    assert line["observed_rtp_fraction"] == "163/74"  # and both are the hand calculation
