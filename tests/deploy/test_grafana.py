"""The dashboard is valid JSON Grafana can provision, with every panel on the provisioned datasource, one unit a
panel, variables for paytable, decks, currency and mode, and the live panels reading live rounds only."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from service.runtime.metrics_server import WorkerProcesses
from tests.deploy.support import DASHBOARD, DEPLOY, defined_metrics, labels_of, load_yaml, names_in, rule_expressions

PROVISIONING = DEPLOY / "grafana" / "provisioning"


def test_the_dashboard_parses_with_unique_panel_ids_and_a_stable_uid() -> None:
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    ids = [p["id"] for p in dashboard["panels"]]
    assert len(ids) == len(set(ids)) >= 10
    assert dashboard["uid"] == "reddog-ops"
    assert all({"h", "w", "x", "y"} <= set(p["gridPos"]) for p in dashboard["panels"])


def test_every_panel_queries_the_datasource_variable_which_defaults_to_the_provisioned_one() -> None:
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    (variable,) = [v for v in dashboard["templating"]["list"] if v["type"] == "datasource"]
    (datasource,) = load_yaml(PROVISIONING / "datasources" / "prometheus.yaml")["datasources"]
    assert variable["current"]["value"] == datasource["uid"]
    assert datasource["url"] == "http://prometheus:9090"
    for panel in dashboard["panels"]:
        assert panel["datasource"]["uid"] == "${datasource}"
        assert panel["targets"]
        assert all(t["expr"] and t["datasource"]["uid"] == "${datasource}" for t in panel["targets"])


def test_the_issue_s_panels_are_all_there() -> None:
    titles = " | ".join(p["title"] for p in json.loads(DASHBOARD.read_text(encoding="utf-8"))["panels"]).lower()
    for wanted in [
        "rtp",
        "z-score",
        "outcome mix",
        "rounds per second",
        "wagered and paid",
        "latency p50 / p99",
        "errors",
        "open raise windows",
        "sweeper lag",
        "pool",
    ]:
        assert wanted in titles, wanted


def test_the_z_panel_draws_the_plus_minus_three_band() -> None:
    panel = next(p for p in json.loads(DASHBOARD.read_text(encoding="utf-8"))["panels"] if "z-score" in p["title"])
    steps = panel["fieldConfig"]["defaults"]["thresholds"]["steps"]
    assert [s["value"] for s in steps] == [None, -3, 3]
    assert {t["expr"] for t in panel["targets"]} >= {"vector(3)", "vector(-3)"}


def test_the_dashboard_provider_reads_the_folder_compose_mounts() -> None:
    (provider,) = load_yaml(PROVISIONING / "dashboards" / "reddog.yaml")["providers"]
    compose = load_yaml(DEPLOY / "compose.yaml")["services"]["grafana"]["volumes"]
    assert f"./grafana/dashboards:{provider['options']['path']}:ro" in compose


def panels() -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = json.loads(DASHBOARD.read_text(encoding="utf-8"))["panels"]
    return found


def variables() -> dict[str, dict[str, Any]]:
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    return {v["name"]: v for v in dashboard["templating"]["list"]}


def test_the_on_call_panels_are_there_too() -> None:
    titles = " | ".join(p["title"] for p in panels()).lower()
    for wanted in [
        "firing alerts",
        "database reachable",
        "errors by code",
        "rollbacks",
        "replays",
        "authentication failures",
        "worker cpu",
        "worker resident memory",
        "uptime",
        "releases serving",
    ]:
        assert wanted in titles, wanted


def test_every_panel_shows_one_unit_and_no_series_of_it_another() -> None:
    for panel in panels():
        assert panel["fieldConfig"]["defaults"].get("unit"), panel["title"]
        overridden = [p for o in panel["fieldConfig"]["overrides"] for p in o["properties"] if p["id"] == "unit"]
        assert overridden == [], panel["title"]


def test_the_firing_alerts_panel_lists_the_service_s_alerts_firing_now() -> None:
    (panel,) = [p for p in panels() if p["title"] == "Firing alerts"]
    (target,) = panel["targets"]
    assert 'ALERTS{alertstate="firing",alertname=~"RedDog.*"}' in target["expr"]
    assert target["instant"] is True
    assert panel["type"] == "table"


def test_there_are_variables_for_paytable_decks_currency_and_mode_which_is_live_unless_chosen() -> None:
    found = variables()
    for name in ("paytable", "decks", "currency"):
        assert found[name]["type"] == "query"
        assert found[name]["query"].startswith("label_values(reddog_wagered_minor_units_total")
        assert found[name]["query"].endswith(f", {name})")
        assert found[name]["datasource"]["uid"] == "${datasource}"
    mode = found["mode"]
    assert (mode["current"]["value"], mode["includeAll"], mode["multi"]) == ("live", False, False)
    assert [o["value"] for o in mode["options"]] == ["live", "test"]


def carries_mode() -> set[str]:
    """The series that have a `mode` label: the metrics defined with one, and each recording rule whose every
    aggregation keeps it (or that has none, and reads such a series)."""
    metrics = defined_metrics()
    carrying = {name for name, metric in metrics.items() if "mode" in labels_of(metric)}
    rules = rule_expressions()
    for name, expr in rules.items():  # in file order: a rule reads only rules recorded above it
        kept = re.findall(r"\bby \(([^)]*)\)", expr)
        if (kept and all("mode" in by for by in kept)) or (not kept and names_in(expr) & carrying):
            carrying.add(name)
    return carrying


def test_the_integrity_panels_read_live_rounds_only_and_the_others_the_mode_chosen() -> None:
    carrying = carries_mode()
    assert {"reddog_wagered_minor_units_total", "reddog:rtp_observed:ratio1h", "reddog:integrity_z:1h"} <= carrying
    assert "reddog:outcome_chi_square:1h" not in carrying  # live rounds only already, by its rule
    for panel in panels():
        wanted = 'mode="live"' if "(live" in panel["title"].lower() else 'mode="$mode"'
        for target in panel["targets"]:
            for name, selector in re.findall(r"(reddog[\w:]+)(\{[^}]*\})?", target["expr"]):
                if name in carrying:
                    assert wanted in selector, f"{panel['title']}: {name}{selector}"
                    assert 'paytable=~"$paytable"' in selector, f"{panel['title']}: {name}{selector}"


def test_the_rtp_panel_draws_the_band_of_expected_plus_minus_three_standard_deviations() -> None:
    (panel,) = [p for p in panels() if p["title"].startswith("RTP")]
    expressions = [t["expr"] for t in panel["targets"]]
    for sign in "+-":
        (band,) = [e for e in expressions if f" {sign} 3 * reddog:rtp_stddev:ratio1h" in e]
        assert band.startswith("reddog:rtp_expected:ratio1h{")
    assert panel["fieldConfig"]["defaults"]["unit"] == "percentunit"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="the process figures are read from Linux's /proc")
def test_the_process_figures_the_dashboard_reads_are_those_the_metrics_port_shows_by_pid(tmp_path: Path) -> None:
    shown = {s.name: set(s.labels) for m in WorkerProcesses(str(tmp_path)).collect() for s in m.samples}
    read = {name for p in panels() for t in p["targets"] for name in re.findall(r"\b(process_\w+)", t["expr"])}
    assert read
    assert read <= set(shown)
    assert all(shown[name] == {"pid", "role"} for name in read)
