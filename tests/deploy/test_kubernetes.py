"""The kustomize base builds, its resources validate against the Kubernetes schemas, and they fit together."""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml
from kubernetes_validate import utils as kv

from tests.deploy.support import (
    DEPLOY,
    K8S,
    ROOT,
    built_kustomization,
    built_one,
    check_production_start,
    load_yaml,
    pod_containers,
)

BASE = K8S
VERSIONS = ["1.29", "1.37"]  # the oldest Kubernetes we claim, and the newest kubernetes-validate bundles
CRDS = {
    ("monitoring.coreos.com/v1", "ServiceMonitor"),
    ("monitoring.coreos.com/v1", "PrometheusRule"),
    ("postgresql.cnpg.io/v1", "Cluster"),
    ("postgresql.cnpg.io/v1", "ScheduledBackup"),
    ("barmancloud.cnpg.io/v1", "ObjectStore"),
}
BARMAN_CLOUD = "barman-cloud.cloudnative-pg.io"  # the plugin's name, as CloudNativePG's Cluster and Backup name it


built, one = built_kustomization, built_one


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
            "Ingress",
            "NetworkPolicy",
            "ObjectStore",
            "NetworkPolicy",
            "NetworkPolicy",
            "PersistentVolumeClaim",  # the fork guard's checkpoint store
            "PodDisruptionBudget",
            "PrometheusRule",
            "ScheduledBackup",
            "Service",
            "Service",
            "ServiceAccount",
            "ServiceMonitor",
        ]
    )


@pytest.mark.parametrize("version", VERSIONS)
def test_every_core_resource_validates_strictly_against_the_kubernetes_schema(version: str) -> None:
    core = [d for d in built() if (d["apiVersion"], d["kind"]) not in CRDS]
    assert len(core) == 11
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
    for c in pod_containers().values():
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
    app_role, role = cluster["spec"]["managed"]["roles"]
    assert (app_role["name"], app_role["login"]) == ("reddog_app_role", False)  # the default for the database reddog
    assert cluster["spec"]["bootstrap"]["initdb"]["database"] == "reddog"
    assert (role["name"], role["inRoles"]) == ("reddog_service", ["reddog_app_role"])
    password_secret = service_env["RD_DB_SERVICE_PASSWORD"]["valueFrom"]["secretKeyRef"]["name"]
    assert role["passwordSecret"]["name"] == password_secret
    migrate_env = {e["name"]: e for e in pod_containers()["migrate"]["env"]}
    # CloudNativePG writes the owner's connection URI into the secret <cluster>-app.
    assert migrate_env["MIGRATE_DATABASE_URL"]["valueFrom"]["secretKeyRef"] == {"name": f"{name}-app", "key": "uri"}
    assert "MIGRATE_DATABASE_URL" not in service_env, "the service container never sees the owner's login"
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
    rules = one("NetworkPolicy", "reddog")["spec"]["ingress"]
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
    init = pod_containers()["signing-key"]
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


def test_each_pod_migrates_first_with_the_services_image_and_settings_and_the_owners_url_alone() -> None:
    containers = pod_containers()
    assert list(containers) == ["signing-key", "migrate", "reddog"]  # init containers run in order, all before serve
    migrate, service = containers["migrate"], containers["reddog"]
    assert migrate["image"] == service["image"] == "registry.example.com/reddog:0.1.0"
    program, flag, seconds = migrate["args"]
    assert (program, flag) == ("migrate", "--wait")  # waits for a database still bootstrapping: no crash loop
    assert 60 <= float(seconds) <= 3600
    # The service's settings entry for entry, so a setting both read cannot differ; none of the credentials only
    # serving uses (a secret's value, the login built from one, the signing key file, which settings read).
    credentials = {"DATABASE_URL", "RD_AUDIT_SIGNING_KEY"}
    settings = [e for e in service["env"] if "valueFrom" not in e and e["name"] not in credentials]
    assert len(settings) >= 6
    (owner,) = [e for e in migrate["env"] if e not in settings]
    assert migrate["env"] == [*settings, owner]
    assert owner["name"] == "MIGRATE_DATABASE_URL"
    assert "valueFrom" in owner
    mounted = {m["name"] for m in migrate["volumeMounts"]}
    assert mounted == {"tmp"}, "the migrations need no signing key"


