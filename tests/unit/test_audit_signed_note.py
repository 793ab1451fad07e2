"""Signed notes: Go's published example verifies and is reproduced byte for byte; any change to a note is refused."""

from __future__ import annotations

import base64
import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from audit.signed_note import (
    BadSignature,
    MalformedKey,
    MalformedNote,
    NoteError,
    UnknownKey,
    generate_key,
    key_id,
    open_note,
    parse_note,
    parse_signer,
    parse_verifier,
    sign_note,
)

# The worked example in the documentation of Go's golang.org/x/mod/sumdb/note package (sumdb/note/note.go, "Here is a
# well-formed signed note"), the reference implementation of c2sp.org/signed-note.
GO_VERIFIER_KEY = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
GO_SIGNER_KEY = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
GO_TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n"
GO_SIGNATURE = "x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM="
GO_NOTE = f"{GO_TEXT}\n\u2014 PeterNeumann {GO_SIGNATURE}\n"
# The same docs re-sign it with a second key, EnochRoot, whose verifier key they do not publish.
GO_ENOCH_LINE = (
    "\u2014 EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n"
)

SEED = bytes(range(32))
OTHER_SEED = bytes(range(1, 33))


def test_the_go_example_keys_parse_and_belong_together() -> None:
    verifier = parse_verifier(GO_VERIFIER_KEY)
    signer = parse_signer(GO_SIGNER_KEY + "\n")  # as read from a key file
    assert (verifier.name, verifier.key_id) == ("PeterNeumann", 0xC74F20A3)
    assert signer.verifier == verifier
    assert verifier.key == GO_VERIFIER_KEY


def test_the_key_id_is_the_first_four_bytes_of_the_hash_of_name_newline_type_and_key() -> None:
    public_key = base64.b64decode(GO_VERIFIER_KEY.split("+", 2)[2])[1:]
    by_hand = hashlib.sha256(b"PeterNeumann\n\x01" + public_key).hexdigest()[:8]
    assert by_hand == "c74f20a3"
    assert key_id("PeterNeumann", public_key) == int(by_hand, 16)


def test_the_go_example_note_verifies() -> None:
    assert open_note(GO_NOTE, parse_verifier(GO_VERIFIER_KEY)) == GO_TEXT
    assert open_note(GO_NOTE.encode(), parse_verifier(GO_VERIFIER_KEY)) == GO_TEXT


def test_signing_the_go_example_text_reproduces_its_published_note_byte_for_byte() -> None:
    # Ed25519 is deterministic, so the same key and text must give the very same signature Go printed.
    assert sign_note(GO_TEXT, parse_signer(GO_SIGNER_KEY)) == GO_NOTE


def test_a_second_signature_by_an_unknown_key_is_ignored_as_the_spec_requires() -> None:
    assert open_note(GO_NOTE + GO_ENOCH_LINE, parse_verifier(GO_VERIFIER_KEY)) == GO_TEXT
    _, signatures = parse_note(GO_NOTE + GO_ENOCH_LINE)
    assert [s.name for s in signatures] == ["PeterNeumann", "EnochRoot"]


def test_a_generated_key_signs_notes_its_verifier_key_opens() -> None:
    pair = generate_key("reddog.example/audit", SEED)
    assert pair.signer_key.startswith("PRIVATE+KEY+reddog.example/audit+")
    assert pair.verifier_key.startswith("reddog.example/audit+")
    assert pair.signer_key.split("+")[3] == pair.verifier_key.split("+")[1]  # the same key ID in both
    signer, verifier = parse_signer(pair.signer_key), parse_verifier(pair.verifier_key)
    assert signer.verifier == verifier
    assert open_note(sign_note("hello\n", signer), verifier) == "hello\n"


def test_a_note_signed_by_another_key_is_refused_even_under_the_same_name() -> None:
    ours = parse_verifier(generate_key("reddog.example/audit", SEED).verifier_key)
    theirs = parse_signer(generate_key("reddog.example/audit", OTHER_SEED).signer_key)
    with pytest.raises(UnknownKey, match=r"no signature by reddog.example/audit\+[0-9a-f]{8}"):
        open_note(sign_note("hello\n", theirs), ours)


def test_a_signature_that_claims_the_trusted_key_but_was_made_by_another_is_a_bad_signature() -> None:
    ours = parse_signer(generate_key("reddog.example/audit", SEED).signer_key)
    theirs = parse_signer(generate_key("reddog.example/audit", OTHER_SEED).signer_key)
    forged = ours.key_id.to_bytes(4, "big") + theirs.private_key.sign(b"hello\n")
    note = f"hello\n\n\u2014 reddog.example/audit {base64.b64encode(forged).decode()}\n"
    with pytest.raises(BadSignature, match="does not verify"):
        open_note(note, ours.verifier)


