"""Where /metrics is served: its own port, on the loopback interface unless told otherwise."""

from __future__ import annotations

import pytest

from service.settings import SettingsError, from_env
from tests.support.database import ROOT


def test_the_metrics_port_defaults_to_8012_on_the_loopback_interface() -> None:
    settings = from_env({})
    assert (settings.metrics_host, settings.metrics_port) == ("127.0.0.1", 8012)


def test_only_development_without_rd_metrics_port_lets_a_taken_metrics_port_give_way() -> None:
    assert from_env({}).metrics_port_fallback
    assert from_env({"RD_METRICS_PORT": ""}).metrics_port_fallback  # empty is unset, as for every number
    assert not from_env({"RD_METRICS_PORT": "8012"}).metrics_port_fallback  # asked for: that port or nothing
    assert not from_env({"RD_ENV": "staging"}).metrics_port_fallback  # a scrape config names the port


def test_no_file_of_the_project_still_names_9100_node_exporters_port() -> None:
    roots = ["service", "deploy", "docs", "bench", "README.md", "Makefile"]
    files = [p for r in roots for p in ([ROOT / r] if (ROOT / r).is_file() else (ROOT / r).rglob("*")) if p.is_file()]
    named = [str(p.relative_to(ROOT)) for p in files if p.suffix != ".pyc" and b"9100" in p.read_bytes()]
    assert named == []


def test_the_metrics_host_and_port_come_from_their_variables() -> None:
    settings = from_env({"RD_METRICS_HOST": "0.0.0.0", "RD_METRICS_PORT": "9200"})  # noqa: S104 - a container's
    assert (settings.metrics_host, settings.metrics_port) == ("0.0.0.0", 9200)  # noqa: S104


@pytest.mark.parametrize("env", [{"RD_METRICS_PORT": "8000"}, {"RD_PORT": "8012"}, {"RD_METRICS_PORT": "none"}])
def test_the_metrics_port_must_be_a_port_of_its_own(env: dict[str, str]) -> None:
    with pytest.raises(SettingsError, match="RD_METRICS_PORT"):
        from_env(env)
