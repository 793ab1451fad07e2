"""The audit settings: the checkpoint key is read from its file at start-up, and production will not start without."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from audit.signed_note import generate_key
from service.app import create_app
from service.chains.audit_keys import development_key
from service.settings import SettingsError, check_can_serve, from_env

PAIR = generate_key("reddog.test/audit", bytes(range(32)))
PRODUCTION = {"RD_ENV": "production", "RD_OPERATORS": "acme:" + "long-random-secret" * 2}  # 36 bytes


def test_the_signing_key_is_read_from_the_file_rd_audit_signing_key_names(tmp_path: Path) -> None:
    key = tmp_path / "audit.key"
    key.write_text(PAIR.signer_key + "\n")
    assert from_env({"RD_AUDIT_SIGNING_KEY": str(key)}).audit_signing_key == PAIR.signer_key
    key.chmod(0o600)  # production takes only a key file its owner alone may read (below)
    assert from_env({**PRODUCTION, "RD_AUDIT_SIGNING_KEY": str(key)}).production


def test_production_refuses_to_serve_without_a_signing_key_but_migrates_and_development_serves_without() -> None:
    settings = from_env(PRODUCTION)  # `reddog migrate` reads these settings too, and needs no key
    assert settings.audit_signing_key is None
    with pytest.raises(SettingsError, match="RD_AUDIT_SIGNING_KEY"):
        check_can_serve(settings)
    with pytest.raises(SettingsError, match="RD_AUDIT_SIGNING_KEY"):
        create_app(settings)
    check_can_serve(from_env({}))  # development: no checkpoints, but it serves


@pytest.mark.parametrize("content", [PAIR.verifier_key, "PRIVATE+KEY+x+00000000+AQ==", ""])
def test_a_key_file_without_a_signer_key_fails_naming_the_variable(tmp_path: Path, content: str) -> None:
    key = tmp_path / "audit.key"
    key.write_text(content)
    with pytest.raises(SettingsError, match="RD_AUDIT_SIGNING_KEY"):
        from_env({"RD_AUDIT_SIGNING_KEY": str(key)})
    with pytest.raises(SettingsError, match="RD_AUDIT_SIGNING_KEY: cannot read"):
        from_env({"RD_AUDIT_SIGNING_KEY": str(tmp_path / "missing.key")})


def test_checkpoint_intervals_and_link_lifetimes_are_bounded_whole_numbers() -> None:
    settings = from_env({"RD_CHECKPOINT_EVERY_RECORDS": "10", "RD_CHECKPOINT_EVERY_SECONDS": "5"})
    assert (settings.checkpoint_every_records, settings.checkpoint_every_seconds) == (10, 5)
    assert (from_env({}).checkpoint_every_records, from_env({}).checkpoint_every_seconds) == (100, 60)
    for name, value in [("RD_CHECKPOINT_EVERY_RECORDS", "0"), ("RD_CHECKPOINT_EVERY_SECONDS", "soon"),
                        ("RD_RECALL_LINK_TTL_SECONDS", "1")]:  # fmt: skip
        with pytest.raises(SettingsError, match=name):
            from_env({name: value})


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o620, 0o602], ids=oct)
def test_production_refuses_a_key_file_that_group_or_others_may_open_and_says_to_chmod_600(
    tmp_path: Path, mode: int
) -> None:
    key = tmp_path / "audit.key"
    key.write_text(PAIR.signer_key + "\n")
    key.chmod(mode)
    with pytest.raises(SettingsError, match=rf"RD_AUDIT_SIGNING_KEY: .*0{mode:o}.*chmod 600 {re.escape(str(key))}"):
        from_env({**PRODUCTION, "RD_AUDIT_SIGNING_KEY": str(key)})
    assert from_env({"RD_AUDIT_SIGNING_KEY": str(key)}).audit_signing_key == PAIR.signer_key  # development reads it


@pytest.mark.parametrize("mode", [0o600, 0o400], ids=oct)
def test_production_takes_a_key_file_only_its_owner_may_read(tmp_path: Path, mode: int) -> None:
    key = tmp_path / "audit.key"
    key.write_text(PAIR.signer_key + "\n")
    key.chmod(mode)
    assert from_env({**PRODUCTION, "RD_AUDIT_SIGNING_KEY": str(key)}).audit_signing_key == PAIR.signer_key


def _production_with_key(tmp_path: Path, **env: str) -> dict[str, str]:
    key = tmp_path / "audit.key"
    key.write_text(PAIR.signer_key + "\n")
    key.chmod(0o600)
    return {**PRODUCTION, "RD_AUDIT_SIGNING_KEY": str(key), **env}


def test_production_refuses_to_serve_without_rd_public_url_since_links_would_take_the_callers_host(
    tmp_path: Path,
) -> None:
    settings = from_env(_production_with_key(tmp_path))
    with pytest.raises(SettingsError, match="RD_PUBLIC_URL: production serves only with"):
        check_can_serve(settings)
    with pytest.raises(SettingsError, match="RD_PUBLIC_URL"):
        create_app(settings)
    check_can_serve(from_env(_production_with_key(tmp_path, RD_PUBLIC_URL="https://rd.example.com/")))


@pytest.mark.parametrize(
    "value",
    ["rd.example.com", "ftp://rd.example.com", "https://", "https://rd.example.com/?a=1", "https://rd.example.com/#x",
     "https://user@rd.example.com", "https://rd.example.com:99999", "https://rd example.com"],
)  # fmt: skip
def test_rd_public_url_is_an_http_or_https_base_with_a_host_and_nothing_after_the_path(value: str) -> None:
    with pytest.raises(SettingsError, match="RD_PUBLIC_URL"):
        from_env({"RD_PUBLIC_URL": value})


def test_links_are_based_on_rd_public_url_or_else_on_the_servers_own_host_and_port() -> None:
    assert from_env({"RD_PUBLIC_URL": "https://rd.example.com/games/"}).link_base == "https://rd.example.com/games"
    assert from_env({}).link_base == "http://127.0.0.1:8000"
    assert from_env({"RD_HOST": "::1", "RD_PORT": "8123"}).link_base == "http://[::1]:8123"


def test_production_refuses_the_development_key_that_make_run_writes(tmp_path: Path) -> None:
    path, _ = development_key(tmp_path / "data")
    settings = from_env({**PRODUCTION, "RD_AUDIT_SIGNING_KEY": str(path)})
    with pytest.raises(SettingsError, match=r"RD_AUDIT_SIGNING_KEY: the development key \(reddog.dev/audit\)"):
        check_can_serve(settings)
    with pytest.raises(SettingsError, match="reddog audit-keygen"):
        create_app(settings)
    check_can_serve(from_env({"RD_ENV": "staging", "RD_AUDIT_SIGNING_KEY": str(path)}))  # outside production: fine


def test_reddog_serve_refuses_the_development_key_in_production_in_one_line(tmp_path: Path) -> None:
    path, _ = development_key(tmp_path / "data")
    env = {k: v for k, v in os.environ.items() if not k.startswith("RD_")}
    env.update(PRODUCTION, RD_AUDIT_SIGNING_KEY=str(path), DATABASE_URL="postgresql://nobody@127.0.0.1:1/unused")
    done = subprocess.run(
        [sys.executable, "-m", "service.cli.cli", "serve"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    (line,) = done.stderr.strip().splitlines()
    refusal = json.loads(line)  # production: every line on stderr is one JSON object
    assert (refusal["event"], refusal["level"]) == ("bad_setting", "error")
    assert refusal["message"] == (
        "reddog: bad setting: RD_AUDIT_SIGNING_KEY: the development key (reddog.dev/audit) that `make run` writes is"
        " refused when RD_ENV=production; make one with `reddog audit-keygen --name <your host>/audit --out FILE`"
    )