def key(resource: dict[str, Any]) -> tuple[str, str]:
    return resource["kind"], resource["metadata"]["name"]


def test_no_job_is_applied_and_the_next_release_changes_only_the_pod_template(tmp_path: Path) -> None:
    assert not [d for d in built() if d["kind"] in {"Job", "CronJob", "Pod"}], "a Job's template is immutable"
    if not (shutil.which("kubectl") or shutil.which("kustomize")):
        pytest.skip("kubectl or kustomize is needed to build an overlay")
    # The next release, as an overlay sets it: another image tag. `kubectl apply -k` replaces what differs, so
    # nothing that differs may be a field the API server refuses to change.
    base = Path(os.path.relpath(BASE, tmp_path))
    (tmp_path / "kustomization.yaml").write_text(
        yaml.safe_dump(
            {"resources": [str(base)], "images": [{"name": "registry.example.com/reddog", "newTag": "0.2.0"}]}
        ),
        encoding="utf-8",
    )
    this, following = built(), built_kustomization(tmp_path)
    assert sorted(map(key, this)) == sorted(map(key, following))
    changed = [(a, b) for a, b in zip(sorted(this, key=key), sorted(following, key=key), strict=True) if a != b]
    assert [key(a) for a, _ in changed] == [("Deployment", "reddog")]
    ((old, new),) = changed
    assert {**old["spec"], "template": None} == {**new["spec"], "template": None}  # the selector is immutable
    images = {c["image"] for c in pod_containers(new).values()}
    assert images == {"registry.example.com/reddog:0.2.0"}, "every container, the migrating one too, moves on"


def test_the_ingress_serves_the_public_url_host_over_tls_to_the_api_port_only() -> None:
    ingress = one("Ingress")["spec"]
    env = {e["name"]: e.get("value") for e in pod_containers()["reddog"]["env"]}
    public = urlsplit(env["RD_PUBLIC_URL"])
    assert public.scheme == "https"
    (rule,) = ingress["rules"]
    (tls,) = ingress["tls"]
    assert rule["host"] == public.hostname
    assert tls["hosts"] == [public.hostname]
    assert tls["secretName"]
    # cert-manager's ingress-shim issues the certificate into that secret.
    assert one("Ingress")["metadata"]["annotations"]["cert-manager.io/cluster-issuer"]
    (path,) = rule["http"]["paths"]
    assert (path["path"], path["pathType"]) == ("/", "Prefix")
    backend = path["backend"]["service"]
    assert backend == {"name": "reddog", "port": {"name": "http"}}
    assert [p["name"] for p in one("Service", "reddog")["spec"]["ports"]] == ["http"]


def database_port_and_host() -> tuple[int, str]:
    env = {e["name"]: e.get("value") for e in pod_containers()["reddog"]["env"]}
    url = urlsplit(env["DATABASE_URL"].replace("$(RD_DB_SERVICE_PASSWORD)", "password"))
    assert url.port is not None
    assert url.hostname is not None
    return url.port, url.hostname


