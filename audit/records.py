"""Audit records read back with their typed events: what a replay and the auditors' tools start from.

Unlike the chain itself, this module knows the game: it imports the events of the pure game core.
"""

from __future__ import annotations

import msgspec

from audit.chain import Record
from paytables.events import Event

_decoder = msgspec.json.Decoder(Record[Event])


def decode_record(body: bytes) -> Record[Event]:
    """A schema-2 record's bytes back as the record with its typed event."""
    return _decoder.decode(body)
