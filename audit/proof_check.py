"""Check the service's proofs offline: a round's records in a signed checkpoint, one checkpoint growing into another.

Pure and dependency-free beyond `audit/` (the Merkle tree, checkpoints, signed notes): what `reddog audit verify`, a
test lab's own script or the recall page's JavaScript re-implements. Every check returns the problems it found, in
words, so an empty list is the one verdict that means "proved".
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence

import msgspec

from audit.chain import envelope, link_hash
from audit.checkpoint import Checkpoint, open_checkpoint
from audit.merkle import root, verify_consistency, verify_inclusion
from audit.signed_note import NoteError, Verifier


class RecordProof(msgspec.Struct, frozen=True, kw_only=True):
    """One record, byte for byte, and the RFC 9162 inclusion path of its hash (leaf index = seq - 1)."""

    seq: int
    leaf_index: int
    prev_hash: bytes
    record_hash: bytes
    body: bytes  # the canonical record bytes the hash covers
    hashes: tuple[bytes, ...]  # inclusion_path, the sibling nearest the leaf first


class RoundProof(msgspec.Struct, frozen=True, kw_only=True):
    """Every record of a round, each with its inclusion proof in the one signed checkpoint `checkpoint`."""

    round_id: str
    table_id: str
    tree_size: int
    checkpoint: str  # the C2SP signed note; its size and root are the ones that count
    records: tuple[RecordProof, ...]


class ConsistencyProof(msgspec.Struct, frozen=True, kw_only=True):
    """RFC 9162 consistency_path: the table's log of `to_size` records extends the one of `from_size`."""

    table_id: str
    from_size: int
    to_size: int
    hashes: tuple[bytes, ...]
    checkpoint: str  # the signed checkpoint of `to_size`


def table_origin(log_name: str, table_id: str) -> str:
    """A table's log origin: the signing key's name, `/table/`, the table id (the system chain's is the nil UUID)."""
    return f"{log_name}/table/{table_id}"


def open_table_checkpoint(note: str | bytes, verifier: Verifier, table_id: str) -> Checkpoint:
    """The checkpoint once it is signed by `verifier` and of this table's log; a NoteError otherwise."""
    return open_checkpoint(note, verifier, origin=table_origin(verifier.name, table_id))


def check_round_proof(proof: RoundProof, verifier: Verifier) -> list[str]:
    """Every record is the table's, the round's, hashes as claimed, links to its predecessor in the proof and is in
    the signed checkpoint; the checkpoint's own size and root are used, never the envelope's."""
    try:
        checkpoint = open_table_checkpoint(proof.checkpoint, verifier, proof.table_id)
    except NoteError as exc:
        return [f"checkpoint: {exc}"]
    problems = [] if checkpoint.size == proof.tree_size else [f"tree_size {proof.tree_size} is not the checkpoint's"]
    if not proof.records:
        problems.append("the proof holds no record")
    previous: RecordProof | None = None
    for record in proof.records:
        problems.extend(f"seq {record.seq}: {p}" for p in _record_problems(record, proof, checkpoint, previous))
        previous = record
    return problems


def _record_problems(
    record: RecordProof, proof: RoundProof, checkpoint: Checkpoint, previous: RecordProof | None
) -> list[str]:
    problems = []
    if record.leaf_index != record.seq - 1:
        problems.append(f"leaf_index {record.leaf_index} is not seq - 1")
    if not hmac.compare_digest(link_hash(record.prev_hash, record.body), record.record_hash):
        problems.append("record_hash is not sha256(prev_hash || body)")
    if previous is not None and previous.seq + 1 == record.seq and previous.record_hash != record.prev_hash:
        problems.append("prev_hash is not the hash of the record before it")
    if previous is not None and record.seq <= previous.seq:
        problems.append("records are not in seq order")
    try:
        body = envelope(record.body)
    except msgspec.DecodeError as exc:
        problems.append(f"the body does not decode: {exc}")
    else:
        if (body.table_id, body.seq, body.keys.round_id) != (proof.table_id, record.seq, proof.round_id):
            problems.append(f"the body is seq {body.seq} of table {body.table_id}, round {body.keys.round_id}")
    if not verify_inclusion(record.record_hash, record.leaf_index, checkpoint.size, record.hashes, checkpoint.root):
        problems.append(f"not included in the checkpoint of {checkpoint.size} records")
    return problems


def check_consistency_proof(proof: ConsistencyProof, kept_note: str | bytes, verifier: Verifier) -> list[str]:
    """Does the proof's (signed) checkpoint extend the checkpoint an auditor kept from earlier?"""
    try:
        kept = open_table_checkpoint(kept_note, verifier, proof.table_id)
        new = open_table_checkpoint(proof.checkpoint, verifier, proof.table_id)
    except NoteError as exc:
        return [f"checkpoint: {exc}"]
    if (kept.size, new.size) != (proof.from_size, proof.to_size):
        return [f"the proof is {proof.from_size} -> {proof.to_size}, the checkpoints {kept.size} -> {new.size}"]
    if not verify_consistency(kept.size, new.size, kept.root, new.root, proof.hashes):
        return [f"the log of {new.size} records does not extend the kept checkpoint of {kept.size}: history changed"]
    return []


def check_root(checkpoint: Checkpoint, record_hashes: Sequence[bytes]) -> list[str]:
    """Recompute the checkpoint's root from the chain's record hashes (seq 1 first), as held now."""
    if len(record_hashes) < checkpoint.size:
        return [f"the chain holds {len(record_hashes)} records, the checkpoint {checkpoint.size}: truncated"]
    if not hmac.compare_digest(root(record_hashes[: checkpoint.size]), checkpoint.root):
        return [f"the first {checkpoint.size} records do not hash to the checkpoint's root: history changed"]
    return []
