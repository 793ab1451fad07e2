"""The rules pass promtool's check and unit tests; the compose config loads them; the k8s copy is the same file."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import yaml

from paytables.red_dog.analysis.chi_square import chi_square_p_value
from tests.deploy import prometheusrule
from tests.deploy.support import DEPLOY, RULES, load_yaml, rule_expressions, tool


def promtool(*args: str, cwd: Path = DEPLOY) -> subprocess.CompletedProcess[str]:
    run = [tool("promtool"), *args]
    return subprocess.run(run, capture_output=True, text=True, cwd=cwd, timeout=120, check=False)  # noqa: S603


def test_promtool_checks_the_rules() -> None:
    done = promtool("check", "rules", str(RULES))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS" in done.stdout


def test_promtool_unit_tests_of_every_alert_pass() -> None:
    tests = sorted((DEPLOY / "prometheus" / "tests").glob("*.test.yaml"))
    assert tests
    done = promtool("test", "rules", *map(str, tests), cwd=tests[0].parent)
    assert done.returncode == 0, done.stdout + done.stderr


def test_every_alert_has_a_unit_test_that_expects_it_to_fire() -> None:
    alerts = {name for name in rule_expressions() if name[0].isupper()}
    fired = set()
    for path in (DEPLOY / "prometheus" / "tests").glob("*.test.yaml"):
        for case in load_yaml(path)["tests"]:
            fired |= {t["alertname"] for t in case.get("alert_rule_test", []) if t.get("exp_alerts")}
    assert alerts == fired


def test_the_compose_prometheus_config_loads_the_rules_it_mounts(tmp_path: Path) -> None:
    config = load_yaml(DEPLOY / "prometheus" / "prometheus.yml")
    # compose mounts ./prometheus/rules at /etc/prometheus/rules: check the config as the container sees it.
    config["rule_files"] = [
        str(DEPLOY / "prometheus" / "rules" / Path(p).name) for p in config["rule_files"] if p.startswith("/etc/")
    ]
    copy = tmp_path / "prometheus.yml"
    copy.write_text(yaml.safe_dump(config), encoding="utf-8")
    done = promtool("check", "config", str(copy))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "40 rules found" in done.stdout


def test_the_kubernetes_prometheusrule_is_the_rules_file() -> None:
    assert (DEPLOY / "k8s" / "prometheusrule.yaml").read_text(encoding="utf-8") == prometheusrule.render()
    assert load_yaml(DEPLOY / "k8s" / "prometheusrule.yaml")["spec"] == load_yaml(RULES)


def test_the_outcome_alert_threshold_is_the_chi_square_point_of_p_one_in_a_million() -> None:
    threshold = float(re.findall(r"outcome_chi_square:1h > ([0-9.]+)", rule_expressions()["RedDogOutcomeMixOff"])[0])
    assert 0.9e-6 < chi_square_p_value(threshold, 13) <= 1e-6  # 14 outcomes, 13 degrees of freedom
