"""What the notifications' and dead letters' fields and operations mean (see `openapi_descriptions.py`)."""

# ruff: noqa: E501 - a description per line reads better than wrapped strings
from __future__ import annotations

PROPERTIES: dict[str, dict[str, str]] = {
    "NotificationItem": {
        "seq": "the notification's place in your list: ask `?after=` the last one you read to read on",
        "notification": "the notification exactly as it was (or will be) POSTed to your URL: `id`, `type`, `operator_id`, `created_at`, `data`, `links` (docs/api.md, Notifications)",
    },
    "NotificationPage": {
        "notifications": "in the order they became visible; each round's in the order they happened",
        "next_after": "the `after` of the next page (the one asked for when this page is empty)",
    },
    "DeadLetterOut": {
        "message_id": "the notification's event id, the `id` it carries (what `reddog outbox retry` and `resolve` take)",
        "kind": "its `type`: `round.settled`, `round.voided`, `round.rolled_back` or `checkpoint.signed`",
        "ordering_key": "`round:<id>` or `checkpoint:<table id>`: later notifications with the same key wait behind this one",
        "attempts": "delivery attempts made before it was parked",
        "last_error": "what the last attempt met (`HTTP 503`, `ConnectError: ...`, `ReadTimeout`)",
        "created_at": "when it was written, in the transaction of the change it tells of",
        "parked_at": "when delivery gave up on it",
    },
    "DeadLetterList": {"dead_letters": "your notifications given up on and not yet retried or resolved, oldest first"},
}

OPERATIONS: dict[tuple[str, str], str] = {
    (
        "get",
        "/v1/notifications",
    ): "Your settlement notifications (rounds settled, by anyone, the sweeper included; voided; rolled back; checkpoints signed over your tables), the same bytes as POSTed to your URL, in order, whether or not you set a URL: reconcile from here after an outage. Each `id` appears once.",
    (
        "get",
        "/v1/outbox/dead-letters",
    ): "Your notifications the service gave up delivering (after RD_OUTBOX_MAX_ATTEMPTS attempts or RD_OUTBOX_MAX_AGE_SECONDS). The service's on-call retries or resolves them (`reddog outbox retry ID` / `resolve ID`), each step recorded on the system chain.",
}

LIMITS: dict[tuple[str, str], str] = {
    ("get", "/v1/notifications"): "notifications per page, 1..500",
    ("get", "/v1/outbox/dead-letters"): "dead letters per page, 1..500",
}
