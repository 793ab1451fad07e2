"""The outbox's wire types: an operator's notifications (as sent) and its dead letters."""

from __future__ import annotations

from datetime import datetime
from typing import Any
from uuid import UUID

import msgspec


class NotificationItem(msgspec.Struct, frozen=True, kw_only=True):
    seq: int  # its place in the list: pass the last one seen as ?after= to read on
    notification: dict[str, Any]  # the notification's JSON exactly as POSTed (docs/api.md, "Notifications")


class NotificationPage(msgspec.Struct, frozen=True, kw_only=True):
    notifications: list[NotificationItem]
    next_after: int  # the position to ask after next (the one asked after when the page is empty)


class RawItem(msgspec.Struct, frozen=True, kw_only=True):
    """NotificationItem as encoded: the stored bytes, not a decoding of them."""

    seq: int
    notification: msgspec.Raw


class RawPage(msgspec.Struct, frozen=True, kw_only=True):
    notifications: list[RawItem]
    next_after: int


class DeadLetterOut(msgspec.Struct, frozen=True, kw_only=True):
    message_id: UUID
    kind: str
    ordering_key: str  # e.g. round:<id>: that round's later messages wait behind this one
    attempts: int
    last_error: str | None
    created_at: datetime
    parked_at: datetime | None


class DeadLetterList(msgspec.Struct, frozen=True, kw_only=True):
    dead_letters: list[DeadLetterOut]
