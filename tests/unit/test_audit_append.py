"""Appending to a chain: seq follows the head, and recorded_at never goes backwards whatever the clock says."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from audit.chain import GENESIS
from audit.records import decode_record
from audit.verify_export import verify_links
from paytables.red_dog.events import TableClosed
from service.db.audit_sql import GENESIS_HEAD, append

TABLE = uuid.UUID(int=7)
T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def test_records_continue_the_head_and_carry_the_time_given() -> None:
    writes, head = append(TABLE, GENESIS_HEAD, [TableClosed(closed_at=T0, actor="op")], test=False, now=T0)
    (insert,) = writes
    _, seqs, prev_hashes, hashes, stamps, _, _, _, _, bodies = insert.args
    assert (seqs, prev_hashes[0], stamps) == ([1], GENESIS, [T0])
    assert (head.seq, head.hash, head.recorded_at) == (1, hashes[0], T0)
    assert decode_record(bodies[0]).recorded_at == T0


def test_a_clock_that_reads_earlier_than_the_last_record_does_not_move_the_chain_back() -> None:
    _, head = append(TABLE, GENESIS_HEAD, [TableClosed(closed_at=T0, actor="op")], test=False, now=T0)
    earlier = T0 - timedelta(milliseconds=80)  # another replica's clock, or a reading taken before a lock wait
    writes, later_head = append(TABLE, head, [TableClosed(closed_at=earlier, actor="op")], test=False, now=earlier)
    body = writes[0].args[9][0]
    assert decode_record(body).recorded_at == T0
    assert later_head.recorded_at == T0
    assert later_head.seq == 2


def test_appending_nothing_writes_nothing() -> None:
    assert append(TABLE, GENESIS_HEAD, [], test=False, now=T0) == ([], GENESIS_HEAD)


def test_appended_links_verify_as_a_chain() -> None:
    from audit.chain import Link

    writes, _ = append(TABLE, GENESIS_HEAD, [TableClosed(closed_at=T0, actor="a")] * 3, test=True, now=T0)
    args = writes[0].args
    links = [
        Link(seq=s, prev_hash=p, hash=h, body=b) for s, p, h, b in zip(args[1], args[2], args[3], args[9], strict=True)
    ]
    assert verify_links(str(TABLE), links).ok
