"""Audit records read back with their typed events: what a replay and the auditors' tools start from.

Unlike the chain itself, this module knows the games: it imports the events of the pure game core.
"""

from __future__ import annotations

import msgspec

from audit.chain import Record
from paytables.inbetween.inbetween_events import InBetweenEvent
from paytables.red_dog.events import Event

_decoder = msgspec.json.Decoder(Record[Event])
_inbetween_decoder = msgspec.json.Decoder(Record[InBetweenEvent])


def decode_record(body: bytes) -> Record[Event]:
    """A schema-2 record's bytes back as the record with its typed event."""
    return _decoder.decode(body)


def decode_inbetween_record(body: bytes) -> Record[InBetweenEvent]:
    """A record of an In Between game's chain back with its typed `ib_…` event (what `replay` takes)."""
    return _inbetween_decoder.decode(body)
