"""One checkpoint signing key after another, never two at once: outside development a service starts only with the
key the system chain last recorded (a start's or a rotation's), and `reddog audit rotate-key` records a change.

Without this, a replica given another key (the development one, a stray copy) signs checkpoints beside the real
key's, and nothing says which is the log's. Each start records its key's verifier key (`ServiceStarted.settings`),
never the private key; a rotation record names the old and the new verifier key.
"""

from __future__ import annotations

from datetime import datetime

from audit.signed_note import parse_signer
from audit.system_events import SigningKeyRotated
from service.db import Conn, system_sql
from service.settings import Settings, SettingsError, is_development_key

ROTATE_HINT = "if the key was changed on purpose, record it first: reddog audit rotate-key --new-key FILE"


class SigningKeyChanged(RuntimeError):
    """The key given is not the one the system chain last recorded, and no rotation says it may be."""


async def key_refusal(conn: Conn, settings: Settings) -> str | None:
    """Why this service must not start with its signing key, or None; call it in a transaction that holds the
    system chain's lock when the start is recorded in it, so two starts with two keys cannot both pass."""
    if settings.audit_signing_key is None:
        return None  # it signs nothing, so it can sign nothing beside the recorded key
    key = parse_signer(settings.audit_signing_key).verifier.key
    recorded = await system_sql.last_recorded_key(conn)
    if recorded is None or recorded == key:
        return None
    return (
        f"the checkpoint signing key {_key_id(key)} (RD_AUDIT_SIGNING_KEY) is not {_key_id(recorded)}, the key the"
        f" system chain last recorded; {ROTATE_HINT}"
    )


def enforced(settings: Settings) -> bool:
    """Outside development: a developer's servers (and the test suite's) each make a key of their own."""
    return not settings.development


async def rotate(conn: Conn, new_signer_key: str, *, production: bool, now: datetime) -> SigningKeyRotated:
    """Record on the system chain that `new_signer_key` signs from now on, naming the key it replaces."""
    if production and is_development_key(new_signer_key):
        raise SettingsError("--new-key: the development key is refused when RD_ENV=production")
    new_key = parse_signer(new_signer_key).verifier.key
    async with conn.transaction():
        await system_sql.lock_system_chain(conn)  # the key read is the key replaced: no start slips between
        old_key = await system_sql.last_recorded_key(conn)
        if old_key == new_key:
            raise SettingsError(f"--new-key: {_key_id(new_key)} is already the key in force")
        rotated = SigningKeyRotated(old_key=old_key, new_key=new_key, rotated_at=now)
        await system_sql.append_now(conn, [rotated], now)
    return rotated


def _key_id(verifier_key: str) -> str:
    """A verifier key as a reader compares it: its name and key ID (`name+hash`), the public key left off."""
    return "+".join(verifier_key.split("+")[:2])
