"""Checkpoints: real published ones from Go's checksum database verify, ours are exact bytes, and parsing is strict."""

from __future__ import annotations

import base64
import hashlib
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from audit.checkpoint import (
    Checkpoint,
    MalformedCheckpoint,
    WrongOrigin,
    checkpoint_text,
    open_checkpoint,
    parse_checkpoint_text,
    sign_checkpoint,
)
from audit.merkle import build, root
from audit.signed_note import (
    BadSignature,
    NoteError,
    UnknownKey,
    generate_key,
    parse_signer,
    parse_verifier,
    sign_note,
)

# Go's checksum database signs its tree heads as checkpoints; its verifier key is compiled into the go command
# (golang/go src/cmd/go/internal/modfetch/key.go, knownGOSUMDB). Two of its published checkpoints: one from a
# `curl https://sum.golang.org/lookup/...` in the README of andrew-j-price/journey, one quoted in Sigsum's proposal to
# adopt the checkpoint format. Both were signed by Google's key, which nobody here holds: an independent check.
SUMDB_KEY = "sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8"
SUMDB_ORIGIN = "go.sum database tree"
SUMDB_CHECKPOINTS = [
    (
        "go.sum database tree\n10680630\nk1UQFwFXWQa7MF1BREWVQxIhScvUdgRepXuyRS3sRuE=\n\n\u2014 sum.golang.org "
        "Az3grqgyWctiMcdUtITQpkGSxEoEvbaAq7J3FpbaVlW1Zo47LX/jmeeE7LiBktpmR2d/1RsdocLU9HMXYXxHCVyf/AQ=\n",
        10680630,
        "k1UQFwFXWQa7MF1BREWVQxIhScvUdgRepXuyRS3sRuE=",
    ),
    (
        "go.sum database tree\n15368405\n/g9am3I6YWNKaZX/jkne1fqd9zEyjss+JXyPXG0WfkY=\n\n\u2014 sum.golang.org "
        "Az3grqJGUaSGukG9p8nI2vKgiFn7qGHxn0W+mrwyI6Gz3F0t1J3LzmWk/p96Ybf295EjwdSwlzgijq5WA9d1Ded7owM=\n",
        15368405,
        "/g9am3I6YWNKaZX/jkne1fqd9zEyjss+JXyPXG0WfkY=",
    ),
]

ORIGIN = "reddog.example/audit/table/7d3c0c1e-5b0a-4e8e-9a51-2f1b8c6d4e0f"
PAIR = generate_key("reddog.example/audit", bytes(range(32)))
SIGNER, VERIFIER = parse_signer(PAIR.signer_key), parse_verifier(PAIR.verifier_key)
ROOT = root([bytes([i]) * 32 for i in range(5)])
CHECKPOINT = Checkpoint(origin=ORIGIN, size=5, root=ROOT)


@pytest.mark.parametrize(("note", "size", "root_b64"), SUMDB_CHECKPOINTS)
def test_checkpoints_published_by_go_s_checksum_database_verify(note: str, size: int, root_b64: str) -> None:
    checkpoint = open_checkpoint(note, parse_verifier(SUMDB_KEY), origin=SUMDB_ORIGIN)
    assert checkpoint == Checkpoint(origin=SUMDB_ORIGIN, size=size, root=base64.b64decode(root_b64))


def test_a_checksum_database_checkpoint_with_its_size_changed_is_refused() -> None:
    forged = SUMDB_CHECKPOINTS[0][0].replace("10680630", "10680629")
    with pytest.raises(BadSignature):
        open_checkpoint(forged, parse_verifier(SUMDB_KEY), origin=SUMDB_ORIGIN)


def test_a_checkpoint_is_exactly_origin_size_and_base64_root_on_three_lines_then_one_signature() -> None:
    note = sign_checkpoint(CHECKPOINT, SIGNER)
    text = f"{ORIGIN}\n5\n{base64.b64encode(ROOT).decode()}\n"
    assert checkpoint_text(CHECKPOINT) == text
    signature = base64.b64decode(note.rsplit(" ", 1)[1])
    assert note == f"{text}\n\u2014 reddog.example/audit {base64.b64encode(signature).decode()}\n"
    assert signature[:4] == VERIFIER.key_id.to_bytes(4, "big")
    assert len(signature) == 4 + 64


def test_a_signed_checkpoint_opens_to_itself() -> None:
    assert open_checkpoint(sign_checkpoint(CHECKPOINT, SIGNER), VERIFIER, origin=ORIGIN) == CHECKPOINT
    empty = Checkpoint(origin=ORIGIN, size=0, root=root([]))
    assert open_checkpoint(sign_checkpoint(empty, SIGNER), VERIFIER, origin=ORIGIN) == empty


