"""Settings come from the environment once, and a bad value stops start-up naming the variable."""

from __future__ import annotations

import pytest

from service.settings import SettingsError, from_env


def test_an_empty_environment_gives_the_development_defaults() -> None:
    settings = from_env({})
    assert settings.database_url is None
    assert (settings.host, settings.port) == ("127.0.0.1", 8000)
    assert settings.operators == {"demo": "demo-secret"}
    assert settings.allow_test_tables is False
    assert settings.idempotency_retention_days == 120


def test_operators_are_id_secret_pairs_separated_by_commas() -> None:
    settings = from_env({"RD_OPERATORS": "acme:s3cret, beta:other:with:colons"})
    assert settings.operators == {"acme": "s3cret", "beta": "other:with:colons"}


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("RD_PORT", "eighty"),
        ("RD_PORT", "70000"),
        ("RD_WORKERS", "0"),
        ("RD_ALLOW_TEST_TABLES", "maybe"),
        ("RD_LOG_LEVEL", "LOUD"),
        ("RD_OPERATORS", "no-secret"),
        ("RD_OPERATORS", "a:1,a:2"),
        ("RD_OPERATORS", ","),
        ("RD_POOL_MAX_SIZE", "1"),
    ],
)
def test_a_bad_setting_fails_naming_its_variable(name: str, value: str) -> None:
    env = {name: value}
    if name == "RD_POOL_MAX_SIZE":
        env["RD_POOL_MIN_SIZE"] = "4"  # a maximum below the minimum is the mistake here
    with pytest.raises(SettingsError, match=name):
        from_env(env)


def test_production_refuses_the_demo_operator_credentials() -> None:
    with pytest.raises(SettingsError, match="RD_OPERATORS"):
        from_env({"RD_ENV": "production"})
    assert from_env({"RD_ENV": "production", "RD_OPERATORS": "acme:long-random-secret"}).production


def test_production_refuses_test_tables() -> None:
    env = {"RD_ENV": "production", "RD_OPERATORS": "acme:x", "RD_ALLOW_TEST_TABLES": "true"}
    with pytest.raises(SettingsError, match="RD_ALLOW_TEST_TABLES"):
        from_env(env)


def test_auditors_are_their_own_id_secret_pairs_and_never_an_operator_id() -> None:
    assert from_env({"RD_AUDITORS": "lab:l4b-secret"}).auditors == {"lab": "l4b-secret"}
    assert from_env({}).auditors == {}
    with pytest.raises(SettingsError, match="RD_AUDITORS"):
        from_env({"RD_OPERATORS": "acme:a", "RD_AUDITORS": "acme:b"})
    with pytest.raises(SettingsError, match="RD_AUDITORS"):
        from_env({"RD_AUDITORS": "nocolon"})
