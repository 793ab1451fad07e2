"""Audit anchors as the API serves them: the latest checkpoint, a round's inclusion proof, a consistency proof.

`owner` is the calling operator, who sees only its own tables; None for an auditor, who sees every chain.
Proofs are built from the chain's record hashes up to the checkpoint's size (merkle.build: O(n), ~0.16 s for
200,000 records on one core), then each path costs O(log n).
"""

from __future__ import annotations

from uuid import UUID

from audit import merkle
from audit.proof_check import ConsistencyProof, RecordProof, RoundProof
from audit.signed_note import Verifier
from service.chains import checkpoints
from service.db import checkpoint_sql
from service.db.checkpoint_sql import StoredCheckpoint
from service.db.unit_of_work import UnitOfWork
from service.errors import ApiError, not_found, validation


def checkpoints_off() -> ApiError:
    return ApiError(503, "CHECKPOINTS_DISABLED", "this server signs no checkpoints (RD_AUDIT_SIGNING_KEY is unset)")


def verifier(unit: UnitOfWork) -> Verifier:
    signer = checkpoints.signer_of(unit.settings)
    if signer is None:
        raise checkpoints_off()
    return signer.verifier


async def latest_checkpoint(unit: UnitOfWork, table_id: UUID, owner: str | None) -> StoredCheckpoint:
    verifier(unit)
    if not await checkpoint_sql.chain_visible(unit.conn, table_id, owner):
        raise not_found("table")
    latest = await checkpoint_sql.select_latest_checkpoint(unit.conn, table_id)
    if latest is None:
        raise ApiError(404, "NOT_FOUND", "no checkpoint of this table yet; one follows within seconds", retryable=True)
    return checkpoints.published(unit.settings, latest)


async def round_proof(unit: UnitOfWork, round_id: UUID, owner: str | None) -> RoundProof:
    """Every record of the round with its inclusion path in the latest checkpoint (signed now if none covers it)."""
    verifier(unit)
    chain = await checkpoint_sql.select_round_chain(unit.conn, round_id, owner)
    if chain is None or not chain.records:
        raise not_found("round")
    checkpoint = await checkpoints.covering(unit, chain.table_id, chain.records[-1].seq)
    if checkpoint is None:
        raise checkpoints_off()
    checkpoints.published(unit.settings, checkpoint)
    tree = await _tree(unit, chain.table_id, checkpoint.tree_size)
    records = tuple(
        RecordProof(
            seq=r.seq,
            leaf_index=r.seq - 1,
            prev_hash=r.prev_hash,
            record_hash=r.hash,
            body=r.body,
            hashes=tuple(tree.inclusion_proof(r.seq - 1, checkpoint.tree_size)),
        )
        for r in chain.records
    )
    return RoundProof(
        round_id=str(round_id),
        table_id=str(chain.table_id),
        tree_size=checkpoint.tree_size,
        checkpoint=checkpoint.note,
        records=records,
    )


async def consistency_proof(
    unit: UnitOfWork, table_id: UUID, from_size: int, to_size: int | None, owner: str | None
) -> ConsistencyProof:
    """The proof that the checkpoint of `to_size` (the latest by default) extends the log of `from_size`."""
    latest = await latest_checkpoint(unit, table_id, owner)
    target = latest if to_size is None else await checkpoint_sql.select_checkpoint(unit.conn, table_id, to_size)
    if target is None:
        raise ApiError(404, "NOT_FOUND", f"no checkpoint of size {to_size}; `to` must be a checkpoint's tree_size")
    if not 0 <= from_size <= target.tree_size:
        raise validation(f"from must be 0..{target.tree_size} (the checkpoint's size)")
    tree = await _tree(unit, table_id, target.tree_size)
    return ConsistencyProof(
        table_id=str(table_id),
        from_size=from_size,
        to_size=target.tree_size,
        hashes=tuple(tree.consistency_proof(from_size, target.tree_size)),
        checkpoint=target.note,
    )


async def _tree(unit: UnitOfWork, table_id: UUID, size: int) -> merkle.Tree:
    hashes = await checkpoint_sql.select_record_hashes(unit.conn, table_id, size)
    if len(hashes) != size:  # records a checkpoint signed are gone: only a changed database does that
        raise ApiError(
            409, "CHAIN_TRUNCATED", f"the chain holds {len(hashes)} of the {size} records its checkpoint signed"
        )
    return merkle.build(hashes)
