"""The records a request appends are stored together (migration 024), and `audit_log` shows each one as the table of
that name held it: a chain begun one row a record (before the migration, or written by an older release through the
view) and continued in batches reads back as one chain, in order, byte for byte, whatever range a reader asks for."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import asyncpg
import pytest

from audit.chain import Link
from audit.verify_export import verify_links
from paytables.red_dog.events import RoundSettled, TableClosed
from service.db import audit_export_sql as export_sql
from service.db import execute_together
from service.db.audit_sql import BATCH_MOST, GENESIS_HEAD, AuditHead, append, select_chain, select_round_records

T0 = datetime(2026, 12, 4, 12, 0, tzinfo=UTC)


def settled(round_id: uuid.UUID) -> RoundSettled:
    return RoundSettled(round_id=str(round_id), outcome=None, settled_at=T0, total_net=0)


async def write_old_rows(db: asyncpg.Connection, chain: uuid.UUID, count: int) -> tuple[AuditHead, list[Link]]:
    """`count` records written as a release before migration 024 wrote them: one row each, into audit_log."""
    writes, head = append(chain, GENESIS_HEAD, [TableClosed(closed_at=T0, actor="old")] * count, test=True, now=T0)
    _, stamp, test, first, _, prev, kinds, _, hashes, bodies = writes[0].args
    links = [
        Link(seq=first + i, prev_hash=p, hash=h, body=b)
        for i, (p, h, b) in enumerate(zip([prev, *hashes[:-1]], hashes, bodies, strict=True))
    ]
    await db.execute(
        "INSERT INTO audit_log (table_id, seq, prev_hash, hash, recorded_at, kind, round_id, bet_id, test, body)"
        " SELECT $1, s, p, h, $5, k, NULL, NULL, $6, b FROM unnest($2::bigint[], $3::bytea[], $4::bytea[],"
        " $7::text[], $8::bytea[]) AS r(s, p, h, k, b)",
        chain,
        [link.seq for link in links],
        [link.prev_hash for link in links],
        [link.hash for link in links],
        stamp,
        test,
        kinds,
        [link.body for link in links],
    )
    return head, links


@pytest.fixture
async def mixed_chain(db: asyncpg.Connection) -> tuple[uuid.UUID, uuid.UUID, list[Link]]:
    """A chain of 3 old rows, then one append of 70 records of one round and 2 of none: batches of 64, 6 and 2."""
    chain, round_id = uuid.uuid4(), uuid.uuid4()
    head, old = await write_old_rows(db, chain, 3)
    events = [settled(round_id)] * 70 + [TableClosed(closed_at=T0, actor="new")] * 2
    writes, head = append(chain, head, events, test=True, now=T0)
    await execute_together(db, writes)
    links = await select_chain(db, chain)
    assert links[:3] == old  # the old rows, as they were written
    return chain, round_id, links


async def test_old_rows_and_batches_read_back_as_one_chain_that_verifies(
    db: asyncpg.Connection, mixed_chain: tuple[uuid.UUID, uuid.UUID, list[Link]]
) -> None:
    chain, _, links = mixed_chain
    assert [link.seq for link in links] == list(range(1, 76))
    assert verify_links(str(chain), links).ok
    stored = await db.fetch(
        "SELECT first_seq, cardinality(bodies) AS n FROM audit_batches WHERE table_id = $1 ORDER BY 1", chain
    )
    assert [(r["first_seq"], r["n"]) for r in stored] == [(4, BATCH_MOST), (68, 6), (74, 2)]
    assert await db.fetchval("SELECT count(*) FROM audit_rows WHERE table_id = $1", chain) == 3


async def test_a_round_s_records_are_found_by_its_id_whichever_batches_hold_them(
    db: asyncpg.Connection, mixed_chain: tuple[uuid.UUID, uuid.UUID, list[Link]]
) -> None:
    _, round_id, links = mixed_chain
    assert await select_round_records(db, round_id) == [link.body for link in links[3:73]]


async def test_every_range_of_seqs_a_reader_asks_for_returns_exactly_the_records_in_it(
    db: asyncpg.Connection, mixed_chain: tuple[uuid.UUID, uuid.UUID, list[Link]]
) -> None:
    chain, _, links = mixed_chain
    by_seq = {link.seq: link for link in links}
    # Edges around every stored row's bounds (an old row, the batches at 4, 68 and 74) and past the chain's ends.
    edges = [0, 1, 2, 3, 4, 5, 66, 67, 68, 69, 72, 73, 74, 75, 76, 200]
    for after in edges:
        for last in edges:
            page = await export_sql.select_records(db, chain, after, last, 1000)
            expected = [s for s in sorted(by_seq) if after < s <= last]
            assert [r.seq for r in page] == expected, (after, last)
            assert [r.body for r in page] == [by_seq[s].body for s in expected]
            between = await export_sql.select_hashes(db, chain, after, last)
            assert between == [(s, by_seq[s].hash) for s in sorted(by_seq) if after < s < last], (after, last)
    assert [r.seq for r in await export_sql.select_records(db, chain, 5, 75, 3)] == [6, 7, 8]  # a page's limit
