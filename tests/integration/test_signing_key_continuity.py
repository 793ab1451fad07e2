"""Outside development a service starts only with the signing key the system chain last recorded: another key is
refused, in one line by `reddog serve`, until `reddog audit rotate-key` records the change, which verify lists."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import sys
from pathlib import Path

from audit.signed_note import KeyPair, generate_key
from service.chains.key_continuity import SigningKeyChanged
from service.db.app_login import login_url
from tests.conftest import make_settings
from tests.support.live import live
from tests.support.reddog_command import reddog
from tests.support.scratch import TEST_LOGIN, TEST_LOGIN_PASSWORD, scratch_database

KEY_A = generate_key("rd.example.com/audit", secrets.token_bytes(32))
KEY_B = generate_key("rd.example.com/audit", secrets.token_bytes(32))
STRONG = "s" * 32


async def start(url: str, key: KeyPair) -> None:
    """Start and stop one production-shaped service with `key`, as the least-privilege login."""
    settings = make_settings(
        url,
        env="production",
        allow_test_tables=False,
        audit_signing_key=key.signer_key,
        public_url="https://rd.example.com",
        operators={"acme": STRONG, "other": "o" * 32},  # production serves only with secrets of 32 bytes or more
        auditors={"lab": "l" * 32},
    )
    async with live(settings):
        pass


async def refused(url: str, key: KeyPair) -> str:
    """Start as `start` does, which must be refused: the refusal's message (the app's task group wraps it)."""
    found: list[str] = []
    try:
        await start(url, key)
    except* SigningKeyChanged as group:
        found.extend(str(e) for e in group.exceptions)
    assert found, "the start was not refused"
    return found[0]


def key_file(tmp_path: Path, key: KeyPair, name: str) -> Path:
    path = tmp_path / name
    path.write_text(key.signer_key + "\n", encoding="utf-8")
    path.chmod(0o600)
    return path


async def serve(url: str, key: Path, tmp_path: Path) -> tuple[int, str]:
    """`reddog serve` in production with `key`, expected to stop before serving; its status and stderr."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("RD_", "PROMETHEUS_MULTIPROC"))}
    env.update(
        DATABASE_URL=url, RD_ENV="production", RD_OPERATORS=f"acme:{STRONG}", RD_AUDIT_SIGNING_KEY=str(key),
        RD_PUBLIC_URL="https://rd.example.com",
        RD_DATA_DIR=str(tmp_path / "data"),
    )  # fmt: skip
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "service.cli.cli", "serve", env=env, stderr=asyncio.subprocess.PIPE
    )
    _, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, err.decode()


async def test_a_service_started_with_key_a_then_key_b_is_refused(database_server: str, tmp_path: Path) -> None:
    async with scratch_database(database_server) as owner:
        url = login_url(owner, TEST_LOGIN, TEST_LOGIN_PASSWORD)
        await start(url, KEY_A)
        await start(url, KEY_A)  # the same key again: fine
        assert f"is not {'+'.join(KEY_A.verifier_key.split('+')[:2])}, the key the system chain" in await refused(
            url, KEY_B
        )
        code, err = await serve(url, key_file(tmp_path, KEY_B, "b.key"), tmp_path)
        assert code == 1, err
        (line,) = err.strip().splitlines()
        refusal = json.loads(line)["message"]  # production: every line on stderr is one JSON object
        assert refusal.startswith("reddog: refusing to serve: the checkpoint signing key rd.example.com/audit+"), line
        assert refusal.endswith("reddog audit rotate-key --new-key FILE"), line


async def test_after_rotate_key_the_new_key_starts_the_old_is_refused_and_verify_lists_the_rotation(
    database_server: str, tmp_path: Path
) -> None:
    async with scratch_database(database_server) as owner:
        url = login_url(owner, TEST_LOGIN, TEST_LOGIN_PASSWORD)
        await start(url, KEY_A)
        new = key_file(tmp_path, KEY_B, "b.key")
        code, out, err = await reddog(url, "audit", "rotate-key", "--new-key", str(new))
        assert code == 0, (out, err)
        assert f"{KEY_A.verifier_key} -> {KEY_B.verifier_key}" in out
        assert KEY_B.signer_key.split("+", 4)[4] not in out  # the private key is never shown (its base64 may hold "+")
        await start(url, KEY_B)
        assert await refused(url, KEY_A)  # the old key is retired by the rotation
        code, out, err = await reddog(url, "audit", "rotate-key", "--new-key", str(new))
        assert code == 1, (out, err)
        assert "is already the key in force" in err
        code, out, err = await reddog(url, "audit", "verify", "--db")
        assert code == 0, (out, err)
        assert "signing key rotated at " in err
        assert f": {KEY_A.verifier_key} -> {KEY_B.verifier_key}" in err
        assert "signing key rotations recorded on the system chain: 1" in err


async def test_in_development_another_key_is_only_warned_about(database_server: str) -> None:
    async with scratch_database(database_server) as owner:
        url = login_url(owner, TEST_LOGIN, TEST_LOGIN_PASSWORD)
        async with live(make_settings(url, audit_signing_key=KEY_A.signer_key)):
            pass
        async with live(make_settings(url, audit_signing_key=KEY_B.signer_key)):  # make run's key, a test's key
            pass