def test_a_checkpoint_of_another_table_is_refused() -> None:
    other = Checkpoint(origin="reddog.example/audit/table/another", size=5, root=ROOT)
    with pytest.raises(WrongOrigin, match="another"):
        open_checkpoint(sign_checkpoint(other, SIGNER), VERIFIER, origin=ORIGIN)


def test_a_checkpoint_signed_by_another_key_is_refused() -> None:
    stranger = parse_signer(generate_key("reddog.example/audit", bytes(32)).signer_key)
    with pytest.raises(UnknownKey):
        open_checkpoint(sign_checkpoint(CHECKPOINT, stranger), VERIFIER, origin=ORIGIN)


@given(st.data())
def test_any_changed_byte_in_a_checkpoint_makes_it_fail(data: st.DataObject) -> None:
    note = sign_checkpoint(CHECKPOINT, SIGNER).encode()
    at = data.draw(st.integers(0, len(note) - 1))
    byte = data.draw(st.integers(0, 255).filter(lambda b: b != note[at]))
    with pytest.raises(NoteError):
        open_checkpoint(note[:at] + bytes([byte]) + note[at + 1 :], VERIFIER, origin=ORIGIN)


ROOT_B64 = base64.b64encode(ROOT).decode()


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (f"{ORIGIN}\n5\n{ROOT_B64}\nextension\n", "no extension lines"),
        (f"{ORIGIN}\n5\n{ROOT_B64}\n\n", "no extension lines"),  # a second blank line
        (f"{ORIGIN}\n5\n\n{ROOT_B64}\n", "three lines"),
        (f"{ORIGIN}\n5\n", "three lines"),
        (f"\n5\n{ROOT_B64}\n", "origin line is empty"),
        (f"{ORIGIN}\n05\n{ROOT_B64}\n", "leading zeros"),
        (f"{ORIGIN}\n+5\n{ROOT_B64}\n", "leading zeros"),
        (f"{ORIGIN}\n-5\n{ROOT_B64}\n", "leading zeros"),
        (f"{ORIGIN}\n 5\n{ROOT_B64}\n", "leading zeros"),
        (f"{ORIGIN}\n\uff15\n{ROOT_B64}\n", "leading zeros"),  # a fullwidth digit five
        (f"{ORIGIN}\n{2**63}\n{ROOT_B64}\n", "below 2\\^63"),
        (f"{ORIGIN}\n5\n{base64.b64encode(ROOT[:31]).decode()}\n", "root is not"),
        (f"{ORIGIN}\n5\n{ROOT_B64.rstrip('=')}\n", "root is not"),
        (f"{ORIGIN}\n5\n{ROOT.hex()}\n", "root is not"),
    ],
)
def test_a_signed_text_that_is_not_exactly_a_checkpoint_is_refused(text: str, reason: str) -> None:
    with pytest.raises(MalformedCheckpoint, match=reason):
        parse_checkpoint_text(text)


def test_the_strict_reading_applies_to_signed_notes_too() -> None:
    note = sign_note(f"{ORIGIN}\n05\n{ROOT_B64}\n", SIGNER)  # validly signed, but not a checkpoint
    with pytest.raises(MalformedCheckpoint):
        open_checkpoint(note, VERIFIER, origin=ORIGIN)


@pytest.mark.parametrize(
    "checkpoint",
    [
        Checkpoint(origin="", size=5, root=ROOT),
        Checkpoint(origin="has space", size=5, root=ROOT),
        Checkpoint(origin="two\nlines", size=5, root=ROOT),
        Checkpoint(origin=ORIGIN, size=-1, root=ROOT),
        Checkpoint(origin=ORIGIN, size=5, root=ROOT[:31]),
    ],
)
def test_only_a_well_formed_checkpoint_is_signed(checkpoint: Checkpoint) -> None:
    with pytest.raises(MalformedCheckpoint):
        sign_checkpoint(checkpoint, SIGNER)


def test_the_worked_example_in_docs_audit_checkpoints_is_what_the_code_makes() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "audit-checkpoints.md").read_text(encoding="utf-8")
    record_hashes = [hashlib.sha256(f"record {n}".encode()).digest() for n in (1, 2, 3)]
    tree = build(record_hashes)
    pair = generate_key("reddog.example/audit", bytes(range(32)))
    origin = "reddog.example/audit/table/00000000-0000-4000-8000-000000000001"
    note = sign_checkpoint(Checkpoint(origin=origin, size=3, root=tree.root()), parse_signer(pair.signer_key))
    b64 = [base64.b64encode(h).decode() for h in (*tree.inclusion_proof(1, 3), *tree.consistency_proof(2, 3))]
    shown = [f"```\n{note}```", pair.verifier_key, pair.signer_key, *(h.hex() for h in record_hashes), *b64]
    assert [text for text in shown if text not in doc] == []