def mutations(note: bytes) -> st.SearchStrategy[bytes]:
    """The note with one byte replaced, removed, or inserted, anywhere."""
    at = st.integers(0, len(note) - 1)
    byte = st.integers(0, 255)
    replaced = st.tuples(at, byte).filter(lambda p: note[p[0]] != p[1])
    return st.one_of(
        replaced.map(lambda p: note[: p[0]] + bytes([p[1]]) + note[p[0] + 1 :]),
        at.map(lambda i: note[:i] + note[i + 1 :]),
        st.tuples(st.integers(0, len(note)), byte).map(lambda p: note[: p[0]] + bytes([p[1]]) + note[p[0] :]),
    )


@given(mutations(GO_NOTE.encode()))
def test_any_changed_removed_or_inserted_byte_makes_the_note_fail(changed: bytes) -> None:
    with pytest.raises(NoteError):
        open_note(changed, parse_verifier(GO_VERIFIER_KEY))


@pytest.mark.parametrize(
    ("note", "reason"),
    [
        (GO_TEXT + "\u2014 PeterNeumann " + GO_SIGNATURE + "\n", "no blank line"),
        (GO_NOTE + "trailing", "ended by a newline"),
        (GO_NOTE[:-1], "ended by a newline"),
        (GO_NOTE + "\n", "ended by a newline"),
        (GO_NOTE.replace("\n", "\r\n"), "control character"),
        (GO_NOTE.replace("\u2014", "-"), "em dash"),
        (GO_NOTE.replace("\u2014 ", "\u2014  "), "signature line is"),
        (GO_NOTE.replace("PeterNeumann ", "Peter+Neumann "), "signature line is"),
        (GO_NOTE.replace("=\n", "\n"), "signature line is"),  # padding is not optional
        (GO_NOTE.replace("nAM=", "nAN="), "signature line is"),  # the same bytes, spelled another way
        (GO_NOTE.replace(GO_SIGNATURE, "x08g"), "signature line is"),  # a key ID and no signature
        (GO_NOTE + GO_ENOCH_LINE * 100, "more than 100"),
        (GO_NOTE.encode()[:-3] + b"\xff\n", "UTF-8"),
        ("If you think\ud800\n" + GO_NOTE, "UTF-8"),
    ],
)
def test_a_malformed_note_is_refused_with_its_reason(note: str | bytes, reason: str) -> None:
    with pytest.raises(MalformedNote, match=reason):
        open_note(note, parse_verifier(GO_VERIFIER_KEY))


@pytest.mark.parametrize(
    ("key", "reason"),
    [
        ("PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", "key ID c74f20a4"),
        ("PeterNeumann+c74f20a+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", "8 hex digits"),
        ("Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", "8 hex digits"),
        ("PeterNeumann+c74f20a3+AhpcQcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", "8 hex digits"),
        ("PeterNeumann+c74f20a3+Ahpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", "not an Ed25519 key"),
        ("PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10Q=", "not an Ed25519 key"),
        ("PeterNeumann+c74f20a3", "not an Ed25519 key"),
        (GO_SIGNER_KEY, "8 hex digits"),
    ],
)
def test_a_malformed_verifier_key_is_refused_with_its_reason(key: str, reason: str) -> None:
    with pytest.raises(MalformedKey, match=reason):
        parse_verifier(key)


@pytest.mark.parametrize(
    ("key", "reason"),
    [
        (GO_VERIFIER_KEY, "starts with PRIVATE"),
        ("PRIVATE+KEY+PeterNeumann+c74f20a4+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz", "key ID c74f20a4"),
        ("PRIVATE+KEY+PeterNeumann+c74f20a3+AoEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz", "not an Ed25519 key"),
        ("private+key+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz", "starts with PRIVATE"),
    ],
)
def test_a_malformed_signer_key_is_refused_with_its_reason(key: str, reason: str) -> None:
    with pytest.raises(MalformedKey, match=reason):
        parse_signer(key)


def test_a_signer_never_shows_its_private_key() -> None:
    seed_b64 = GO_SIGNER_KEY.split("+", 4)[4]
    shown = repr(parse_signer(GO_SIGNER_KEY))
    assert seed_b64 not in shown
    assert base64.b64decode(seed_b64)[1:].hex() not in shown


@pytest.mark.parametrize(("name", "seed"), [("", SEED), ("a b", SEED), ("a+b", SEED), ("a\tb", SEED), ("a", b"x")])
def test_a_key_needs_a_valid_name_and_a_32_byte_seed(name: str, seed: bytes) -> None:
    with pytest.raises(MalformedKey):
        generate_key(name, seed)


@pytest.mark.parametrize("text", ["no final newline", "", "a\rb\n", "tab\there\n"])
def test_only_newline_ended_text_without_control_characters_is_signed(text: str) -> None:
    with pytest.raises(MalformedNote):
        sign_note(text, parse_signer(GO_SIGNER_KEY))
