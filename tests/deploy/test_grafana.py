"""The dashboard is valid JSON Grafana can provision, with every panel on the provisioned datasource."""

from __future__ import annotations

import json

from tests.deploy.support import DASHBOARD, DEPLOY, load_yaml

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
