"""The system chain's events: service start and stop, the settings in force, migrations, failed authentications,
and what happened to each dead letter of the outbox.

The system chain is a chain like a table's (the same `Record` envelope, canonical bytes and hash rule) kept in the
audit log under the reserved table id `SYSTEM_CHAIN_ID`; only its events differ, so it has its own tagged union.
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from audit.chain import Record

SYSTEM_CHAIN_ID = "00000000-0000-0000-0000-000000000000"  # the nil UUID: never a game table's id (those are v4)
# The system chain's records are schema 3: schema 2 with integers only (a start's sweep interval in milliseconds,
# where schema 2 wrote a float of seconds). Tables' and games' records, which never held a float, stay schema 2.
SYSTEM_SCHEMA = 3


class SettingsInForce(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """What changes how games are played, checked and anchored; never a secret (operator ids, not their secrets).

    A field at its default is left out of the bytes, so each schema's records hold only the sweep interval they wrote.
    """

    env: str
    allow_test_tables: bool
    signature_tolerance_seconds: int
    sweep_interval_ms: int | None = None  # schema 3: milliseconds (None: a schema-2 record)
    sweep_interval_seconds: float | None = None  # schema 2 only, read back from old records; never written again
    idempotency_retention_days: int
    checkpoint_every_records: int
    checkpoint_every_seconds: int
    recall_link_ttl_seconds: int
    operators: tuple[str, ...]
    auditors: tuple[str, ...]
    audit_key: str | None  # the verifier key checkpoints are signed for (public); None: checkpoints are off
    paytables: dict[str, str]  # every released paytable id and the sha256 of its terms
    rollback_grace_seconds: int | None = None  # how long a round may be rolled back (None: a record from before)


class _SystemEvent(msgspec.Struct, frozen=True, kw_only=True, tag_field="kind"):
    """Base of every system event; the subclass's tag is its record `kind`."""


class ServiceStarted(_SystemEvent, frozen=True, tag="service_started"):
    instance: str  # host and process id: one per worker
    version: str
    git_revision: str
    started_at: datetime
    settings: SettingsInForce


class ServiceStopped(_SystemEvent, frozen=True, tag="service_stopped"):
    instance: str
    version: str
    git_revision: str
    stopped_at: datetime


class MigrationApplied(_SystemEvent, frozen=True, tag="migration_applied"):
    version: str  # the migration file's name without .sql
    sha256: str  # of the file's UTF-8 text: what exactly ran
    applied_at: datetime


class AuthenticationFailed(_SystemEvent, frozen=True, tag="authentication_failed"):
    """Failed signatures from one address under one known operator id, or under every unknown one together; at most
    one record a minute per such bucket stands for `count`."""

    operator_id: str  # a configured operator's or auditor's id as sent; "" for every id the service does not know
    remote_address: str
    count: int
    first_at: datetime
    last_at: datetime


class SigningKeyRotated(_SystemEvent, frozen=True, tag="signing_key_rotated"):
    """The checkpoint signing key changes on purpose: from here on a service starts only with `new_key`."""

    old_key: str | None = None  # the verifier key last recorded before (None: none was)
    new_key: str = ""  # the verifier key of the key that signs from now on (public; never the private key)
    rotated_at: datetime | None = None


class DeadLetterParked(_SystemEvent, frozen=True, tag="dead_letter_parked"):
    """An outbox message given up on after too many attempts or too long: it waits for an operator."""

    message_id: str
    operator_id: str  # whose message (a notification's receiver)
    message_kind: str  # e.g. round.settled
    attempts: int
    reason: str  # the last attempt's failure
    parked_at: datetime


class DeadLetterRetried(_SystemEvent, frozen=True, tag="dead_letter_retried"):
    """An operator sent a dead letter back to be delivered (the same message id, a fresh count of attempts)."""

    message_id: str
    operator_id: str
    by: str  # who asked: the person at `reddog outbox retry`
    retried_at: datetime


class DeadLetterResolved(_SystemEvent, frozen=True, tag="dead_letter_resolved"):
    """An operator settled a dead letter by other means: it is never sent, and no longer holds back its round's."""

    message_id: str
    operator_id: str
    by: str
    note: str  # what was done instead
    resolved_at: datetime


class ForkAccepted(_SystemEvent, frozen=True, tag="fork_accepted"):
    """An operator let a chain go on from a head behind, or other than, a checkpoint already published (after an
    asynchronous failover or a restore): the checkpoint given up and the head the chain goes on from."""

    table_id: str  # the chain (a table's id, or the system chain's)
    by: str  # who decided: the person at `reddog audit accept-fork`
    note: str  # why, in their words
    lost_size: int  # the published checkpoint the database no longer holds
    lost_root: str  # its root, base64
    lost_note: str | None  # the signed note as handed out (None: the store kept an earlier decision, not a note)
    head_size: int  # the chain's head in the database, which goes on from here
    head_root: str  # the root over its records 1..head_size, base64
    accepted_at: datetime


SystemEvent = (
    ServiceStarted
    | ServiceStopped
    | MigrationApplied
    | AuthenticationFailed
    | SigningKeyRotated
    | DeadLetterParked
    | DeadLetterRetried
    | DeadLetterResolved
    | ForkAccepted
)

_decoder = msgspec.json.Decoder(Record[SystemEvent])


def decode_system_record(body: bytes) -> Record[SystemEvent]:
    """A system chain record's bytes back as the record with its typed event."""
    return _decoder.decode(body)


class _KeysInForce(msgspec.Struct, frozen=True):
    audit_key: str | None = None


class _KeyNamed(msgspec.Struct, frozen=True):
    settings: _KeysInForce | None = None  # a start's
    new_key: str | None = None  # a rotation's


class _RecordNamingKey(msgspec.Struct, frozen=True):
    event: _KeyNamed


_key_decoder = msgspec.json.Decoder(_RecordNamingKey)


def key_named(body: bytes) -> str | None:
    """The signing key a start or a rotation record says is in force, if any; only those fields are read, so a start
    recorded by an older release (fewer settings) still names its key."""
    event = _key_decoder.decode(body).event
    return event.new_key or (event.settings.audit_key if event.settings is not None else None)
