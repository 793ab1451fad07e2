"""C2SP tlog-checkpoints (c2sp.org/tlog-checkpoint): a log's origin, tree size and RFC 6962 root, as a signed note.

The note text is exactly three lines, `<origin>\\n<size in decimal>\\n<base64 of the 32-byte root>\\n`; these logs
write no extension lines and refuse notes that have them.
"""

from __future__ import annotations

import base64
import re

import msgspec

from audit.merkle import HASH_SIZE
from audit.signed_note import (
    MalformedNote,
    NoteError,
    Signer,
    Verifier,
    canonical_b64decode,
    is_valid_name,
    open_note,
    sign_note,
)

MAX_SIZE = 2**63 - 1  # Go's tlog and note readers hold a size in an int64
_SIZE = re.compile(r"0|[1-9][0-9]{0,18}")  # ASCII decimal, no sign, no leading zero


class MalformedCheckpoint(MalformedNote):
    """The note is signed but its text is not a checkpoint."""


class WrongOrigin(NoteError):
    """A valid checkpoint, but of another log (another table)."""


class Checkpoint(msgspec.Struct, frozen=True, kw_only=True):
    """A signed statement that the log `origin` held `size` records whose Merkle root is `root`."""

    origin: str
    size: int
    root: bytes


def checkpoint_text(checkpoint: Checkpoint) -> str:
    """The signed bytes: origin, size and base64 root, each line ending in a newline."""
    if not is_valid_name(checkpoint.origin):
        raise MalformedCheckpoint(f"an origin is non-empty, without spaces, '+' or controls: {checkpoint.origin!r}")
    if not 0 <= checkpoint.size <= MAX_SIZE or len(checkpoint.root) != HASH_SIZE:
        raise MalformedCheckpoint(f"a checkpoint has a size in [0, 2^63) and a {HASH_SIZE}-byte root")
    return f"{checkpoint.origin}\n{checkpoint.size}\n{base64.b64encode(checkpoint.root).decode('ascii')}\n"


def sign_checkpoint(checkpoint: Checkpoint, signer: Signer) -> str:
    """The checkpoint as a signed note, ready to publish."""
    return sign_note(checkpoint_text(checkpoint), signer)


def open_checkpoint(note: str | bytes, verifier: Verifier, *, origin: str) -> Checkpoint:
    """The checkpoint once the note is well-formed, signed by `verifier` and of the log `origin`; else a NoteError."""
    checkpoint = parse_checkpoint_text(open_note(note, verifier))
    if checkpoint.origin != origin:
        raise WrongOrigin(f"the checkpoint is of {checkpoint.origin!r}, not {origin!r}")
    return checkpoint


def parse_checkpoint_text(text: str) -> Checkpoint:
    """A checkpoint's three lines, read strictly: the one spelling `checkpoint_text` writes is the only one taken."""
    lines = text.split("\n")
    if len(lines) != 4 or lines[3]:
        raise MalformedCheckpoint("a checkpoint is three lines, origin, size and root, with no extension lines")
    origin, size, root = lines[:3]
    if not origin:
        raise MalformedCheckpoint("the origin line is empty")
    if not _SIZE.fullmatch(size) or int(size) > MAX_SIZE:
        raise MalformedCheckpoint(f"the size is not a decimal number below 2^63 without leading zeros: {size!r}")
    raw = canonical_b64decode(root)
    if raw is None or len(raw) != HASH_SIZE:
        raise MalformedCheckpoint(f"the root is not the base64 of {HASH_SIZE} bytes: {root!r}")
    return Checkpoint(origin=origin, size=int(size), root=raw)
