"""compose.yaml is a valid Compose file once its variables are filled, and every file it mounts exists."""

from __future__ import annotations

import ipaddress
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from compose_spec import PyCompose

from tests.deploy.support import DEPLOY, check_production_start, load_yaml
from tests.support.shipped import COMPOSE_VARIABLE, example_env, interpolated

COMPOSE = DEPLOY / "compose.yaml"
# ${NAME}, ${NAME:-default}, ${NAME-default}, ${NAME:?error}, ${NAME?error}


def services() -> dict[str, Any]:
    result: dict[str, Any] = yaml.safe_load(interpolated(COMPOSE.read_text(encoding="utf-8"), example_env()))[
        "services"
    ]
    return result


def test_compose_yaml_validates_against_the_compose_specification() -> None:
    spec = PyCompose.from_yaml(interpolated(COMPOSE.read_text(encoding="utf-8"), example_env())).to_spec()
    assert sorted(spec.services or {}) == ["app", "grafana", "migrate", "postgres", "prometheus", "proxy"]


def test_the_compose_parser_refuses_a_misspelt_key() -> None:
    text = interpolated(COMPOSE.read_text(encoding="utf-8"), example_env()).replace("depends_on:", "depend_on:", 1)
    with pytest.raises(ValueError, match="depend_on"):
        PyCompose.from_yaml(text)


def test_every_variable_is_in_the_example_env_and_secrets_have_no_default() -> None:
    text = COMPOSE.read_text(encoding="utf-8")
    used = {m.group(1) for m in COMPOSE_VARIABLE.finditer(text)}
    assert used <= set(example_env())
    for name, kind, _ in COMPOSE_VARIABLE.findall(text):
        if "PASSWORD" in name or name == "RD_OPERATORS":
            assert kind in ("", "?"), f"{name} must not fall back to a default"
    with pytest.raises(KeyError, match=re.escape("is required: set RD_DB_SUPERUSER_PASSWORD in deploy/.env")):
        interpolated(text, {})


def test_every_mounted_file_and_the_build_exist() -> None:
    for name, service in services().items():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("."):
                assert (DEPLOY / source).exists(), f"{name} mounts {source}"
        if build := service.get("build"):
            assert (DEPLOY / build["context"] / build["dockerfile"]).is_file()


def test_only_the_proxy_is_published_on_every_interface_and_the_metrics_port_never() -> None:
    published = {name: s.get("ports", []) for name, s in services().items() if s.get("ports")}
    assert published["proxy"] == ["8080:8080"]
    assert all(
        str(port).startswith("127.0.0.1:") for name, ports in published.items() if name != "proxy" for port in ports
    )
    assert "ports" not in services()["app"]
    assert "ports" not in services()["postgres"]
    assert services()["app"]["environment"]["RD_METRICS_PORT"] == "8012"


def test_the_service_uses_the_app_role_and_the_migration_job_the_owner() -> None:
    s = services()
    assert s["app"]["environment"]["DATABASE_URL"].startswith("postgresql://reddog_service:")
    assert s["migrate"]["environment"]["MIGRATE_DATABASE_URL"].startswith("postgresql://reddog_owner:")
    assert s["migrate"]["command"] == ["migrate"]
    assert s["app"]["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert s["app"]["deploy"]["replicas"] == 2
    init = (DEPLOY / "postgres" / "init-roles.sh").read_text(encoding="utf-8")
    assert s["migrate"]["environment"]["RD_APP_DB_ROLE"] == "reddog_app_role"
    assert "CREATE ROLE reddog_app_role NOLOGIN;" in init
    assert "CREATE ROLE reddog_service LOGIN PASSWORD :'app_password' IN ROLE reddog_app_role;" in init


def test_prometheus_scrapes_the_metrics_port_of_every_replica_as_job_reddog() -> None:
    config = load_yaml(DEPLOY / "prometheus" / "prometheus.yml")
    (job,) = [j for j in config["scrape_configs"] if j["job_name"] == "reddog"]
    assert job["dns_sd_configs"] == [{"names": ["app"], "type": "A", "port": 8012, "refresh_interval": "15s"}]


def test_the_signing_key_is_a_file_the_images_user_alone_may_read() -> None:
    app = services()["app"]
    (secret,) = app["secrets"]
    assert secret["mode"] & 0o077 == 0, "production refuses a key file its group or others may read"
    assert (secret["uid"], secret["gid"]) == ("10001", "10001")
    assert "USER 10001:10001" in (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    assert app["environment"]["RD_AUDIT_SIGNING_KEY"] == f"/run/secrets/{secret['target']}"


def test_the_app_environment_passes_every_production_start_up_check(tmp_path: Path) -> None:
    environment = services()["app"]["environment"]
    assert environment["RD_ENV"] == "production"
    check_production_start(environment, tmp_path)


def test_the_replicas_trust_forwarded_headers_from_the_proxy_alone_whose_address_no_other_container_gets() -> None:
    compose = yaml.safe_load(interpolated(COMPOSE.read_text(encoding="utf-8"), example_env()))
    (pool,) = compose["networks"]["default"]["ipam"]["config"]
    proxy = ipaddress.ip_address(compose["services"]["proxy"]["networks"]["default"]["ipv4_address"])
    trusted = compose["services"]["app"]["environment"]["RD_TRUSTED_PROXIES"]
    assert [ipaddress.ip_network(n) for n in trusted.split(",")] == [ipaddress.ip_network(proxy)]
    assert proxy in ipaddress.ip_network(pool["subnet"])
    assert proxy not in ipaddress.ip_network(pool["ip_range"])
    nginx = (DEPLOY / "proxy" / "nginx.conf").read_text(encoding="utf-8")
    assert "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;" in nginx  # appends the peer it saw


def test_the_replicas_share_a_named_checkpoint_store_volume_apart_from_the_databases() -> None:
    compose = yaml.safe_load(interpolated(COMPOSE.read_text(encoding="utf-8"), example_env()))
    app = compose["services"]["app"]
    store = app["environment"]["RD_CHECKPOINT_STORE"]
    [mount] = [v for v in app.get("volumes", []) if v.split(":")[1] == store]
    name = mount.split(":")[0]
    assert name in compose["volumes"]  # a named volume: it outlives the containers, and both replicas mount it
    assert all(name not in v for v in compose["services"]["postgres"].get("volumes", []))
    # A new named volume starts as the image's directory: there, the image's user owns it.
    assert f"install -d -o reddog -g reddog -m 0750 {store}" in (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
