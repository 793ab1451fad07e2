"""C2SP signed notes (c2sp.org/signed-note) with Ed25519 keys, in the key and note text of Go's sumdb/note package.

A note is text ending in a newline, a blank line, then signature lines `— <key name> <base64(key id || signature)>`.
Keys travel as text: the verifier key `<name>+<key id hex>+<base64(0x01 || public key)>`, and the signer key
`PRIVATE+KEY+<name>+<key id hex>+<base64(0x01 || 32-byte seed)>`, which must stay secret.
"""

from __future__ import annotations

import base64
import hashlib
import re

import msgspec
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

ED25519 = 0x01  # the signature type byte of c2sp.org/signed-note
SIGNATURE_PREFIX = "\u2014 "  # em dash, space
MAX_SIGNATURES = 100  # the spec asks verifiers to accept at least 16; Go's note package stops at 100

_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f]")  # every ASCII control character but newline
_KEY_ID = re.compile(r"[0-9a-fA-F]{8}")


class NoteError(ValueError):
    """Why a note or a key was refused."""


class MalformedNote(NoteError):
    """The bytes are not a well-formed signed note."""


class MalformedKey(NoteError):
    """The key text is not a well-formed Ed25519 signer or verifier key."""


class UnknownKey(NoteError):
    """The note carries no signature by the key it was checked against."""


class BadSignature(NoteError):
    """A signature names the trusted key but does not verify: the note was changed or forged."""


class Signature(msgspec.Struct, frozen=True, kw_only=True):
    """One signature line, not yet verified."""

    name: str
    key_id: int
    signature: bytes


class Verifier(msgspec.Struct, frozen=True, kw_only=True):
    """A trusted Ed25519 public key and the name it signs under."""

    name: str
    key_id: int
    public_key: bytes

    @property
    def key(self) -> str:
        """The verifier key text, `<name>+<key id hex>+<base64(0x01 || public key)>`, to publish."""
        return f"{self.name}+{self.key_id:08x}+{_b64(bytes([ED25519]) + self.public_key)}"


class Signer(msgspec.Struct, frozen=True, kw_only=True):
    """A named Ed25519 private key; its repr never shows the key."""

    name: str
    key_id: int
    private_key: Ed25519PrivateKey

    @property
    def verifier(self) -> Verifier:
        public = self.private_key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        return Verifier(name=self.name, key_id=self.key_id, public_key=public)


class KeyPair(msgspec.Struct, frozen=True, kw_only=True):
    """A new key as text: the signer key for the key file, the verifier key to publish."""

    signer_key: str
    verifier_key: str


def key_id(name: str, public_key: bytes) -> int:
    """SHA-256(key name || 0x0A || 0x01 || 32-byte public key)[:4], big-endian: the spec's Ed25519 key ID."""
    digest = hashlib.sha256(name.encode() + b"\n" + bytes([ED25519]) + public_key).digest()
    return int.from_bytes(digest[:4], "big")


def generate_key(name: str, seed: bytes) -> KeyPair:
    """A key from 32 bytes of the caller's CSPRNG (e.g. `os.urandom(32)`): the pure core draws no randomness."""
    if not is_valid_name(name):
        raise MalformedKey(f"a key name must be non-empty, without spaces, '+' or control characters: {name!r}")
    if len(seed) != 32:
        raise MalformedKey("an Ed25519 seed is 32 bytes")
    verifier = _signer(name, seed).verifier
    signer_key = f"PRIVATE+KEY+{name}+{verifier.key_id:08x}+{_b64(bytes([ED25519]) + seed)}"
    return KeyPair(signer_key=signer_key, verifier_key=verifier.key)


def parse_signer(text: str) -> Signer:
    """The signer in a key file's text (surrounding whitespace ignored), its key ID checked against the key."""
    key = text.strip()
    if not key.startswith("PRIVATE+KEY+"):
        raise MalformedKey("a signer key starts with PRIVATE+KEY+")
    name, claimed_id, seed = _split_key(key.removeprefix("PRIVATE+KEY+"))
    signer = _signer(name, seed)
    if signer.key_id != claimed_id:
        raise MalformedKey(f"the signer key says key ID {claimed_id:08x}, its key has {signer.key_id:08x}")
    return signer


def parse_verifier(text: str) -> Verifier:
    """The verifier in a verifier key's text (surrounding whitespace ignored), its key ID checked against the key."""
    name, claimed_id, public_key = _split_key(text.strip())
    if key_id(name, public_key) != claimed_id:
        raise MalformedKey(f"the verifier key says key ID {claimed_id:08x}, its key has {key_id(name, public_key):08x}")
    try:
        Ed25519PublicKey.from_public_bytes(public_key)
    except ValueError:
        raise MalformedKey("the verifier key is not an Ed25519 public key") from None
    return Verifier(name=name, key_id=claimed_id, public_key=public_key)


