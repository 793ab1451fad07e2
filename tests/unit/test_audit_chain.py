"""The audit hash chain: canonical bytes, extending a chain, and verify catching every kind of tampering."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

import msgspec

from audit.chain import GENESIS, Link, Record, canonical, envelope, extend, link_hash, verify
from paytables.red_dog.events import CardDealt, RoundVoided

TABLE = "table-a"
AT = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def record(seq: int, *, table_id: str = TABLE) -> Record[CardDealt]:
    event = CardDealt(round_id="r1", position=seq, card="7D", shoe_index=seq - 1, commitment="c0ffee")
    return Record(table_id=table_id, seq=seq, recorded_at=AT, test=False, event=event)


def chain(count: int = 4) -> list[Link]:
    return extend(GENESIS, [record(seq) for seq in range(1, count + 1)])


def rehashed(link: Link, *, prev_hash: bytes | None = None, body: bytes | None = None) -> Link:
    """What a forger who recomputes the hash would write: the link is self-consistent, only the chain can tell."""
    prev = link.prev_hash if prev_hash is None else prev_hash
    data = link.body if body is None else body
    return msgspec.structs.replace(link, prev_hash=prev, body=data, hash=hashlib.sha256(prev + data).digest())


def test_genesis_is_thirty_two_zero_bytes() -> None:
    assert GENESIS == b"\x00" * 32


def test_canonical_bytes_are_json_with_sorted_keys_no_whitespace_utf8_and_utc_times_with_z() -> None:
    event = RoundVoided(round_id="r1", reason="Kartenfehler ü", voided_at=AT.replace(microsecond=5), actor="op")
    r = Record(table_id="t1", seq=7, recorded_at=AT, test=True, event=event)
    assert canonical(r) == (
        b'{"event":{"actor":"op","kind":"round_voided","reason":"Kartenfehler \xc3\xbc","round_id":"r1",'
        b'"voided_at":"2024-05-01T12:00:00.000005Z"},"recorded_at":"2024-05-01T12:00:00Z","schema":2,"seq":7,'
        b'"table_id":"t1","test":true}'
    )
    keys = envelope(canonical(r))
    assert (keys.schema, keys.seq, keys.table_id, keys.keys.kind, keys.keys.round_id) == (
        2,
        7,
        "t1",
        "round_voided",
        "r1",
    )


def test_a_schema_one_record_still_reads_and_verifies() -> None:
    old = (
        b'{"bet_id":"r1.1","kind":"bet_settled","payload":{"net":-20},"recorded_at":"2024-05-01T12:00:00Z",'
        b'"round_id":"r1","seq":1,"table_id":"table-a","test":false}'
    )
    link = Link(seq=1, prev_hash=GENESIS, hash=link_hash(GENESIS, old), body=old)
    assert verify([link], table_id=TABLE).ok
    keys = envelope(old)
    assert (keys.schema, keys.keys.kind, keys.keys.round_id, keys.keys.bet_id) == (1, "bet_settled", "r1", "r1.1")


def test_each_link_hashes_the_previous_hash_then_the_record_bytes() -> None:
    links = chain(3)
    assert links[0].prev_hash == GENESIS
    for before, link in zip([GENESIS, *(x.hash for x in links)], links, strict=False):
        assert link.prev_hash == before
        assert link.hash == hashlib.sha256(before + link.body).digest() == link_hash(before, link.body)
    assert [link.seq for link in links] == [1, 2, 3]


def test_an_extended_chain_verifies_and_reports_its_head() -> None:
    links = chain(4)
    report = verify(links, table_id=TABLE)
    assert (report.ok, report.records, report.head, report.error) == (True, 4, links[-1].hash.hex(), None)


def test_extending_from_the_head_continues_the_same_chain() -> None:
    first = chain(2)
    more = extend(first[-1].hash, [record(3), record(4)])
    assert verify([*first, *more], table_id=TABLE).ok
    assert [link.hash for link in [*first, *more]] == [link.hash for link in chain(4)]


def test_an_empty_chain_verifies_with_the_genesis_head() -> None:
    assert verify([]) == verify([], table_id=TABLE)
    assert (verify([]).ok, verify([]).records, verify([]).head) == (True, 0, GENESIS.hex())


def test_a_changed_body_byte_is_caught() -> None:
    links = chain()
    body = bytearray(links[1].body)
    body[body.index(b"7D")] = ord("8")  # the seven of diamonds becomes an eight
    links[1] = msgspec.structs.replace(links[1], body=bytes(body))
    report = verify(links)
    assert (report.ok, report.records, report.head) == (False, 1, links[0].hash.hex())
    assert report.error == "seq 2: hash does not match the record's bytes"


def test_a_changed_hash_is_caught() -> None:
    links = chain()
    links[2] = msgspec.structs.replace(links[2], hash=bytes(32))
    report = verify(links)
    assert (report.ok, report.records) == (False, 2)
    assert report.error == "seq 3: hash does not match the record's bytes"


def test_a_broken_prev_hash_is_caught_even_when_the_link_rehashes_itself() -> None:
    links = chain()
    links[2] = rehashed(links[2], prev_hash=hashlib.sha256(b"elsewhere").digest())
    report = verify(links)
    assert (report.ok, report.records) == (False, 2)
    assert report.error == "seq 3: prev_hash does not match the previous record's hash"


def test_a_rewritten_record_with_a_recomputed_hash_breaks_the_next_link() -> None:
    links = chain()
    forged = msgspec.structs.replace(record(2), event=msgspec.structs.replace(record(2).event, card="AS"))
    links[1] = rehashed(links[1], body=canonical(forged))
    report = verify(links)
    assert (report.ok, report.records) == (False, 2)
    assert report.error == "seq 3: prev_hash does not match the previous record's hash"


def test_a_first_record_that_does_not_start_from_genesis_is_caught() -> None:
    links = chain()
    links[0] = rehashed(links[0], prev_hash=b"\x01" * 32)
    report = verify(links)
    assert (report.ok, report.records, report.head) == (False, 0, GENESIS.hex())
    assert report.error == "seq 1: prev_hash does not match the previous record's hash"


def test_a_missing_record_is_caught_as_a_gap() -> None:
    links = chain()
    del links[1]
    report = verify(links)
    assert (report.ok, report.records) == (False, 1)
    assert report.error == "seq 3 where 2 was expected (a gap or a reorder)"


def test_a_chain_that_does_not_start_at_one_is_caught() -> None:
    report = verify(chain()[1:])
    assert (report.ok, report.records) == (False, 0)
    assert report.error == "seq 2 where 1 was expected (a gap or a reorder)"


def test_two_swapped_records_are_caught_as_a_reorder() -> None:
    links = chain()
    links[1], links[2] = links[2], links[1]
    report = verify(links)
    assert (report.ok, report.records) == (False, 1)
    assert report.error == "seq 3 where 2 was expected (a gap or a reorder)"


def test_a_record_of_another_table_is_caught_when_the_table_is_named() -> None:
    links = extend(GENESIS, [record(1), record(2, table_id="table-b"), record(3)])
    assert verify(links).ok  # the chain alone is consistent: only the table id tells
    report = verify(links, table_id=TABLE)
    assert (report.ok, report.records) == (False, 1)
    assert report.error == "seq 2: the body names seq 2 of table table-b"


def test_a_whole_chain_of_another_table_is_refused_for_this_one() -> None:
    report = verify(extend(GENESIS, [record(1, table_id="table-b")]), table_id=TABLE)
    assert (report.ok, report.records) == (False, 0)


def test_a_body_naming_another_seq_than_its_row_is_caught() -> None:
    links = chain(3)
    links[1] = rehashed(links[1], body=canonical(record(5)))
    links[2] = rehashed(links[2], prev_hash=links[1].hash)
    report = verify(links)
    assert (report.ok, report.records) == (False, 1)
    assert report.error == f"seq 2: the body names seq 5 of table {TABLE}"


def test_a_body_that_is_not_a_record_is_caught() -> None:
    links = chain(2)
    links[1] = rehashed(links[1], body=b'{"not": "a record"}')
    report = verify(links)
    assert (report.ok, report.records) == (False, 1)
    assert (report.error or "").startswith("seq 2: body does not decode")
