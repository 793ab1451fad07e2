"""The audit settings: the checkpoint key is read from its file at start-up, and production will not start without."""

from __future__ import annotations

import os
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
    assert done.stderr.strip().splitlines() == [
        "reddog: bad setting: RD_AUDIT_SIGNING_KEY: the development key (reddog.dev/audit) that `make run` writes is"
        " refused when RD_ENV=production; make one with `reddog audit-keygen --name <your host>/audit --out FILE`"
    ]
