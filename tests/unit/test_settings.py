"""Settings come from the environment once, and a bad value stops start-up naming the variable."""

from __future__ import annotations

import msgspec
import pytest

from audit.signed_note import generate_key
from service.settings import SettingsError, check_can_serve, from_env

SIGNER = generate_key("reddog.test/audit", bytes(range(32))).signer_key


def serves(env: dict[str, str]) -> None:
    """What `reddog serve` checks of these settings, given the checkpoint key and public URL production also needs."""
    settings = from_env(env)
    check_can_serve(msgspec.structs.replace(settings, audit_signing_key=SIGNER, public_url="https://rd.example.com"))


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


STRONG = "k" * 32  # 32 bytes: the least production takes


def test_production_serves_without_the_demo_operator_credentials_only() -> None:
    with pytest.raises(SettingsError, match="RD_OPERATORS"):
        serves({"RD_ENV": "production"})
    serves({"RD_ENV": "production", "RD_OPERATORS": f"acme:{STRONG}"})


def test_a_production_migration_needs_no_operator_credentials() -> None:
    settings = from_env({"RD_ENV": "production", "MIGRATE_DATABASE_URL": "postgresql://owner@db/reddog"})
    assert (settings.production, settings.migrate_database_url) == (True, "postgresql://owner@db/reddog")


@pytest.mark.parametrize("spelling", ["production", "Production", "PRODUCTION", " production "])
def test_rd_env_is_read_whatever_its_case_so_production_is_never_taken_for_development(spelling: str) -> None:
    with pytest.raises(SettingsError, match="RD_OPERATORS"):
        serves({"RD_ENV": spelling})
    settings = from_env({"RD_ENV": spelling, "RD_OPERATORS": f"acme:{STRONG}"})
    assert (settings.production, settings.development, settings.env) == (True, False, "production")


@pytest.mark.parametrize("value", ["prod", "Prodution", "live"])
def test_an_unknown_rd_env_stops_start_up_rather_than_counting_as_development(value: str) -> None:
    with pytest.raises(SettingsError, match="RD_ENV"):
        from_env({"RD_ENV": value})


@pytest.mark.parametrize("secret", ["demo-secret", "Demo-Secret", "replace-with-a-long-random-secret", "replace-me"])
@pytest.mark.parametrize("name", ["RD_OPERATORS", "RD_AUDITORS"])
def test_production_refuses_to_serve_with_a_published_demo_secret_under_any_id(name: str, secret: str) -> None:
    env = {"RD_ENV": "production", "RD_OPERATORS": f"acme:{STRONG}", name: f"someone-else:{secret}"}
    with pytest.raises(SettingsError, match=name):
        serves(env)


@pytest.mark.parametrize("name", ["RD_OPERATORS", "RD_AUDITORS"])
def test_production_serves_only_with_secrets_of_at_least_32_bytes(name: str) -> None:
    env = {"RD_ENV": "production", "RD_OPERATORS": f"acme:{STRONG}"}
    with pytest.raises(SettingsError, match=name):
        serves({**env, name: "x:" + "k" * 31})
    with pytest.raises(SettingsError, match=name):
        serves({**env, name: "x:1"})
    # 16 two-byte characters are 32 bytes: the limit is on the key's bytes, not its characters
    serves({**env, name: "x:" + "é" * 16})


def test_development_and_staging_take_short_secrets() -> None:
    for env in ("development", "staging"):
        assert from_env({"RD_ENV": env, "RD_OPERATORS": "acme:x"}).operators == {"acme": "x"}


def test_the_request_body_limit_defaults_to_64_kib_and_is_configurable() -> None:
    assert from_env({}).max_body_bytes == 65536
    assert from_env({"RD_MAX_BODY_BYTES": "4096"}).max_body_bytes == 4096
    with pytest.raises(SettingsError, match="RD_MAX_BODY_BYTES"):
        from_env({"RD_MAX_BODY_BYTES": "0"})


