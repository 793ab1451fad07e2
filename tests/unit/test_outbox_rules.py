"""The outbox's rules that need no database: a notification's signature as docs/api.md spells it, the retry waits,
when a message is given up on, and the settings that say where notifications go."""

from __future__ import annotations

import hashlib
import hmac
from datetime import UTC, datetime, timedelta
from uuid import uuid4

import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.chains.request_signing import notification_signatures
from service.db.outbox_sql import Claimed
from service.outbox_settings import OutboxSettings
from service.runtime.outbox_delivery import backoff, gives_up
from service.settings import SettingsError, from_env


def test_a_notification_signs_the_docs_worked_example_bytes_once_per_secret_newest_first() -> None:
    # docs/api.md: `1767225600\nPOST\n/hooks/reddog\ne-1\n{}` under each secret, comma separated.
    message = b"1767225600\nPOST\n/hooks/reddog\ne-1\n{}"
    expected = [hmac.new(s, message, hashlib.sha256).hexdigest() for s in (b"notify-secret", b"old-secret")]
    got = notification_signatures(("notify-secret", "old-secret"), "1767225600", "/hooks/reddog", "e-1", b"{}")
    assert got == ",".join(expected)


def test_another_event_id_or_path_is_another_signature() -> None:
    first = notification_signatures(("s",), "1", "/h", "e-1", b"{}")
    assert notification_signatures(("s",), "1", "/h", "e-2", b"{}") != first
    assert notification_signatures(("s",), "1", "/h?x=1", "e-1", b"{}") != first


SETTINGS = OutboxSettings(backoff_base_seconds=1.0, backoff_max_seconds=300.0, max_attempts=12, max_age_seconds=3600)


@given(attempts=st.integers(1, 200), draw=st.floats(0, 1))
def test_each_wait_is_the_doubled_base_capped_then_spread_over_its_upper_half(attempts: int, draw: float) -> None:
    ceiling = min(300.0, 2.0 ** (attempts - 1))  # 1, 2, 4, ... s, at most 300 s
    assert ceiling / 2 <= backoff(SETTINGS, attempts, draw) <= ceiling


def test_the_waits_double_from_the_base() -> None:
    assert [backoff(SETTINGS, n, 1.0) for n in (1, 2, 3, 4, 9, 10)] == [1, 2, 4, 8, 256, 300]


def claimed(attempts: int, owed_for: float, now: datetime) -> Claimed:
    since = now - timedelta(seconds=owed_for)
    return Claimed(
        seq=1, message_id=uuid4(), operator_id="o", channel="notification", kind="round.settled", body=b"{}",
        created_at=since, attempts=attempts, owed_since=since,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("attempts", "owed_for", "parked"),
    [(11, 60, False), (12, 60, True), (1, 3599, False), (1, 3600, True)],
)
def test_a_message_is_given_up_on_at_its_last_attempt_or_its_age(attempts: int, owed_for: float, parked: bool) -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert gives_up(SETTINGS, claimed(attempts, owed_for, now), now) is parked


def test_notification_settings_name_each_operators_url_and_its_secrets_newest_first() -> None:
    env = {
        "RD_OPERATORS": "a:sa,b:sb",
        "RD_NOTIFY_URLS": "a=https://a.example/hooks?x=1",
        "RD_NOTIFY_SECRETS": "a:new,a:old",
        "RD_OUTBOX_MAX_ATTEMPTS": "5",
        "RD_OUTBOX_BACKOFF_BASE_SECONDS": "0.25",
    }
    outbox = from_env(env).outbox
    assert outbox.targets["a"].url == "https://a.example/hooks?x=1"
    assert outbox.targets["a"].secrets == ("new", "old")
    assert (outbox.max_attempts, outbox.backoff_base_seconds, "b" in outbox.targets) == (5, 0.25, False)


@pytest.mark.parametrize(
    ("env", "names"),
    [
        ({"RD_NOTIFY_URLS": "x=https://x.example/h", "RD_NOTIFY_SECRETS": "x:s"}, "not an operator"),
        ({"RD_NOTIFY_URLS": "a=https://a.example/h"}, "no secret"),
        ({"RD_NOTIFY_SECRETS": "a:s"}, "no URL"),
        ({"RD_NOTIFY_URLS": "a=ftp://a.example/h", "RD_NOTIFY_SECRETS": "a:s"}, "expected http"),
        ({"RD_NOTIFY_URLS": "a=https://a/h", "RD_NOTIFY_SECRETS": "a:1,a:2,a:3"}, "more than two"),
        ({"RD_NOTIFY_URLS": "a=https://a/h,a=https://b/h", "RD_NOTIFY_SECRETS": "a:s"}, "listed twice"),
        ({"RD_OUTBOX_MAX_ATTEMPTS": "0"}, "RD_OUTBOX_MAX_ATTEMPTS"),
        ({"RD_OUTBOX_TIMEOUT_SECONDS": "soon"}, "RD_OUTBOX_TIMEOUT_SECONDS"),
    ],
)
def test_a_notification_setting_that_cannot_work_stops_start_up_naming_it(env: dict[str, str], names: str) -> None:
    with pytest.raises(SettingsError, match=names):
        from_env({"RD_OPERATORS": "a:sa", **env})


def test_production_sends_notifications_over_https_only() -> None:
    secret = "s" * 32
    env = {"RD_ENV": "production", "RD_OPERATORS": f"a:{secret}", "RD_NOTIFY_SECRETS": f"a:{secret}"}
    with pytest.raises(SettingsError, match="https only"):
        from_env({**env, "RD_NOTIFY_URLS": "a=http://a.example/h"})
    assert from_env({**env, "RD_NOTIFY_URLS": "a=https://a.example/h"}).outbox.targets["a"].secrets == (secret,)
