"""The offline proof checker on the worked example of docs/audit-checkpoints.md: its values come from the page (worked
by hand with sha256sum), not from the code that makes proofs."""

from __future__ import annotations

import base64
import hashlib

import msgspec

from audit.checkpoint import Checkpoint, sign_checkpoint
from audit.proof_check import (
    ConsistencyProof,
    check_consistency_proof,
    check_root,
    open_table_checkpoint,
    table_origin,
)
from audit.signed_note import generate_key, parse_signer, parse_verifier

TABLE = "00000000-0000-4000-8000-000000000001"
PAIR = generate_key("reddog.example/audit", bytes(range(32)))  # the page's demonstration key
SIGNER, VERIFIER = parse_signer(PAIR.signer_key), parse_verifier(PAIR.verifier_key)
HASHES = [hashlib.sha256(f"record {i}".encode()).digest() for i in (1, 2, 3)]
# The page's checkpoint of the three records, byte for byte.
NOTE_3 = (
    "reddog.example/audit/table/00000000-0000-4000-8000-000000000001\n3\n"
    "mnsYFpKU6iMibbzxjqgMRxTcbR9ZTO7vPBOBwSSAen4=\n\n"
    "\u2014 reddog.example/audit 27ktw+Wji/Uf1MUg2CpoAnTnhBT0NZHoOXg6tD6V13EHGGm7zcQ61k7oKswNBKwU4p3gWekEQpXwTSKP8i3y"
    "KAAvOQI=\n"
)
# The page's consistency proof from 2 records to 3: the leaf hash of record 3.
PROOF_2_3 = ConsistencyProof(
    table_id=TABLE,
    from_size=2,
    to_size=3,
    hashes=(base64.b64decode("DwpZfQTwZXbHqrqrHLv6QQdA9/oG4oMqoUmhrL2rN1I="),),
    checkpoint=NOTE_3,
)


def leaf(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def note_of(size: int, root: bytes) -> str:
    return sign_checkpoint(Checkpoint(origin=table_origin(SIGNER.name, TABLE), size=size, root=root), SIGNER)


def test_a_tables_origin_is_the_key_name_then_table_then_its_id() -> None:
    assert table_origin("reddog.example/audit", TABLE) == f"reddog.example/audit/table/{TABLE}"
    assert open_table_checkpoint(NOTE_3, VERIFIER, TABLE).size == 3


def test_the_pages_consistency_proof_shows_three_records_extend_the_first_two() -> None:
    kept = note_of(2, node(leaf(HASHES[0]), leaf(HASHES[1])))  # MTH of two leaves, by hand
    assert check_consistency_proof(PROOF_2_3, kept, VERIFIER) == []


def test_a_kept_checkpoint_over_another_second_record_is_not_extended() -> None:
    rewritten = node(leaf(HASHES[0]), leaf(hashlib.sha256(b"record 2, changed").digest()))
    problems = check_consistency_proof(PROOF_2_3, note_of(2, rewritten), VERIFIER)
    assert problems == ["the log of 3 records does not extend the kept checkpoint of 2: history changed"]


def test_sizes_that_do_not_match_the_checkpoints_are_refused_before_any_hashing() -> None:
    kept = note_of(1, leaf(HASHES[0]))
    assert check_consistency_proof(PROOF_2_3, kept, VERIFIER) == ["the proof is 2 -> 3, the checkpoints 1 -> 3"]


def test_a_checkpoint_of_another_table_is_refused() -> None:
    other = msgspec.structs.replace(PROOF_2_3, table_id="00000000-0000-4000-8000-000000000002")
    (problem,) = check_consistency_proof(other, NOTE_3, VERIFIER)
    assert problem.startswith("checkpoint: the checkpoint is of 'reddog.example/audit/table/00000000-0000-4000-8000-0")


def test_recomputing_the_root_catches_a_changed_or_missing_record() -> None:
    checkpoint = open_table_checkpoint(NOTE_3, VERIFIER, TABLE)
    assert check_root(checkpoint, HASHES) == []
    assert check_root(checkpoint, [*HASHES, bytes(32)]) == []  # the log grew: the first three still match
    assert check_root(checkpoint, [HASHES[0], HASHES[2], HASHES[1]]) != []
    assert check_root(checkpoint, HASHES[:2]) == ["the chain holds 2 records, the checkpoint 3: truncated"]
