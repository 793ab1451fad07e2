"""Every metric the dashboard and the rules read exists in service's metrics, with the labels they match on."""

from __future__ import annotations

import json
import re

import pytest

from tests.deploy.support import (
    DASHBOARD,
    DEPLOY,
    defined_metrics,
    labels_of,
    matched_labels,
    names_in,
    recorded_names,
    rule_expressions,
)


def dashboard_expressions() -> dict[str, str]:
    panels = json.loads(DASHBOARD.read_text(encoding="utf-8"))["panels"]
    return {f"{p['title']} [{t['refId']}]": t["expr"] for p in panels for t in p["targets"]}


def test_the_name_scan_handles_suffixes_recording_rules_and_strings() -> None:
    expr = 'sum(rate(reddog_x_bucket{job="reddog_not_a_metric"}[5m])) / reddog:y:rate5m + up{job="reddog"}'
    assert names_in(expr) == {"reddog_x_bucket", "reddog:y:rate5m"}
    assert matched_labels('reddog_x_total{mode="live", status=~"5.."}') == [("reddog_x_total", {"mode", "status"})]


def test_the_registry_knows_counter_and_histogram_suffixes() -> None:
    names = defined_metrics()
    assert {"reddog_rounds_total", "reddog_sweeper_lag_seconds_bucket", "reddog_open_raise_windows"} <= set(names)
    assert "reddog_rounds" not in names


@pytest.mark.parametrize(("where", "expressions"), [("rules", rule_expressions), ("dashboard", dashboard_expressions)])
def test_every_name_read_is_a_defined_metric_or_a_recording_rule(where: str, expressions: object) -> None:
    assert callable(expressions)
    known = set(defined_metrics()) | recorded_names()
    unknown = {key: sorted(names_in(expr) - known) for key, expr in expressions().items() if names_in(expr) - known}
    assert unknown == {}, where


@pytest.mark.parametrize(("where", "expressions"), [("rules", rule_expressions), ("dashboard", dashboard_expressions)])
def test_every_label_matched_on_a_metric_is_one_of_its_labels(where: str, expressions: object) -> None:
    assert callable(expressions)
    metrics = defined_metrics()
    wrong = {
        f"{key}: {metric}": sorted(used - labels_of(metrics[metric]))
        for key, expr in expressions().items()
        for metric, used in matched_labels(expr)
        if metric in metrics and used - labels_of(metrics[metric])
    }
    assert wrong == {}, where


def test_every_panel_reads_at_least_one_reddog_series() -> None:
    # The +/-3 band; and the service's series Prometheus names itself: scrape health, its alerts, process figures.
    own = ("vector(", 'job="reddog"', 'alertname=~"RedDog')
    expressions = dashboard_expressions().items()
    empty = [key for key, expr in expressions if not names_in(expr) and not any(o in expr for o in own)]
    assert empty == [], "a panel shows nothing of the service"


def test_metrics_md_lists_exactly_the_metrics_service_metrics_defines() -> None:
    listed = set(re.findall(r"`(reddog_[a-z0-9_]+)`", (DEPLOY / "METRICS.md").read_text(encoding="utf-8")))
    # As a reader sees them: a counter with its _total, a histogram by its base name.
    exported = {name for name in defined_metrics() if not name.endswith(("_created", "_bucket", "_sum", "_count"))}
    exported |= {name.removesuffix("_bucket") for name in defined_metrics() if name.endswith("_bucket")}
    assert listed == exported
