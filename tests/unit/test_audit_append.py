"""Appending to a chain: seq follows the head, and recorded_at never goes backwards whatever the clock says."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

from audit.chain import GENESIS
from audit.records import decode_record
from audit.verify_export import verify_links
from paytables.red_dog.events import TableClosed
from service.db.audit_sql import BATCH_MOST, GENESIS_HEAD, append, batch_starts

TABLE = uuid.UUID(int=7)
T0 = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)


def test_records_continue_the_head_and_carry_the_time_given() -> None:
    writes, head = append(TABLE, GENESIS_HEAD, [TableClosed(closed_at=T0, actor="op")], test=False, now=T0)
    (insert,) = writes
    _, stamp, _, first_seq, _, prev_hash, _, _, hashes, bodies = insert.args  # one batch: its values as scalars
    assert (first_seq, prev_hash, stamp) == (1, GENESIS, T0)
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
    first, prev, hashes, bodies = args[3], args[5], args[8], args[9]
    links = [
        Link(seq=first + i, prev_hash=p, hash=h, body=b)
        for i, (p, h, b) in enumerate(zip([prev, *hashes[:-1]], hashes, bodies, strict=True))
    ]
    assert verify_links(str(TABLE), links).ok


ROUND_A, ROUND_B = uuid.UUID(int=1), uuid.UUID(int=2)


def test_an_append_is_stored_in_one_batch_per_run_of_records_naming_the_same_round() -> None:
    # None, A, A, B, None, None: four runs starting at positions 0, 1, 3 and 4 (a run of no round is one too)
    assert batch_starts([None, ROUND_A, ROUND_A, ROUND_B, None, None]) == [0, 1, 3, 4]


def test_a_run_longer_than_a_batch_holds_is_cut_every_sixty_four_records() -> None:
    assert BATCH_MOST == 64  # the CHECK of migration 024 says 1 to 64
    assert batch_starts([ROUND_A] * 130) == [0, 64, 128]


def test_each_batch_of_an_append_names_its_first_seq_position_count_round_and_link() -> None:
    from paytables.red_dog.events import RoundSettled

    head = GENESIS_HEAD
    writes, head = append(TABLE, head, [TableClosed(closed_at=T0, actor="a")] * 2, test=False, now=T0)
    settled = RoundSettled(round_id=str(ROUND_A), outcome=None, settled_at=T0, total_net=0)
    writes, after = append(TABLE, head, [settled, settled, TableClosed(closed_at=T0, actor="a")], test=False, now=T0)
    _, _, _, first_seqs, ats, counts, round_ids, prev_hashes, _, _, hashes, _ = writes[0].args
    # records 3 and 4 name round A, record 5 none: two batches, at seqs 3 and 5, positions 1 and 3 of the arrays
    assert (first_seqs, ats, counts, round_ids) == ([3, 5], [1, 3], [2, 1], [ROUND_A, None])
    assert prev_hashes == [head.hash, hashes[1]]  # each batch's first record links to the record before it
    assert after.seq == 5
