"""Audit anchor routes: the public key (public), the latest checkpoint and consistency proofs (signed; auditors too)."""

from __future__ import annotations

import base64
from typing import Annotated, Any
from uuid import UUID

import msgspec
from litestar import Request, Router, get
from litestar.datastructures import State
from litestar.params import FromPath, QueryParameter

from audit.proof_check import table_origin
from service.api import wire
from service.api.auth import AUDITORS_ALLOWED, Caller, Role, caller_of
from service.api.openapi.openapi_docs import SIGNED, responses
from service.api.query_values import MAX_SEQ
from service.api.replies import read
from service.chains.checkpoints import signer_of
from service.db.checkpoint_sql import StoredCheckpoint
from service.use_cases import proof_use_cases

AUDITORS = {AUDITORS_ALLOWED: True}
TRUNCATED = ("CHAIN_TRUNCATED",)  # a proof over records that are gone from the database


def owner(caller: Caller) -> str | None:
    """Whose chains the caller may read: an operator its own, an auditor (None) every one."""
    return None if caller.role is Role.AUDITOR else caller.operator_id


@get(
    "/public-key",
    operation_id="auditPublicKey",
    responses=responses(200, wire.PublicKeyOut, 400, 503),
    summary="The Ed25519 key every audit checkpoint is signed with (public: anyone may check a checkpoint)",
)
async def public_key(state: State) -> wire.PublicKeyOut:
    signer = signer_of(state.settings)
    if signer is None:
        raise proof_use_cases.checkpoints_off()
    verifier = signer.verifier
    return wire.PublicKeyOut(
        verifier_key=verifier.key,
        name=verifier.name,
        key_id=f"{verifier.key_id:08x}",
        algorithm="Ed25519",
        public_key=base64.b64encode(verifier.public_key).decode("ascii"),
        origin_prefix=table_origin(verifier.name, ""),
    )


public_router = Router(path="/v1/audit", route_handlers=[public_key], tags=["audit"])


def checkpoint_out(checkpoint: StoredCheckpoint) -> wire.CheckpointOut:
    return wire.CheckpointOut(
        table_id=checkpoint.table_id,
        tree_size=checkpoint.tree_size,
        root=base64.b64encode(checkpoint.root).decode("ascii"),
        note=checkpoint.note,
        created_at=checkpoint.created_at,
    )


TableId = Annotated[
    UUID,
    QueryParameter(description="a table id, an In Between game id, or the nil UUID for the system chain (auditors)"),
]


@get(
    "/audit/checkpoints/latest",
    responses=responses(200, wire.CheckpointOut, *SIGNED, 404),
    summary="The latest signed checkpoint of a table's audit log",
    opt=AUDITORS,
)
async def latest_checkpoint(request: Request[Any, Any, Any], table_id: TableId) -> wire.CheckpointOut:
    who = owner(caller_of(request))
    return checkpoint_out(await read(request, lambda unit: proof_use_cases.latest_checkpoint(unit, table_id, who)))


@get(
    "/audit/consistency",
    operation_id="consistencyProof",
    responses=responses(200, wire.ConsistencyProofOut, *SIGNED, 404, 409, 422, conflicts=TRUNCATED),
    summary="An RFC 9162 consistency proof: the log at checkpoint `to` (default: the latest) extends the log at `from`",
    opt=AUDITORS,
)
async def consistency(
    request: Request[Any, Any, Any],
    table_id: TableId,
    from_size: Annotated[
        int, QueryParameter(name="from", ge=0, le=MAX_SEQ, description="the size of a checkpoint you kept")
    ],
    to_size: Annotated[
        int | None, QueryParameter(name="to", ge=1, le=MAX_SEQ, description="a checkpoint's size")
    ] = None,
) -> wire.ConsistencyProofOut:
    who = owner(caller_of(request))
    proof = await read(request, lambda unit: proof_use_cases.consistency_proof(unit, table_id, from_size, to_size, who))
    return msgspec.convert(msgspec.to_builtins(proof), wire.ConsistencyProofOut)


@get(
    "/rounds/{round_id:uuid}/proof",
    responses=responses(200, wire.RoundProofOut, *SIGNED, 404, 409, conflicts=TRUNCATED),
    summary="Every audit record of a round with its RFC 9162 inclusion proof in the table's latest checkpoint",
    opt=AUDITORS,
)
async def round_proof(request: Request[Any, Any, Any], round_id: FromPath[UUID]) -> wire.RoundProofOut:
    who = owner(caller_of(request))
    proof = await read(request, lambda unit: proof_use_cases.round_proof(unit, round_id, who))
    return msgspec.convert(msgspec.to_builtins(proof), wire.RoundProofOut)


handlers = [latest_checkpoint, consistency, round_proof]
