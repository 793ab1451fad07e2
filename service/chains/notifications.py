"""Settlement notifications: the events an operator is told of (a round settled, voided or rolled back; a checkpoint
signed over its table's chain), each an outbox message written in the transaction of the change it reports.

The body is built once, at that moment, with deterministic key order, and never rewritten: every attempt sends the
same bytes under the same event id, and GET /v1/notifications serves those bytes too.
"""

from __future__ import annotations

import base64
from datetime import datetime
from uuid import UUID, uuid5

import msgspec

from paytables.red_dog.round import Round, RoundStatus
from service.db import Statement, outbox_sql
from service.db.outbox_sql import OutboxMessage
from service.settings import Settings
from service.time_ordered_ids import uuid7

CHANNEL = "notification"
ROUND_TYPES = {
    RoundStatus.SETTLED: "round.settled",
    RoundStatus.VOID: "round.voided",
    RoundStatus.ROLLED_BACK: "round.rolled_back",
}
CHECKPOINT_TYPE = "checkpoint.signed"
CHECKPOINT_IDS = UUID("5d1b6f0e-7a43-4f5e-9c59-0b1f1e0c2a77")  # the namespace of checkpoint event ids (UUIDv5)
_encode = msgspec.json.Encoder(order="deterministic").encode


class BetResult(msgspec.Struct, frozen=True, kw_only=True):
    bet_id: str
    player_id: str
    ante: int
    raise_amount: int
    result: str | None
    payout: int | None  # minor units credited, stake included
    net: int | None  # payout minus every debit of the bet


class RoundData(msgspec.Struct, frozen=True, kw_only=True):
    round_id: str
    table_id: str
    status: str
    currency: str
    test: bool
    outcome: str | None
    bets: tuple[BetResult, ...]
    settled_at: datetime | None
    void_reason: str | None
    rolled_back_at: datetime | None
    rollback_reason: str | None
    audit_seq: int  # the table chain's record that ends this change: a checkpoint of at least this size covers it


class CheckpointData(msgspec.Struct, frozen=True, kw_only=True):
    table_id: str
    tree_size: int
    root: str  # base64
    note: str  # the signed note, exactly as GET /v1/audit/checkpoints/latest serves it


class Notification(msgspec.Struct, frozen=True, kw_only=True):
    id: str  # the event id: a receiver applies each id once
    type: str
    operator_id: str
    created_at: datetime
    data: RoundData | CheckpointData
    links: dict[str, str]


def round_notification(
    settings: Settings, operator_id: str, currency: str, rnd: Round, audit_seq: int, now: datetime
) -> list[Statement]:
    """The outbox row of a round that has just ended or been rolled back (the caller knows which happened now)."""
    bets = tuple(
        BetResult(
            bet_id=b.bet_id,
            player_id=b.player_id,
            ante=b.ante,
            raise_amount=b.raise_amount,
            result=None if b.result is None else str(b.result.value),
            payout=b.payout,
            net=b.net,
        )
        for b in rnd.bets
    )
    data = RoundData(
        round_id=rnd.round_id,
        table_id=rnd.table_id,
        status=rnd.status.value,
        currency=currency,
        test=rnd.test,
        outcome=None if rnd.outcome is None else str(rnd.outcome.value),
        bets=bets,
        settled_at=rnd.settled_at,
        void_reason=rnd.void_reason,
        rolled_back_at=rnd.rolled_back_at,
        rollback_reason=rnd.rollback_reason,
        audit_seq=audit_seq,
    )
    base = f"{settings.link_base}/v1/rounds/{rnd.round_id}"
    links = {"round": base, "proof": f"{base}/proof"}
    kind = ROUND_TYPES[rnd.status]
    return _message(settings, operator_id, kind, f"round:{rnd.round_id}", data, links, now, uuid7(now))


def checkpoint_notification(
    settings: Settings, operator_id: str, table_id: UUID, tree_size: int, root: bytes, note: str, now: datetime
) -> list[Statement]:
    """The outbox row of a checkpoint just signed over an operator's table chain: the anchor its rounds' proofs
    reach (its ordering key is the table's, so a table's checkpoints arrive in size order)."""
    data = CheckpointData(
        table_id=str(table_id), tree_size=tree_size, root=base64.b64encode(root).decode("ascii"), note=note
    )
    links = {"latest": f"{settings.link_base}/v1/audit/checkpoints/latest?table_id={table_id}"}
    message_id = uuid5(CHECKPOINT_IDS, f"{table_id}/{tree_size}")  # one event however many replicas sign it
    return _message(settings, operator_id, CHECKPOINT_TYPE, f"checkpoint:{table_id}", data, links, now, message_id)


def _message(
    settings: Settings,
    operator_id: str,
    kind: str,
    ordering_key: str,
    data: RoundData | CheckpointData,
    links: dict[str, str],
    now: datetime,
    message_id: UUID,
) -> list[Statement]:
    body = _encode(
        Notification(id=str(message_id), type=kind, operator_id=operator_id, created_at=now, data=data, links=links)
    )
    message = OutboxMessage(
        message_id=message_id,
        operator_id=operator_id,
        channel=CHANNEL,
        ordering_key=ordering_key,
        kind=kind,
        body=body,
        created_at=now,
    )
    return outbox_sql.insert_message(message, deliver=operator_id in settings.outbox.targets)