def test_the_database_pods_admit_only_the_service_pods_their_own_instances_and_the_operator() -> None:
    cluster = one("Cluster")["metadata"]["name"]
    policy = one("NetworkPolicy", "reddog-db")["spec"]
    # CloudNativePG labels every pod it runs for a Cluster (instances, initdb and join jobs) cnpg.io/cluster=<name>.
    instances = {"cnpg.io/cluster": cluster}
    assert policy["podSelector"] == {"matchLabels": instances}
    assert policy["policyTypes"] == ["Ingress"]
    app_labels = one("Deployment")["spec"]["template"]["metadata"]["labels"]
    port, _ = database_port_and_host()
    by_source = {}
    for rule in policy["ingress"]:
        (source,) = rule["from"]  # every rule names who; none is open to all
        assert "ipBlock" not in source
        by_source[yaml.safe_dump(source)] = sorted((p["port"], p["protocol"]) for p in rule.get("ports", []))
    service_pods = {
        "podSelector": {
            "matchLabels": {k: app_labels[k] for k in ("app.kubernetes.io/name", "app.kubernetes.io/component")}
        }
    }
    operator = {
        "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "cnpg-system"}},
        "podSelector": {"matchLabels": {"app.kubernetes.io/name": "cloudnative-pg"}},
    }
    assert by_source == {
        yaml.safe_dump(service_pods): [(port, "TCP")],
        yaml.safe_dump({"podSelector": {"matchLabels": instances}}): [],  # replication: any port among themselves
        yaml.safe_dump(operator): [(5432, "TCP"), (8000, "TCP")],  # CloudNativePG's networking documentation
    }


def test_the_service_pods_may_reach_dns_and_the_database_and_nothing_else() -> None:
    cluster = one("Cluster")["metadata"]["name"]
    policy = one("NetworkPolicy", "reddog-egress")["spec"]
    app_labels = one("Deployment")["spec"]["template"]["metadata"]["labels"]
    assert policy["podSelector"]["matchLabels"].items() <= app_labels.items()
    assert policy["policyTypes"] == ["Egress"]
    port, host = database_port_and_host()
    assert host == f"{cluster}-rw"  # a Service in front of the Cluster's pods, which the rule below selects
    dns, database = policy["egress"]
    assert dns["to"] == [
        {
            "namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "kube-system"}},
            "podSelector": {"matchLabels": {"k8s-app": "kube-dns"}},
        }
    ]
    assert sorted((p["port"], p["protocol"]) for p in dns["ports"]) == [(53, "TCP"), (53, "UDP")]
    assert database == {
        "to": [{"podSelector": {"matchLabels": {"cnpg.io/cluster": cluster}}}],
        "ports": [{"port": port, "protocol": "TCP"}],
    }


def test_the_readmes_overlay_sets_one_host_for_the_ingress_its_certificate_and_rd_public_url(tmp_path: Path) -> None:
    if not (shutil.which("kubectl") or shutil.which("kustomize")):
        pytest.skip("kubectl or kustomize is needed to build an overlay")
    readme = (DEPLOY / "README.md").read_text(encoding="utf-8")
    (overlay,) = re.findall(r"```yaml\n(# overlays/production/kustomization\.yaml\n.*?)```", readme, re.DOTALL)
    (tmp_path / "deploy").symlink_to(DEPLOY)  # the overlay's ../../deploy/k8s, from overlays/production
    (tmp_path / "overlays" / "production").mkdir(parents=True)
    (tmp_path / "overlays" / "production" / "kustomization.yaml").write_text(overlay, encoding="utf-8")
    resources = built_kustomization(tmp_path / "overlays" / "production")
    ingress = next(d for d in resources if d["kind"] == "Ingress")
    deployment = next(d for d in resources if d["kind"] == "Deployment")
    hosts = {rule["host"] for rule in ingress["spec"]["rules"]} | set(ingress["spec"]["tls"][0]["hosts"])
    for container in pod_containers(deployment).values():
        assert container["image"] == "registry.mycasino.example/reddog:0.2.0"
        env = {e["name"]: e.get("value") for e in container.get("env", [])}
        if "RD_PUBLIC_URL" in env:
            assert {urlsplit(env["RD_PUBLIC_URL"]).hostname} == hosts
    assert hosts == {"rd.mycasino.example"}
    assert ingress["metadata"]["annotations"]["cert-manager.io/cluster-issuer"] == "letsencrypt-prod"
    assert {d["metadata"].get("namespace") for d in resources} == {"reddog"}
    assert "rd.example.com" not in yaml.safe_dump_all(resources), "a placeholder left in place"


