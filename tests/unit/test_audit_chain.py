"""The audit hash chain: canonical bytes, extending a chain, and the one chain check catching every kind of tampering
(`verify_links`, the export verifier fed a chain's links)."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime

import msgspec

from audit.chain import GENESIS, Link, Record, canonical, envelope, extend, link_hash
from audit.verify_export import FaultKind, VerifyReport, verify_links
from paytables.red_dog.events import CardDealt, RoundVoided

TABLE = "table-a"
AT = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def record(seq: int, *, table_id: str = TABLE) -> Record[CardDealt]:
    event = CardDealt(round_id="r1", position=seq, card="7D", shoe_index=seq - 1, commitment="c0ffee")
    return Record(table_id=table_id, seq=seq, recorded_at=AT, test=False, event=event)


def first_fault(report: VerifyReport) -> tuple[FaultKind, int | None, str]:
    """What broke the chain first: how, at which seq, and the words the report uses."""
    assert not report.ok
    (table,) = report.tables
    assert table.first_broken is not None
    return table.first_broken.kind, table.first_broken.seq, table.first_broken.detail


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
    assert verify_links(TABLE, [link]).ok
    keys = envelope(old)
    assert (keys.schema, keys.keys.kind, keys.keys.round_id, keys.keys.bet_id) == (1, "bet_settled", "r1", "r1.1")


def test_each_link_hashes_the_previous_hash_then_the_record_bytes() -> None:
    links = chain(3)
    assert links[0].prev_hash == GENESIS
    for before, link in zip([GENESIS, *(x.hash for x in links)], links, strict=False):
        assert link.prev_hash == before
        assert link.hash == hashlib.sha256(before + link.body).digest() == link_hash(before, link.body)
    assert [link.seq for link in links] == [1, 2, 3]


def test_an_extended_chain_verifies_to_its_last_seq() -> None:
    report = verify_links(TABLE, chain(4))
    assert (report.ok, report.records, report.faults) == (True, 4, [])
    assert (report.tables[0].last_seq, report.tables[0].first_broken) == (4, None)


def test_extending_from_the_head_continues_the_same_chain() -> None:
    first = chain(2)
    more = extend(first[-1].hash, [record(3), record(4)])
    assert verify_links(TABLE, [*first, *more]).ok
    assert [link.hash for link in [*first, *more]] == [link.hash for link in chain(4)]


def test_an_empty_chain_verifies() -> None:
    report = verify_links(TABLE, [])
    assert (report.ok, report.records) == (True, 0)


def test_a_changed_body_byte_is_caught() -> None:
    links = chain()
    body = bytearray(links[1].body)
    body[body.index(b"7D")] = ord("8")  # the seven of diamonds becomes an eight
    links[1] = msgspec.structs.replace(links[1], body=bytes(body))
    assert first_fault(verify_links(TABLE, links)) == (
        FaultKind.CHANGED,
        2,
        "seq 2: its body no longer hashes to its hash (changed)",
    )


def test_a_changed_hash_is_caught() -> None:
    links = chain()
    links[2] = msgspec.structs.replace(links[2], hash=bytes(32))
    assert first_fault(verify_links(TABLE, links))[:2] == (FaultKind.CHANGED, 3)


def test_a_broken_prev_hash_is_caught_even_when_the_link_rehashes_itself() -> None:
    links = chain()
    links[2] = rehashed(links[2], prev_hash=hashlib.sha256(b"elsewhere").digest())
    kind, seq, detail = first_fault(verify_links(TABLE, links))
    assert (kind, seq) == (FaultKind.CHANGED, 2)
    assert detail == "seq 3 links to another record than seq 2: seq 2 was changed and re-hashed"


def test_a_rewritten_record_with_a_recomputed_hash_breaks_the_next_link() -> None:
    links = chain()
    forged = msgspec.structs.replace(record(2), event=msgspec.structs.replace(record(2).event, card="AS"))
    links[1] = rehashed(links[1], body=canonical(forged))
    assert first_fault(verify_links(TABLE, links)) == (
        FaultKind.CHANGED,
        2,
        "seq 3 links to another record than seq 2: seq 2 was changed and re-hashed",
    )


def test_a_first_record_that_does_not_start_from_genesis_is_caught() -> None:
    links = chain()
    links[0] = rehashed(links[0], prev_hash=b"\x01" * 32)
    assert first_fault(verify_links(TABLE, links)) == (
        FaultKind.CHANGED,
        1,
        "seq 1 does not start from the genesis hash (32 zero bytes)",
    )


def test_a_missing_record_is_caught_as_a_gap() -> None:
    links = chain()
    del links[1]
    assert first_fault(verify_links(TABLE, links)) == (FaultKind.MISSING, 2, "seq 2 is missing: seq 3 follows 1")


def test_a_chain_that_does_not_start_at_one_is_caught() -> None:
    assert first_fault(verify_links(TABLE, chain()[1:])) == (
        FaultKind.MISSING,
        1,
        "seq 1 is missing: seq 2 follows 0",
    )


def test_two_swapped_records_are_caught_as_a_reorder() -> None:
    links = chain()
    links[1], links[2] = links[2], links[1]
    kind, seq, detail = first_fault(verify_links(TABLE, links))
    assert (kind, seq) == (FaultKind.REORDERED, 2)
    assert detail.startswith("seq 2 comes later in the export")


def test_a_record_of_another_table_is_caught() -> None:
    links = extend(GENESIS, [record(1), record(2, table_id="table-b"), record(3)])
    assert first_fault(verify_links(TABLE, links)) == (
        FaultKind.INSERTED,
        2,
        "seq 2: the body is a record of table table-b",
    )


def test_a_whole_chain_of_another_table_is_refused_for_this_one() -> None:
    assert first_fault(verify_links(TABLE, extend(GENESIS, [record(1, table_id="table-b")])))[:2] == (
        FaultKind.INSERTED,
        1,
    )


def test_a_body_naming_another_seq_than_its_row_is_caught() -> None:
    links = chain(3)
    links[1] = rehashed(links[1], body=canonical(record(5)))
    links[2] = rehashed(links[2], prev_hash=links[1].hash)
    assert first_fault(verify_links(TABLE, links)) == (
        FaultKind.MISSING,
        2,
        "seq 2: the body says seq 5: records before it were removed and the rest renumbered",
    )


def test_a_body_that_is_not_a_record_is_caught() -> None:
    links = chain(2)
    links[1] = rehashed(links[1], body=b'{"not": "a record"}')
    assert first_fault(verify_links(TABLE, links)) == (FaultKind.CHANGED, 2, "seq 2: the body is not an audit record")
