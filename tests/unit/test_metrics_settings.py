"""Where /metrics is served: its own port, on the loopback interface unless told otherwise."""

from __future__ import annotations

import pytest

from service.settings import SettingsError, from_env


def test_the_metrics_port_defaults_to_9100_on_the_loopback_interface() -> None:
    settings = from_env({})
    assert (settings.metrics_host, settings.metrics_port) == ("127.0.0.1", 9100)


def test_the_metrics_host_and_port_come_from_their_variables() -> None:
    settings = from_env({"RD_METRICS_HOST": "0.0.0.0", "RD_METRICS_PORT": "9200"})  # noqa: S104 - a container's
    assert (settings.metrics_host, settings.metrics_port) == ("0.0.0.0", 9200)  # noqa: S104


@pytest.mark.parametrize("env", [{"RD_METRICS_PORT": "8000"}, {"RD_PORT": "9100"}, {"RD_METRICS_PORT": "none"}])
def test_the_metrics_port_must_be_a_port_of_its_own(env: dict[str, str]) -> None:
    with pytest.raises(SettingsError, match="RD_METRICS_PORT"):
        from_env(env)