def sign_note(text: str, signer: Signer) -> str:
    """The note: `text`, a blank line, and one signature line by `signer`."""
    if not text.endswith("\n") or _CONTROL.search(text):
        raise MalformedNote("note text must end in a newline and hold no control character but newline")
    signature = signer.private_key.sign(text.encode())
    return f"{text}\n{SIGNATURE_PREFIX}{signer.name} {_b64(signer.key_id.to_bytes(4, 'big') + signature)}\n"


def open_note(note: str | bytes, verifier: Verifier) -> str:
    """The note's text once `verifier`'s signature on it checks; other keys' signatures are ignored, per the spec."""
    text, signatures = parse_note(note)
    ours = [s for s in signatures if (s.name, s.key_id) == (verifier.name, verifier.key_id)]
    if not ours:
        found = ", ".join(f"{s.name}+{s.key_id:08x}" for s in signatures)
        raise UnknownKey(f"no signature by {verifier.name}+{verifier.key_id:08x} (signed by {found})")
    public_key = Ed25519PublicKey.from_public_bytes(verifier.public_key)
    for signature in ours:
        try:
            public_key.verify(signature.signature, text.encode())
        except InvalidSignature:
            raise BadSignature(f"the signature by {verifier.name}+{verifier.key_id:08x} does not verify") from None
    return text


def parse_note(note: str | bytes) -> tuple[str, list[Signature]]:
    """Split a note into its text and signature lines, strictly: UTF-8, no stray bytes, every line ended."""
    message = _decode(note)
    if _CONTROL.search(message):
        raise MalformedNote("a note may hold no control character but newline")
    split = message.rfind("\n\n")
    if split < 0:
        raise MalformedNote("no blank line between the text and the signatures")
    text, block = message[: split + 1], message[split + 2 :]
    if not block.endswith("\n"):
        raise MalformedNote("the signature lines must follow the blank line, each ended by a newline")
    lines = block[:-1].split("\n")
    if len(lines) > MAX_SIGNATURES:
        raise MalformedNote(f"more than {MAX_SIGNATURES} signatures")
    return text, [_parse_signature(line) for line in lines]


def is_valid_name(name: str) -> bool:
    """Non-empty, with no Unicode space, plus sign or control character: the spec's rule for key names."""
    return bool(name) and "+" not in name and not any(c.isspace() or c < " " for c in name)


def _parse_signature(line: str) -> Signature:
    if not line.startswith(SIGNATURE_PREFIX):
        raise MalformedNote(f"a signature line starts with an em dash and a space: {line[:40]!r}")
    name, _, encoded = line[len(SIGNATURE_PREFIX) :].partition(" ")
    raw = canonical_b64decode(encoded)
    if not is_valid_name(name) or raw is None or len(raw) < 5:
        raise MalformedNote(f"a signature line is `— <key name> <base64 of key ID and signature>`: {line[:40]!r}")
    return Signature(name=name, key_id=int.from_bytes(raw[:4], "big"), signature=raw[4:])


def _split_key(text: str) -> tuple[str, int, bytes]:
    """`<name>+<key id hex>+<base64(0x01 || 32 bytes)>` -> name, key ID, the 32 bytes (base64 may hold '+')."""
    name, _, rest = text.partition("+")
    hex_id, _, encoded = rest.partition("+")
    raw = canonical_b64decode(encoded)
    if not is_valid_name(name) or not _KEY_ID.fullmatch(hex_id) or raw is None:
        raise MalformedKey("a key is <name>+<8 hex digits>+<base64>")
    if len(raw) != 33 or raw[0] != ED25519:
        raise MalformedKey("not an Ed25519 key (type byte 0x01 and 32 bytes)")
    return name, int(hex_id, 16), raw[1:]


def _signer(name: str, seed: bytes) -> Signer:
    private_key = Ed25519PrivateKey.from_private_bytes(seed)
    public = private_key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    return Signer(name=name, key_id=key_id(name, public), private_key=private_key)


def _decode(note: str | bytes) -> str:
    try:
        message = note.decode() if isinstance(note, bytes) else note
        message.encode()  # a str may hold lone surrogates, which are no UTF-8 at all
    except UnicodeError:
        raise MalformedNote("a note is UTF-8") from None
    return message


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def canonical_b64decode(text: str) -> bytes | None:
    """Standard padded base64, and only its one canonical spelling: a changed character never decodes the same."""
    try:
        raw = base64.b64decode(text, validate=True)
    except ValueError:
        return None
    return raw if _b64(raw) == text else None