def test_the_cluster_archives_its_wal_to_an_object_store_backed_up_nightly_and_kept_30_days() -> None:
    cluster, store, schedule = one("Cluster"), one("ObjectStore"), one("ScheduledBackup")
    (plugin,) = cluster["spec"]["plugins"]
    assert (plugin["name"], plugin["isWALArchiver"]) == (BARMAN_CLOUD, True)  # every WAL segment, as it completes
    assert plugin["parameters"]["barmanObjectName"] == store["metadata"]["name"]
    assert store["spec"]["retentionPolicy"] == "30d"
    assert store["spec"]["configuration"]["destinationPath"].startswith("s3://")
    assert "serverName" not in store["spec"]["configuration"], "the plugin's docs: set serverName on the Cluster side"
    spec = schedule["spec"]
    assert spec["cluster"]["name"] == cluster["metadata"]["name"]
    assert (spec["method"], spec["pluginConfiguration"]["name"]) == ("plugin", BARMAN_CLOUD)
    seconds, minutes, hours, *every_day = spec["schedule"].split()  # CloudNativePG's cron has seconds first
    assert (every_day, int(hours) < 24, int(minutes) < 60, int(seconds) < 60) == (["*", "*", "*"], True, True, True)
    assert spec["immediate"] is True, "a first base backup at once: no point in time is restorable without one"


def restore_cluster() -> dict[str, Any]:
    """The Cluster the runbook's point-in-time restore applies."""
    runbook = (ROOT / "docs" / "runbooks.md").read_text(encoding="utf-8").split("## Restore to a point in time")[1]
    (block,) = re.findall(r"```yaml\n(.*?)```", runbook.split("\n## ")[0], flags=re.DOTALL)
    document: dict[str, Any] = yaml.safe_load(block)
    return document


def test_the_runbooks_restore_bootstraps_a_new_cluster_from_the_same_store_to_a_point_in_time() -> None:
    cluster, store, restored = one("Cluster"), one("ObjectStore"), restore_cluster()
    assert restored["kind"] == "Cluster"
    assert restored["metadata"]["name"] != cluster["metadata"]["name"], "CloudNativePG never restores in place"
    recovery = restored["spec"]["bootstrap"]["recovery"]
    (source,) = [c for c in restored["spec"]["externalClusters"] if c["name"] == recovery["source"]]
    assert source["plugin"]["name"] == BARMAN_CLOUD
    assert source["plugin"]["parameters"] == {
        "barmanObjectName": store["metadata"]["name"],
        "serverName": cluster["metadata"]["name"],  # the backups are filed under the backed-up Cluster's name
    }
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?\+00", recovery["recoveryTarget"]["targetTime"])
    for kept in ("instances", "storage", "postgresql"):  # as highly available as the one it replaces
        assert restored["spec"][kept] == cluster["spec"][kept]


def test_the_service_connects_only_to_a_writable_primary() -> None:
    env = {e["name"]: e for e in one("Deployment")["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert urlsplit(env["DATABASE_URL"]["value"]).query == "target_session_attrs=read-write"


def test_every_replica_mounts_the_one_shared_checkpoint_store_the_fork_guard_reads() -> None:
    docs = built()
    [claim] = [d for d in docs if d["kind"] == "PersistentVolumeClaim"]
    assert claim["spec"]["accessModes"] == ["ReadWriteMany"]  # all replicas at once, not one node's disk
    [deployment] = [d for d in docs if d["kind"] == "Deployment"]
    pod = deployment["spec"]["template"]["spec"]
    [container] = [c for c in pod["containers"] if c["name"] == "reddog"]
    store = {e["name"]: e.get("value") for e in container["env"]}["RD_CHECKPOINT_STORE"]
    [mount] = [m for m in container["volumeMounts"] if m["mountPath"] == store]
    [volume] = [v for v in pod["volumes"] if v["name"] == mount["name"]]
    assert volume["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"]
    assert not mount.get("readOnly")
