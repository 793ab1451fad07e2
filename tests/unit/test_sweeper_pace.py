"""How often the sweeper runs and how much of the pool it may take: pure arithmetic, no database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from service.runtime.sweeper import MIN_PAUSE, _until, claimers
from service.settings import Settings

NOW = datetime(2026, 11, 1, 12, tzinfo=UTC)


def test_the_next_pass_starts_when_the_soonest_open_window_closes() -> None:
    assert _until(NOW + timedelta(seconds=0.4), NOW, 1.0) == 0.4


def test_with_no_window_open_the_next_pass_waits_the_sweep_interval() -> None:
    assert _until(None, NOW, 1.0) == 1.0
    assert _until(NOW + timedelta(seconds=30), NOW, 1.0) == 1.0


def test_passes_never_run_back_to_back_however_late_a_deadline_is() -> None:
    assert _until(NOW - timedelta(seconds=3), NOW, 1.0) == MIN_PAUSE
    assert _until(NOW, NOW, 1.0) == MIN_PAUSE


def test_a_replica_settles_batches_on_a_quarter_of_its_pool_and_always_at_least_one() -> None:
    assert claimers(Settings(pool_max_size=10)) == 2
    assert claimers(Settings(pool_max_size=40)) == 10
    assert claimers(Settings(pool_min_size=1, pool_max_size=3)) == 1
