"""The outbox's settings: where each operator's notifications go, the secrets they are signed with, and how
delivery retries and gives up. Read from RD_NOTIFY_* and RD_OUTBOX_* by `settings.from_env`."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit

import msgspec


class OutboxSettingsError(ValueError):
    """A setting that cannot be used; the message names the variable (settings.SettingsError wraps it)."""


class NotificationTarget(msgspec.Struct, frozen=True, kw_only=True):
    """One operator's receiver: its URL and the secrets each notification is signed with, newest first (two while a
    secret is rotated: the receiver accepts either signature)."""

    url: str
    secrets: tuple[str, ...]


class OutboxSettings(msgspec.Struct, frozen=True, kw_only=True):
    targets: dict[str, NotificationTarget] = msgspec.field(default_factory=dict)  # by operator id
    max_attempts: int = 12  # attempts before a message is parked as a dead letter
    max_age_seconds: float = 86_400.0  # or this long after it was written, whichever comes first
    timeout_seconds: float = 5.0  # one attempt's whole HTTP exchange
    backoff_base_seconds: float = 1.0  # the first retry waits about this long, each next one twice as long...
    backoff_max_seconds: float = 300.0  # ...up to this
    poll_seconds: float = 0.5  # how often an idle worker looks for due messages
    batch: int = 32  # messages one worker claims and sends at once
    retention_days: int = 30  # rows no one is owed any more (delivered, resolved, unsent) are purged after this

    @property
    def lease_seconds(self) -> float:
        """How long a claimed attempt holds its message: past it, a worker that died mid-send is taken over."""
        return 2 * self.timeout_seconds + 1.0


def parse_outbox(env: Mapping[str, str], operators: Mapping[str, str], production: bool) -> OutboxSettings:
    urls = _pairs(env.get("RD_NOTIFY_URLS", ""), "RD_NOTIFY_URLS", "=")
    secrets: dict[str, list[str]] = {}
    for op_id, secret in _pairs_listed(env.get("RD_NOTIFY_SECRETS", ""), "RD_NOTIFY_SECRETS", ":"):
        secrets.setdefault(op_id, []).append(secret)
    for op_id in sorted({*urls, *secrets}):
        if op_id not in operators:
            raise OutboxSettingsError(f"RD_NOTIFY_URLS: {op_id!r} is not an operator in RD_OPERATORS")
        if op_id in urls and op_id not in secrets:
            raise OutboxSettingsError(f"RD_NOTIFY_SECRETS: {op_id!r} has a notification URL but no secret to sign with")
        if op_id not in urls:
            raise OutboxSettingsError(f"RD_NOTIFY_URLS: {op_id!r} has a notification secret but no URL")
        if len(secrets[op_id]) > 2:
            raise OutboxSettingsError(f"RD_NOTIFY_SECRETS: {op_id!r} lists more than two secrets (new, then old)")
        _check_url(urls[op_id], production)
        if production and any(len(s.encode()) < 32 for s in secrets[op_id]):
            raise OutboxSettingsError(f"RD_NOTIFY_SECRETS: {op_id!r} needs secrets of at least 32 bytes in production")
    targets = {op: NotificationTarget(url=url, secrets=tuple(secrets[op])) for op, url in urls.items()}
    return OutboxSettings(
        targets=targets,
        max_attempts=int(_number(env, "RD_OUTBOX_MAX_ATTEMPTS", 12, 1, 1000)),
        max_age_seconds=_number(env, "RD_OUTBOX_MAX_AGE_SECONDS", 86_400, 1, 30 * 86_400),
        timeout_seconds=_number(env, "RD_OUTBOX_TIMEOUT_SECONDS", 5, 0.1, 120),
        backoff_base_seconds=_number(env, "RD_OUTBOX_BACKOFF_BASE_SECONDS", 1, 0.01, 3600),
        backoff_max_seconds=_number(env, "RD_OUTBOX_BACKOFF_MAX_SECONDS", 300, 0.01, 86_400),
        poll_seconds=_number(env, "RD_OUTBOX_POLL_SECONDS", 0.5, 0.01, 60),
        batch=int(_number(env, "RD_OUTBOX_BATCH", 32, 1, 1000)),
        # At least 2: migration 022's function keeps every row younger than a day by the database's clock, so a
        # retention of one day would be refused whenever the app's clock ran ahead of the database's.
        retention_days=int(_number(env, "RD_OUTBOX_RETENTION_DAYS", 30, 2, 3650)),
    )


def _pairs(text: str, name: str, sep: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for op_id, value in _pairs_listed(text, name, sep):
        if op_id in found:
            raise OutboxSettingsError(f"{name}: {op_id!r} is listed twice")
        found[op_id] = value
    return found


def _pairs_listed(text: str, name: str, sep: str) -> list[tuple[str, str]]:
    """`id<sep>value` items, comma separated, in order (a secret's id may repeat: new, then old)."""
    found = []
    for item in filter(None, (i.strip() for i in text.split(","))):
        op_id, got, value = item.partition(sep)
        if not got or not op_id or not value:
            raise OutboxSettingsError(f"{name}: expected id{sep}value items, got {op_id!r}...")
        found.append((op_id, value))
    return found


def _check_url(url: str, production: bool) -> None:
    try:
        parts = urlsplit(url)
        ok = parts.scheme in ("http", "https") and bool(parts.hostname) and "@" not in parts.netloc
        ok = ok and (parts.port is None or parts.port > 0) and not parts.fragment
    except ValueError:
        ok = False
    if not ok:
        raise OutboxSettingsError(f"RD_NOTIFY_URLS: expected http(s)://host[:port]/path, got {url!r}")
    if production and parts.scheme != "https":
        raise OutboxSettingsError(f"RD_NOTIFY_URLS: {url!r}: production sends notifications over https only")


def _number(env: Mapping[str, str], name: str, default: float, low: float, high: float) -> float:
    text = env.get(name) or ""
    if not text:
        return float(default)
    try:
        value = float(text)
    except ValueError:
        raise OutboxSettingsError(f"{name}: expected a number, got {text!r}") from None
    if not low <= value <= high:
        raise OutboxSettingsError(f"{name}: must be {low:g}..{high:g}, got {text}")
    return value
