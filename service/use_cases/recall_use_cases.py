"""Game recall: a player's last rounds with every moment they saw, from the round and its audit records; and the
signed, expiring links that show one round to a player without the operator's credentials."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from datetime import datetime, timedelta
from uuid import UUID

import msgspec

from audit.chain import Record
from audit.proof_check import RoundProof
from audit.records import decode_record
from paytables.red_dog.events import Event
from service.db import recall_sql, round_sql
from service.db.round_sql import StoredRound
from service.db.unit_of_work import UnitOfWork
from service.errors import ApiError, not_found
from service.settings import Settings
from service.use_cases import proof_use_cases
from service.use_cases.round_use_cases import RoundView, view

MAX_ROUNDS = 100


class Moment(msgspec.Struct, frozen=True, kw_only=True):
    """One audit record of the round as the player saw it happen: when, and what."""

    seq: int
    at: datetime
    event: Event


class RoundRecall(msgspec.Struct, frozen=True, kw_only=True):
    """A round as one player (or, without a player, the table) saw it: the round and its moments in order."""

    view: RoundView
    currency: str
    player_id: str | None
    moments: tuple[Moment, ...]


def for_player(recall: RoundRecall) -> RoundRecall:
    """Only the player's own bet and its moments (another player's stake is theirs): nothing when player_id is None."""
    player = recall.player_id
    if player is None:
        return recall
    rnd = recall.view.round
    mine = tuple(b for b in rnd.bets if b.player_id == player)
    bet_ids = {b.bet_id for b in mine}
    moments = tuple(m for m in recall.moments if getattr(m.event, "bet_id", None) in (None, *bet_ids))
    shown = msgspec.structs.replace(recall.view, round=msgspec.structs.replace(rnd, bets=mine))
    return msgspec.structs.replace(recall, view=shown, moments=moments)


def _recall(stored: StoredRound, records: Sequence[Record[Event]], player_id: str | None) -> RoundRecall:
    moments = tuple(Moment(seq=r.seq, at=r.recorded_at, event=r.event) for r in records)
    recall = RoundRecall(view=view(stored), currency=stored.currency, player_id=player_id, moments=moments)
    return for_player(recall)


async def player_rounds(unit: UnitOfWork, player_id: str, limit: int) -> list[RoundRecall]:
    """The operator's last `limit` rounds with a bet by this player, newest first."""
    found = await round_sql.select_rounds(
        unit.conn,
        unit.operator_id,
        table_id=None,
        player_id=player_id,
        status=None,
        opened_from=None,
        opened_to=None,
        before=None,
        limit=min(limit, MAX_ROUNDS),
    )
    bodies = await recall_sql.select_round_bodies(unit.conn, [UUID(s.round.round_id) for s in found])
    return [_recall(s, [decode_record(b) for b in bodies.get(s.round.round_id, [])], player_id) for s in found]


class Link(msgspec.Struct, frozen=True, kw_only=True):
    """What a recall link's signature covers."""

    round_id: UUID
    player_id: str | None
    expires: int  # unix seconds


def _link_key(settings: Settings) -> bytes:
    """The link key, derived from the audit signing key with its own label (one secret to keep, two uses apart)."""
    if settings.audit_signing_key is None:
        raise ApiError(503, "RECALL_LINKS_DISABLED", "recall links need RD_AUDIT_SIGNING_KEY")
    return hmac.new(settings.audit_signing_key.encode(), b"reddog recall-link key v1", hashlib.sha256).digest()


def link_signature(settings: Settings, link: Link) -> str:
    message = f"recall\n{link.round_id}\n{link.player_id or ''}\n{link.expires}".encode()
    return hmac.new(_link_key(settings), message, hashlib.sha256).hexdigest()


async def new_link(unit: UnitOfWork, round_id: UUID, player_id: str | None, ttl_seconds: int | None) -> Link:
    """A link to one of the operator's rounds (and one of its players, if named), valid for the TTL from now."""
    stored = await round_sql.select_round(unit.conn, unit.operator_id, round_id)
    if stored is None:
        raise not_found("round")
    if player_id is not None and all(b.player_id != player_id for b in stored.round.bets):
        raise not_found("player in this round")
    ttl = ttl_seconds or unit.settings.recall_link_ttl_seconds
    expires = int((unit.now + timedelta(seconds=ttl)).timestamp())
    return Link(round_id=round_id, player_id=player_id, expires=expires)


class RecallPage(msgspec.Struct, frozen=True, kw_only=True):
    recall: RoundRecall
    proof: RoundProof
    verifier_key: str


async def open_link(unit: UnitOfWork, link: Link, signature: str) -> RecallPage:
    """The round behind a link whose signature checks and whose time has not run out, with its inclusion proof."""
    # As bytes: compare_digest refuses a str with non-ASCII characters (a TypeError, a 500), and a query holds anything.
    if not hmac.compare_digest(link_signature(unit.settings, link).encode(), signature.encode()):
        raise ApiError(403, "RECALL_LINK_INVALID", "this recall link is not one the server issued")
    if unit.now.timestamp() > link.expires:
        raise ApiError(410, "RECALL_LINK_EXPIRED", "this recall link has expired; ask for a new one")
    operator_id = await recall_sql.select_round_operator(unit.conn, link.round_id)
    stored = None if operator_id is None else await round_sql.select_round(unit.conn, operator_id, link.round_id)
    if stored is None:
        raise not_found("round")
    bodies = await recall_sql.select_round_bodies(unit.conn, [link.round_id])
    recall = _recall(stored, [decode_record(b) for b in bodies.get(str(link.round_id), [])], link.player_id)
    proof = _own_records(await proof_use_cases.round_proof(unit, link.round_id, None), recall)
    return RecallPage(recall=recall, proof=proof, verifier_key=proof_use_cases.verifier(unit).key)


def _own_records(proof: RoundProof, recall: RoundRecall) -> RoundProof:
    """The proof of the records the page shows: another player's decision and settlement stay out (each record is
    proved on its own, so a subset proves as much of what is shown)."""
    shown = {m.seq for m in recall.moments}
    return msgspec.structs.replace(proof, records=tuple(r for r in proof.records if r.seq in shown))
