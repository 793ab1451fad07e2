"""What people do with the outbox: an operator reads its notifications and its dead letters; the person on call
retries or resolves a dead letter, each step recorded on the system chain in the same transaction."""

from __future__ import annotations

from uuid import UUID

import structlog

from audit.system_events import DeadLetterResolved, DeadLetterRetried
from service.chains import system_chain
from service.db import outbox_sql
from service.db.outbox_sql import DeadLetter, Listed
from service.db.unit_of_work import UnitOfWork
from service.errors import not_found

log = structlog.get_logger("reddog.outbox")


async def list_notifications(unit: UnitOfWork, after: int, limit: int) -> list[Listed]:
    """The operator's notifications past position `after`, in the order they were listed (the same bytes as sent)."""
    return await outbox_sql.select_listed(unit.conn, unit.operator_id, after, limit)


async def list_dead_letters(unit: UnitOfWork, limit: int, *, every_operator: bool = False) -> list[DeadLetter]:
    return await outbox_sql.select_dead_letters(unit.conn, None if every_operator else unit.operator_id, limit)


async def retry_dead_letter(unit: UnitOfWork, message_id: UUID, by: str) -> DeadLetter:
    """Send a dead letter again: the same id and bytes, due now, with a fresh count of attempts."""
    dead = await _locked(unit, message_id)
    unit.defer([outbox_sql.retry_dead_letter(message_id, unit.now)])
    retried = DeadLetterRetried(message_id=str(message_id), operator_id=dead.operator_id, by=by, retried_at=unit.now)
    await system_chain.append(unit, [retried])
    unit.after_commit.append(lambda: log.info("dead_letter_retried", message_id=str(message_id), by=by))
    return dead


async def resolve_dead_letter(unit: UnitOfWork, message_id: UUID, by: str, note: str) -> DeadLetter:
    """Mark a dead letter settled by other means: never sent, and no longer holding back its round's later ones."""
    dead = await _locked(unit, message_id)
    unit.defer([outbox_sql.resolve_dead_letter(message_id, unit.now)])
    resolved = DeadLetterResolved(
        message_id=str(message_id), operator_id=dead.operator_id, by=by, note=note, resolved_at=unit.now
    )
    await system_chain.append(unit, [resolved])
    unit.after_commit.append(lambda: log.info("dead_letter_resolved", message_id=str(message_id), by=by))
    return dead


async def _locked(unit: UnitOfWork, message_id: UUID) -> DeadLetter:
    dead = await outbox_sql.lock_dead_letter(unit.conn, message_id)
    if dead is None:
        raise not_found("dead letter")
    return dead
