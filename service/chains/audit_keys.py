"""Checkpoint signing keys on disk: a new key file (mode 0600, never overwritten), and the development key that
`make run` makes under the data directory when RD_AUDIT_SIGNING_KEY is unset."""

from __future__ import annotations

import os
from pathlib import Path

from audit.signed_note import KeyPair, generate_key, parse_signer
from service.settings import DEVELOPMENT_KEY_NAME

DEVELOPMENT_NAME = DEVELOPMENT_KEY_NAME  # production refuses a key of this name (settings.check_can_serve)
DEVELOPMENT_FILE = "audit-signing.key"


def write_key_file(path: str | Path, name: str) -> KeyPair:
    """A fresh Ed25519 key from the OS CSPRNG, written where only this user can read it; an existing file is kept."""
    pair = generate_key(name, os.urandom(32))
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(pair.signer_key + "\n")
    return pair


def development_key(data_dir: str | Path) -> tuple[Path, str]:
    """The development key file under the data directory, made on first use; its path and verifier key."""
    path = Path(data_dir) / DEVELOPMENT_FILE
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        write_key_file(path, DEVELOPMENT_NAME)
    return path, parse_signer(path.read_text(encoding="utf-8")).verifier.key
