"""record_round adds exactly what a settled or voided round moved; gauges add up right across worker processes."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path

import pytest
from prometheus_client import REGISTRY, CollectorRegistry, multiprocess

from paytables.red_dog import loader
from paytables.red_dog.analysis import rtp
from paytables.red_dog.analysis.red_dog_expectation import settled_round_expectation
from paytables.red_dog.round import Raise, Step, decide, open_round, void_round
from service.observability import metrics
from shoe.shoe import new_shoe

NOW = datetime(2026, 11, 1, tzinfo=UTC)
STANDARD = loader.get("standard/v1")
POST_DOUBLE = loader.get("post-double/v1")
ROOT = Path(__file__).resolve().parents[2]


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def opened(
    *cards: str, paytable_id: str = "post-double/v1", antes: tuple[int, ...] = (10,), test: bool = False
) -> Step:
    shoe = new_shoe(1, random.Random(5), forced=cards)
    return open_round(
        round_id="r1",
        table_id="t1",
        paytable=loader.get(paytable_id),
        shoe=shoe,
        antes=[(f"p{i}", a) for i, a in enumerate(antes)],
        now=NOW,
        window_seconds=10,
        test=test,
        actor="op",
    )


def test_a_raised_spread_that_hits_a_post_counts_the_penalty_as_wagered_and_the_expectation_beside_it() -> None:
    step = opened("4S", "TH", "4D")  # posts 4 and 10 from one deck; the third card hits a post: lose double
    step = decide(step.round, step.shoe, POST_DOUBLE, Raise(bet_id="r1.1", amount=10), now=NOW, actor="op")
    expectation = settled_round_expectation(step.round, step.shoe.order, POST_DOUBLE)
    # By hand (tests/unit/test_red_dog_expectation.py): 16 expected back of 112/5 expected debited, variance 12576/25.
    assert expectation.expected_paid == 16
    assert expectation.variance == Fraction(12576, 25)
    money = {"paytable": "post-double/v1", "decks": "1", "currency": "EUR", "mode": "live"}
    names = ["paid", "wagered", "expected_paid", "expected_wagered"]
    before = {n: value(f"reddog_{n}_minor_units_total", **money) for n in names}
    variance_before = value("reddog_net_variance_minor_units_squared_total", **money)
    rounds_before = value(
        "reddog_rounds_total", paytable="post-double/v1", decks="1", outcome="spread_5", status="settled", mode="live"
    )
    bets_before = value("reddog_bets_total", paytable="post-double/v1", decision="raise", result="lose", mode="live")

    metrics.record_round(step.round, "EUR", expectation)

    after = {n: value(f"reddog_{n}_minor_units_total", **money) - before[n] for n in names}
    # Counters are floats that other tests may have raised already: compare the increase to float precision.
    assert after == pytest.approx({"paid": 0, "wagered": 40, "expected_paid": 16, "expected_wagered": 22.4})  # 10+10+20
    assert value("reddog_net_variance_minor_units_squared_total", **money) - variance_before == pytest.approx(
        12576 / 25
    )
    assert (
        value(
            "reddog_rounds_total",
            paytable="post-double/v1",
            decks="1",
            outcome="spread_5",
            status="settled",
            mode="live",
        )
        - rounds_before
        == 1
    )
    assert value("reddog_bets_total", paytable="post-double/v1", decision="raise", result="lose", mode="live") == (
        bets_before + 1
    )


def test_a_pair_is_counted_under_the_outcome_names_of_the_probabilities() -> None:
    step = opened("8S", "8H", "8D", paytable_id="standard/v1", antes=(5, 7), test=True)
    labels = {"paytable": "standard/v1", "decks": "1", "outcome": "trips", "status": "settled", "mode": "test"}
    before = value("reddog_rounds_total", **labels)
    money = {"paytable": "standard/v1", "decks": "1", "currency": "USD", "mode": "test"}
    paid_before = value("reddog_paid_minor_units_total", **money)
    metrics.record_round(step.round, "USD")
    assert value("reddog_rounds_total", **labels) == before + 1
    paid = value("reddog_paid_minor_units_total", **money) - paid_before
    assert paid == 5 * 12 + 7 * 12


def test_a_voided_round_counts_its_refunds_and_no_wager() -> None:
    step = opened("4S", "TH", antes=(10, 3))
    voided = void_round(step.round, step.shoe, POST_DOUBLE, reason="operator", now=NOW, actor="op")
    money = {"paytable": "post-double/v1", "decks": "1", "currency": "GBP", "mode": "live"}
    before = value("reddog_refunded_minor_units_total", **money), value("reddog_voided_bets_total", **money)
    metrics.record_round(voided.round, "GBP")
    assert value("reddog_refunded_minor_units_total", **money) - before[0] == 13
    assert value("reddog_voided_bets_total", **money) - before[1] == 2
    assert value("reddog_wagered_minor_units_total", **money) == 0


def test_the_theoretical_figures_are_published_per_paytable_and_decks() -> None:
    metrics.publish_theoretical(STANDARD, 6)
    # No post penalty on standard/v1, so the return per total bet of `reddog rtp` is the same figure.
    by_rtp = Fraction(rtp.compute(STANDARD, 6).rtp_per_total_bet_fraction)
    assert value("reddog_theoretical_rtp", paytable="standard/v1", decks="6") == float(by_rtp)
    # Only A-2 is a spread of 11: either order, 24 x 24 of 312 x 311 cards.
    assert value("reddog_outcome_probability", decks="6", outcome="spread_11") == float(
        Fraction(2 * 24 * 24, 312 * 311)
    )


def _in_worker(folder: Path, script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`script` run by a fresh interpreter writing its metrics into `folder`, as a worker does (exit not checked)."""
    env = {"PROMETHEUS_MULTIPROC_DIR": str(folder), "PATH": "/usr/bin:/bin"}
    command = [sys.executable, "-c", script, *args]
    return subprocess.run(command, check=False, env=env, cwd=ROOT, timeout=60, capture_output=True, text=True)  # noqa: S603


