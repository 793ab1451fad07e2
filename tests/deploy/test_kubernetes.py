"""The kustomize base builds, its resources validate against the Kubernetes schemas, and they fit together."""

from __future__ import annotations

import functools
import shutil
import subprocess
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
import yaml
from kubernetes_validate import utils as kv

from tests.deploy.support import DEPLOY, check_production_start, load_yaml

BASE = DEPLOY / "k8s"
VERSIONS = ["1.29", "1.37"]  # the oldest Kubernetes we claim, and the newest kubernetes-validate bundles
CRDS = {
    ("monitoring.coreos.com/v1", "ServiceMonitor"),
    ("monitoring.coreos.com/v1", "PrometheusRule"),
    ("postgresql.cnpg.io/v1", "Cluster"),
}


@functools.cache
def built() -> tuple[dict[str, Any], ...]:
    """`kustomize build` of the base; without kustomize, the listed files as they are (no transformations)."""
    kubectl, kustomize = shutil.which("kubectl"), shutil.which("kustomize")
    if kubectl or kustomize:
        command = [kubectl, "kustomize", str(BASE)] if kubectl else [str(kustomize), "build", str(BASE)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)  # noqa: S603
        return tuple(d for d in yaml.safe_load_all(done.stdout) if d)
    listed = load_yaml(BASE / "kustomization.yaml")["resources"]
    return tuple(d for name in listed for d in yaml.safe_load_all((BASE / name).read_text(encoding="utf-8")) if d)