def test_a_slow_clients_bounds_default_to_10_s_for_headers_30_s_for_a_body_and_2048_connections() -> None:
    settings = from_env({})
    assert (settings.header_timeout_seconds, settings.body_timeout_seconds, settings.max_connections) == (10, 30, 2048)
    changed = from_env({"RD_HEADER_TIMEOUT_SECONDS": "2", "RD_BODY_TIMEOUT_SECONDS": "5", "RD_MAX_CONNECTIONS": "64"})
    assert (changed.header_timeout_seconds, changed.body_timeout_seconds, changed.max_connections) == (2, 5, 64)
    for name, bad in (
        ("RD_HEADER_TIMEOUT_SECONDS", "0"),
        ("RD_BODY_TIMEOUT_SECONDS", "0"),
        ("RD_MAX_CONNECTIONS", "8"),
    ):
        with pytest.raises(SettingsError, match=name):
            from_env({name: bad})


def test_migrations_use_their_own_url_and_the_app_login_has_a_checked_name() -> None:
    settings = from_env({"DATABASE_URL": "postgresql://svc@h/db", "MIGRATE_DATABASE_URL": "postgresql://own@h/db"})
    assert (settings.database_url, settings.migrate_database_url) == ("postgresql://svc@h/db", "postgresql://own@h/db")
    assert (settings.app_db_user, settings.app_db_password) == ("reddog_service", None)
    assert from_env({"RD_APP_DB_USER": "svc_2", "RD_APP_DB_PASSWORD": "pw"}).app_db_password == "pw"
    with pytest.raises(SettingsError, match="RD_APP_DB_USER"):
        from_env({"RD_APP_DB_USER": 'x"; DROP ROLE y; --'})


def test_the_app_role_is_a_checked_name_of_the_deployments_own_and_unset_by_default() -> None:
    assert from_env({}).app_db_role is None  # reddog migrate then keeps the database's, or derives one from its name
    assert from_env({"RD_APP_DB_ROLE": "casino_eu_app"}).app_db_role == "casino_eu_app"
    for bad, why in (
        ("Casino-EU", "lowercase letters, digits and _"),
        ('x"; DROP ROLE y; --', "lowercase letters, digits and _"),
        ("a" * 64, "at most 63"),
        ("reddog_app", "every database's migrations grant to"),
        ("reddog_service", "name two roles"),  # the default login
    ):
        with pytest.raises(SettingsError, match=f"RD_APP_DB_ROLE: .*{why}"):
            from_env({"RD_APP_DB_ROLE": bad})
    with pytest.raises(SettingsError, match="name two roles"):
        from_env({"RD_APP_DB_ROLE": "svc", "RD_APP_DB_USER": "svc"})


def test_production_refuses_test_tables() -> None:
    env = {"RD_ENV": "production", "RD_OPERATORS": f"acme:{STRONG}", "RD_ALLOW_TEST_TABLES": "true"}
    with pytest.raises(SettingsError, match="RD_ALLOW_TEST_TABLES"):
        from_env(env)


def test_auditors_are_their_own_id_secret_pairs_and_never_an_operator_id() -> None:
    assert from_env({"RD_AUDITORS": "lab:l4b-secret"}).auditors == {"lab": "l4b-secret"}
    assert from_env({}).auditors == {}
    with pytest.raises(SettingsError, match="RD_AUDITORS"):
        from_env({"RD_OPERATORS": "acme:a", "RD_AUDITORS": "acme:b"})
    with pytest.raises(SettingsError, match="RD_AUDITORS"):
        from_env({"RD_AUDITORS": "nocolon"})


def test_trusted_proxies_are_addresses_or_networks_and_none_by_default() -> None:
    assert from_env({}).trusted_proxies == ()
    settings = from_env({"RD_TRUSTED_PROXIES": "172.28.0.10, 10.0.0.0/8,fd00::/8"})
    assert settings.trusted_proxies == ("172.28.0.10/32", "10.0.0.0/8", "fd00::/8")
    for bad in ("nginx", "10.0.0.0/33", "*"):
        with pytest.raises(SettingsError, match="RD_TRUSTED_PROXIES"):
            from_env({"RD_TRUSTED_PROXIES": bad})


def test_the_global_cap_on_failed_signature_records_defaults_to_60_a_minute_and_is_configurable() -> None:
    assert from_env({}).auth_failure_records_per_minute == 60
    assert from_env({"RD_AUTH_FAILURE_RECORDS_PER_MINUTE": "5"}).auth_failure_records_per_minute == 5
    with pytest.raises(SettingsError, match="RD_AUTH_FAILURE_RECORDS_PER_MINUTE"):
        from_env({"RD_AUTH_FAILURE_RECORDS_PER_MINUTE": "0"})
