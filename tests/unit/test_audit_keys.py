"""Key files: made from the OS CSPRNG, readable by their owner alone, never overwritten; the development key is
made once under the data directory and reused."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from audit.signed_note import parse_signer, parse_verifier
from service.chains.audit_keys import DEVELOPMENT_NAME, development_key, write_key_file
from service.cli.cli import main


def test_a_key_file_is_a_signer_key_only_its_owner_can_read_and_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "audit.key"
    pair = write_key_file(path, "rd.example.com/audit")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    signer = parse_signer(path.read_text())
    assert signer.verifier.key == pair.verifier_key == parse_verifier(pair.verifier_key).key
    assert signer.name == "rd.example.com/audit"
    with pytest.raises(FileExistsError):
        write_key_file(path, "rd.example.com/audit")
    assert parse_signer(path.read_text()).verifier.key == pair.verifier_key
    assert write_key_file(tmp_path / "other.key", "rd.example.com/audit").verifier_key != pair.verifier_key


def test_the_development_key_is_made_once_under_the_data_directory(tmp_path: Path) -> None:
    path, verifier_key = development_key(tmp_path / "data")
    assert path == tmp_path / "data" / "audit-signing.key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert verifier_key.startswith(DEVELOPMENT_NAME + "+")
    assert development_key(tmp_path / "data") == (path, verifier_key)


def test_reddog_audit_keygen_writes_the_key_and_prints_the_verifier_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "k"
    assert main(["audit-keygen", "--name", "rd.example.com/audit", "--out", str(path)]) == 0
    printed = capsys.readouterr().out.strip()
    assert parse_signer(path.read_text()).verifier.key == printed
    assert main(["audit-keygen", "--name", "rd.example.com/audit", "--out", str(path)]) == 1
    assert main(["audit-keygen", "--name", "bad name", "--out", str(tmp_path / "k2")]) == 1