def _collected(folder: Path) -> CollectorRegistry:
    """What /metrics would show of the workers that wrote into `folder`."""
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry, path=str(folder))  # type: ignore[no-untyped-call]
    return registry


WORKER = textwrap.dedent(
    """
    import sys
    from service.observability import metrics
    metrics.observe_pool(size=int(sys.argv[1]), waiters=int(sys.argv[2]))
    metrics.OPEN_RAISE_WINDOWS.set(int(sys.argv[1]))
    metrics.observe_sweep(0.3)
    metrics.AUDIT_CHECKPOINT.set(int(sys.argv[3]))
    """
)


def test_several_workers_add_up_their_counters_and_pools_and_keep_the_newest_checkpoint(tmp_path: Path) -> None:
    for size, waiters, checkpoint in [(4, 1, 1000), (6, 2, 2000)]:
        _in_worker(tmp_path, WORKER, str(size), str(waiters), str(checkpoint)).check_returncode()
    registry = _collected(tmp_path)
    assert registry.get_sample_value("reddog_sweeper_settled_total") == 2
    assert registry.get_sample_value("reddog_sweeper_lag_seconds_bucket", {"le": "0.5"}) == 2
    assert registry.get_sample_value("reddog_db_pool_size") == 10
    assert registry.get_sample_value("reddog_db_pool_waiters") == 3
    assert registry.get_sample_value("reddog_audit_checkpoint_timestamp_seconds") == 2000
    assert registry.get_sample_value("reddog_open_raise_windows") == 6  # the most recent sample


FORKING_WORKER = textwrap.dedent(
    """
    import os
    from service.observability import metrics
    metrics.observe_sweep(0.3)
    child = os.fork()
    if child == 0:
        metrics.observe_sweep(0.3)  # the child's count starts again from zero, in a file of its own
        os._exit(0)
    os.waitpid(child, 0)
    metrics.observe_sweep(0.3)
    print(os.getpid(), child)
    """
)


def test_a_forked_worker_counts_in_its_own_file_with_the_process_id_kept_by_the_metrics(tmp_path: Path) -> None:
    done = _in_worker(tmp_path, FORKING_WORKER)
    done.check_returncode()
    parent, child = done.stdout.split()
    assert {p.name for p in tmp_path.iterdir()} >= {f"counter_{parent}.db", f"counter_{child}.db"}
    assert _collected(tmp_path).get_sample_value("reddog_sweeper_settled_total") == 3  # 2 in the parent, 1 in the child


EARLY_METRIC = textwrap.dedent(
    """
    from prometheus_client import Counter
    Counter("made_too_early", "a metric created before service.observability.metrics").inc()
    from service.observability import metrics
    """
)


def test_a_metric_created_before_the_service_metrics_is_refused_rather_than_sharing_their_files(
    tmp_path: Path,
) -> None:
    done = _in_worker(tmp_path, EARLY_METRIC)
    assert done.returncode != 0
    assert "a metric was created before service.observability.metrics" in done.stderr


STALE_FILE = textwrap.dedent(
    """
    import os, pathlib
    # A file a dead worker left with the pid this process now has (pids are reused): not a metric of this process.
    pathlib.Path(os.environ["PROMETHEUS_MULTIPROC_DIR"], f"counter_{os.getpid()}.db").touch()
    from service.observability import metrics
    metrics.observe_sweep(0.3)
    """
)


def test_a_file_left_by_a_dead_process_with_the_same_pid_does_not_stop_a_worker(tmp_path: Path) -> None:
    _in_worker(tmp_path, STALE_FILE).check_returncode()
    assert _collected(tmp_path).get_sample_value("reddog_sweeper_settled_total") == 1