def one(kind: str, name: str | None = None) -> dict[str, Any]:
    found = [d for d in built() if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    assert len(found) == 1, (kind, name, len(found))
    return found[0]


def test_every_listed_resource_exists_and_the_base_builds() -> None:
    listed = load_yaml(BASE / "kustomization.yaml")["resources"]
    assert all((BASE / name).is_file() for name in listed)
    on_disk = {p.name for p in BASE.glob("*.yaml")} - {"kustomization.yaml"}
    assert set(listed) == on_disk, "a manifest that is not in the kustomization is never applied"
    kinds = sorted(d["kind"] for d in built())
    assert kinds == sorted(
        [
            "Cluster",
            "Deployment",
            "HorizontalPodAutoscaler",
            "Job",
            "NetworkPolicy",
            "PodDisruptionBudget",
            "PrometheusRule",
            "Service",
            "Service",
            "ServiceAccount",
            "ServiceMonitor",
        ]
    )


@pytest.mark.parametrize("version", VERSIONS)
def test_every_core_resource_validates_strictly_against_the_kubernetes_schema(version: str) -> None:
    core = [d for d in built() if (d["apiVersion"], d["kind"]) not in CRDS]
    assert len(core) == 8
    for doc in core:
        kv.validate(doc, version, strict=True)  # raises with the failing path


def test_the_strict_schema_refuses_an_unknown_field() -> None:
    deployment = one("Deployment")
    broken = {**deployment, "spec": {**deployment["spec"], "replica": 2}}
    with pytest.raises(kv.ValidationError):
        kv.validate(broken, VERSIONS[-1], strict=True)


@pytest.mark.parametrize(("api_version", "kind"), sorted(CRDS))
def test_custom_resources_are_schema_checked(api_version: str, kind: str) -> None:
    with pytest.raises(kv.SchemaNotFoundError):
        kv.validate(one(kind), VERSIONS[-1], strict=True)
    pytest.skip(
        f"{kind} ({api_version}) is a custom resource: kubernetes-validate bundles only the core schemas, and the "
        "registries reachable here ship no CRD schema for CloudNativePG and only compiled JavaScript validators for "
        "the Prometheus Operator (npm @kubernetes-models/prometheus-operator); tests below check the fields"
    )


def test_probes_use_the_health_routes_and_the_pods_run_unprivileged() -> None:
    pod = one("Deployment")["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert container["readinessProbe"]["httpGet"]["path"] == "/health/ready"
    assert container["livenessProbe"]["httpGet"]["path"] == "/health/live"
    assert pod["securityContext"]["runAsNonRoot"] is True
    assert pod["automountServiceAccountToken"] is False
    for spec in (pod, one("Job")["spec"]["template"]["spec"]):
        for c in [*spec.get("initContainers", []), *spec["containers"]]:
            assert c["securityContext"]["allowPrivilegeEscalation"] is False
            assert c["securityContext"]["readOnlyRootFilesystem"] is True
            assert c["image"] == "registry.example.com/reddog:0.1.0" or c["image"] == "reddog"


def test_the_service_uses_the_app_role_and_the_migration_the_owner() -> None:
    cluster = one("Cluster")
    name = cluster["metadata"]["name"]
    service_env = {e["name"]: e for e in one("Deployment")["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert service_env["DATABASE_URL"]["value"].startswith(
        f"postgresql://reddog_service:$(RD_DB_SERVICE_PASSWORD)@{name}-rw:"
    )
    (role,) = cluster["spec"]["managed"]["roles"]
    assert (role["name"], role["inRoles"]) == ("reddog_service", ["reddog_app"])
    password_secret = service_env["RD_DB_SERVICE_PASSWORD"]["valueFrom"]["secretKeyRef"]["name"]
    assert role["passwordSecret"]["name"] == password_secret
    job_env = {e["name"]: e for e in one("Job")["spec"]["template"]["spec"]["containers"][0]["env"]}
    # CloudNativePG writes the owner's connection URI into the secret <cluster>-app.
    assert job_env["MIGRATE_DATABASE_URL"]["valueFrom"]["secretKeyRef"] == {"name": f"{name}-app", "key": "uri"}
    assert cluster["spec"]["bootstrap"]["initdb"]["owner"] == "reddog_owner"
    assert cluster["spec"]["instances"] >= 3


def test_the_servicemonitor_scrapes_the_metrics_port_which_only_monitoring_may_reach() -> None:
    monitor = one("ServiceMonitor")
    metrics_service = one("Service", "reddog-metrics")
    selector = monitor["spec"]["selector"]["matchLabels"]
    assert selector.items() <= metrics_service["metadata"]["labels"].items()
    assert not selector.items() <= one("Service", "reddog")["metadata"]["labels"].items()
    (endpoint,) = monitor["spec"]["endpoints"]
    assert endpoint["port"] in {p["name"] for p in metrics_service["spec"]["ports"]}
    assert {"targetLabel": "job", "replacement": "reddog"} in endpoint["relabelings"]  # the rules' job="reddog"
    assert [p["name"] for p in one("Service", "reddog")["spec"]["ports"]] == ["http"]
    rules = one("NetworkPolicy")["spec"]["ingress"]
    metrics_rule = next(r for r in rules if {"port": "metrics"} in r["ports"])
    assert metrics_rule["from"] == [
        {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}
    ]


def test_the_hpa_pdb_and_services_select_the_deployment() -> None:
    deployment = one("Deployment")
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert one("HorizontalPodAutoscaler")["spec"]["scaleTargetRef"]["name"] == deployment["metadata"]["name"]
    assert one("HorizontalPodAutoscaler")["spec"]["minReplicas"] >= 2
    for selector in (
        one("PodDisruptionBudget")["spec"]["selector"]["matchLabels"],
        one("Service", "reddog")["spec"]["selector"],
        one("Service", "reddog-metrics")["spec"]["selector"],
    ):
        assert selector.items() <= labels.items()


def test_the_service_reads_its_signing_key_from_a_file_its_user_alone_may_read() -> None:
    pod = one("Deployment")["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    key = PurePosixPath(next(e["value"] for e in container["env"] if e["name"] == "RD_AUDIT_SIGNING_KEY"))
    volumes = {v["name"]: v for v in pod["volumes"]}
    (mount,) = [m for m in container["volumeMounts"] if m["mountPath"] == str(key.parent)]
    # Not the secret volume itself: under fsGroup its files are group-readable whatever defaultMode says.
    assert volumes[mount["name"]]["emptyDir"]["medium"] == "Memory"
    (init,) = pod["initContainers"]
    program, flag, mode, source, target = init["command"]
    assert (program, flag) == ("install", "-m")
    assert int(mode, 8) & 0o077 == 0, "production refuses a key file its group or others may read"
    assert PurePosixPath(source).name == key.name
    assert target.rstrip("/") == str(key.parent)
    init_mounts = {m["mountPath"]: m["name"] for m in init["volumeMounts"]}
    assert init_mounts[str(key.parent)] == mount["name"]
    assert "secret" in volumes[init_mounts[str(PurePosixPath(source).parent)]]
    assert pod["securityContext"]["runAsUser"] == 10001  # install runs as the service's user: the file is its own


def test_the_service_environment_passes_every_production_start_up_check(tmp_path: Path) -> None:
    (container,) = one("Deployment")["spec"]["template"]["spec"]["containers"]
    environment = {e["name"]: e["value"] for e in container["env"] if "value" in e}  # secrets are filled in
    assert environment["RD_ENV"] == "production"
    check_production_start(environment, tmp_path)
