"""Offline verify of an export: it names the first broken record of each chain and what broke it."""

from __future__ import annotations

import hashlib
import io
import random
from collections.abc import Callable

import msgspec
import pytest

from audit.chain import GENESIS, extend
from audit.checkpoint import Checkpoint, sign_checkpoint
from audit.export_format import (
    BadLine,
    CheckpointLine,
    ExportEnd,
    Line,
    RecordLine,
    TableHead,
    encode_lines,
    read_lines,
    record_line,
)
from audit.merkle import root
from audit.records import decode_record
from audit.signed_note import Signer, generate_key, parse_signer, parse_verifier
from audit.verify_export import ExportVerifier, FaultKind, VerifyReport, verify_lines
from paytables.red_dog.events import BetSettled
from shoe.shoe import ShoePolicy
from tests.support.audit_play import TablePlay, export, line_of, mixed_play, settings

KEY = generate_key("reddog.example/audit", bytes(range(32)))
SIGNER = parse_signer(KEY.signer_key)
VERIFIER = parse_verifier(KEY.verifier_key)
ORIGIN = "reddog.example/audit/table/"


def make_tables() -> list[TablePlay]:
    rng = random.Random(20260301)
    per_round = TablePlay(settings("standard/v1"), rng)
    mixed_play(rng, 12, per_round)
    cut_card = TablePlay(settings("post-double/v1", decks=1, policy=ShoePolicy.CUT_CARD, penetration=50), rng)
    mixed_play(rng, 20, cut_card)
    cut_card.close()
    return [per_round, cut_card]


TABLES = make_tables()


def signed(table: TablePlay, size: int, signer: Signer = SIGNER, origin: str | None = None) -> CheckpointLine:
    hashes = [link.hash for link in table.links[:size]]
    note = sign_checkpoint(Checkpoint(origin=origin or ORIGIN + table.table_id, size=size, root=root(hashes)), signer)
    return CheckpointLine(table_id=table.table_id, size=size, note=note)


def with_checkpoints(lines: list[Line], checkpoints: list[CheckpointLine]) -> list[Line]:
    """The checkpoint lines right after their table's head line, where the export puts them."""
    out: list[Line] = []
    for line in lines:
        out.append(line)
        if type(line) is TableHead:
            out.extend(c for c in checkpoints if c.table_id == line.table_id)
    return out


def clean() -> list[Line]:
    first, second = TABLES
    checkpoints = [signed(first, 5), signed(first, len(first.links)), signed(second, 17), signed(second, 40)]
    return with_checkpoints(export(TABLES), checkpoints)


def at(lines: list[Line], table: TablePlay, seq: int) -> int:
    """The index of a table's record line with this seq."""
    return next(
        i for i, x in enumerate(lines) if type(x) is RecordLine and x.table_id == table.table_id and x.seq == seq
    )


def record(lines: list[Line], table: TablePlay, seq: int) -> RecordLine:
    found = lines[at(lines, table, seq)]
    assert type(found) is RecordLine
    return found


def changed(lines: list[Line], table: TablePlay, seq: int, change: Callable[[RecordLine], RecordLine]) -> list[Line]:
    out = list(lines)
    index = at(out, table, seq)
    line = out[index]
    assert type(line) is RecordLine
    out[index] = change(line)
    return out


def _with(field: str, value: object) -> Callable[[RecordLine], RecordLine]:
    return lambda line: msgspec.structs.replace(line, **{field: value})


def _with_body(body: bytes) -> Callable[[RecordLine], RecordLine]:
    return lambda line: msgspec.structs.replace(line, body=msgspec.Raw(body))


def _writable(line: Line | BadLine) -> bool:
    """A line an export could hold: a body written as JSON must be JSON (else the exporter writes base64)."""
    if type(line) is not RecordLine or line.encoding != "json":
        return True
    try:
        msgspec.json.decode(bytes(line.body))
    except msgspec.DecodeError:
        return False
    return True


def check(lines: list[Line] | list[Line | BadLine]) -> VerifyReport:
    """Verify the lines as objects (as `--db` does) and as the bytes of a file (as `verify FILE` does): one verdict."""
    report = verify_lines(lines, VERIFIER)
    decoded = [x for x in lines if type(x) is not BadLine]
    if len(decoded) == len(lines) and all(_writable(x) for x in decoded):
        checker = ExportVerifier(VERIFIER)
        checker.feed_bytes(encode_lines(decoded).splitlines(keepends=True))  # type: ignore[arg-type]
        assert checker.report() == report
    return report


def only_break(report: VerifyReport, table: TablePlay) -> tuple[FaultKind, int | None]:
    summary = next(t for t in report.tables if t.table_id == table.table_id)
    assert summary.first_broken is not None, report.faults
    assert not report.ok
    return summary.first_broken.kind, summary.first_broken.seq


def test_a_clean_export_verifies_with_every_checkpoint_matched_and_signed() -> None:
    report = check(clean())
    assert report.ok, report.faults
    assert report.records == sum(len(t.links) for t in TABLES)
    assert (report.checkpoints, report.checkpoints_matched, report.signatures_checked) == (4, 4, True)
    assert [t.last_seq for t in report.tables] == [len(t.links) for t in TABLES]


def test_checkpoints_that_arrive_after_some_of_their_records_still_match_as_a_paged_read_brings_them() -> None:
    # The API serves a table's records page by page, each page with only the checkpoints it reaches: a checkpoint of
    # size 17 can come after records 1..10 have gone by, and must still be checked against all seventeen.
    first, second = TABLES
    lines = with_checkpoints(export(TABLES), [signed(second, 17)])
    late = signed(first, len(first.links))
    lines.insert(at(lines, first, 10) + 1, late)
    report = check(lines)
    assert report.ok, report.faults
    assert (report.checkpoints, report.checkpoints_matched) == (2, 2)


def test_an_export_survives_its_own_file_format_byte_for_byte() -> None:
    lines = clean()
    back = list(read_lines(io.BytesIO(encode_lines(lines))))
    assert back == lines
    assert check(back).ok


def test_every_byte_of_a_record_body_is_covered_by_the_hash() -> None:
    table = TABLES[0]
    lines = clean()
    for seq in (1, 3, 7):  # table_created, a card, and whatever came seventh
        body = bytes(record(lines, table, seq).body)
        for i in range(0, len(body), 3):
            flipped = body[:i] + bytes([body[i] ^ 0x01]) + body[i + 1 :]
            tampered = changed(lines, table, seq, _with_body(flipped))
            assert only_break(check(tampered), table) == (FaultKind.CHANGED, seq), (seq, i)


def _paid_more(body: bytes) -> bytes:
    """A settled bet's body that pays one unit more: the change a forger who keeps the difference makes."""
    event = decode_record(body).event
    assert isinstance(event, BetSettled)
    more = body.replace(f'"payout":{event.payout},'.encode(), f'"payout":{event.payout + 1},'.encode())
    assert more != body
    return more


def test_a_changed_payout_is_a_changed_record() -> None:
    table = TABLES[1]
    seq = next(i + 1 for i, r in enumerate(table.records) if isinstance(r.event, BetSettled) and r.event.payout)
    more = _paid_more(bytes(record(clean(), table, seq).body))
    tampered = changed(clean(), table, seq, _with_body(more))
    assert only_break(check(tampered), table) == (FaultKind.CHANGED, seq)


@pytest.mark.parametrize(
    "column",
    ["kind", "round_id", "bet_id", "recorded_at", "test"],
)
def test_a_column_that_disagrees_with_the_body_is_caught_and_named(column: str) -> None:
    table = TABLES[0]
    seq = next(i + 1 for i, r in enumerate(table.records) if isinstance(r.event, BetSettled))
    line = record(clean(), table, seq)
    wrong: dict[str, object] = {
        "kind": "round_voided",
        "round_id": "00000000-0000-4000-8000-000000000000",
        "bet_id": f"{line.round_id}.9",
        "recorded_at": line.recorded_at.replace(microsecond=1),
        "test": not line.test,
    }
    report = check(changed(clean(), table, seq, _with(column, wrong[column])))
    assert [(f.kind, f.seq) for f in report.faults] == [(FaultKind.COLUMN, seq)]
    assert f"column {column}" in report.faults[0].detail


def test_a_changed_hash_column_or_prev_hash_column_is_caught_at_its_record() -> None:
    table = TABLES[0]
    other = hashlib.sha256(b"x").hexdigest()
    for field in ("hash", "prev_hash"):
        tampered = changed(clean(), table, 6, _with(field, other))
        assert only_break(check(tampered), table) == (FaultKind.CHANGED, 6), field


def test_a_deleted_record_is_missing() -> None:
    table = TABLES[0]
    lines = clean()
    del lines[at(lines, table, 9)]
    assert only_break(check(lines), table) == (FaultKind.MISSING, 9)


def test_a_record_removed_and_the_rest_renumbered_is_missing() -> None:
    table = TABLES[0]
    lines = clean()
    del lines[at(lines, table, 9)]
    for seq in range(10, len(table.links) + 1):
        lines = changed(lines, table, seq, lambda x: msgspec.structs.replace(x, seq=x.seq - 1))
    assert only_break(check(lines), table) == (FaultKind.MISSING, 9)


def _linked(template: RecordLine, body: bytes) -> RecordLine:
    """A forged record that links where `template` does, its hash computed over its own bytes."""
    digest = hashlib.sha256(bytes.fromhex(template.prev_hash) + body).hexdigest()
    return msgspec.structs.replace(template, body=msgspec.Raw(body), hash=digest)


def _other_bytes(body: bytes) -> bytes:
    """The same record in other bytes (a space before a key): a record that was never chained."""
    return body.replace(b',"table_id"', b', "table_id"', 1)


def test_a_record_changed_and_rehashed_without_checkpoints_is_named_by_its_successors_link() -> None:
    # A forger who holds the file drops the checkpoint lines (which would name the change) and re-hashes the record
    # they changed from its own prev_hash, so it checks alone. Only its successor, left as it was, gives it away: that
    # record's prev_hash is still the old hash. The verifier names the changed record, not the successor.
    table = TABLES[1]
    seq = next(i + 1 for i, r in enumerate(table.records) if isinstance(r.event, BetSettled) and r.event.payout)
    assert seq < len(table.records)  # a successor to hold the old link
    lines = [x for x in clean() if type(x) is not CheckpointLine]
    tampered = changed(lines, table, seq, lambda line: _linked(line, _paid_more(bytes(line.body))))
    assert record(tampered, table, seq + 1) == record(lines, table, seq + 1)
    report = check(tampered)
    assert report.checkpoints == 0
    assert only_break(report, table) == (FaultKind.CHANGED, seq)
    assert report.faults[0].detail == (
        f"seq {seq + 1} links to another record than seq {seq}: seq {seq} was changed and re-hashed"
    )


def test_an_inserted_record_that_claims_a_seq_is_inserted() -> None:
    table = TABLES[0]
    lines = clean()
    original = record(lines, table, 9)
    lines.insert(at(lines, table, 9), _linked(original, _other_bytes(bytes(original.body))))
    assert only_break(check(lines), table) == (FaultKind.INSERTED, 9)


def test_an_inserted_record_with_the_rest_renumbered_is_inserted() -> None:
    table = TABLES[0]
    lines = clean()
    original = record(lines, table, 9)
    forged = _linked(original, _other_bytes(bytes(original.body)))
    for later in range(len(table.links), 8, -1):
        lines = changed(lines, table, later, lambda x: msgspec.structs.replace(x, seq=x.seq + 1))
    lines.insert(at(lines, table, 10), forged)
    assert only_break(check(lines), table) == (FaultKind.INSERTED, 10)


def test_two_swapped_records_are_reordered() -> None:
    table = TABLES[1]
    lines = clean()
    a, b = at(lines, table, 12), at(lines, table, 13)
    lines[a], lines[b] = lines[b], lines[a]
    assert only_break(check(lines), table) == (FaultKind.REORDERED, 12)


def test_a_chain_cut_short_is_truncated_against_its_head() -> None:
    table = TABLES[0]
    lines = clean()
    last = len(table.links)
    del lines[at(lines, table, last - 1) : at(lines, table, last) + 1]
    report = check(lines)
    assert only_break(report, table) == (FaultKind.TRUNCATED, last - 1)


def test_a_chain_cut_short_with_its_head_rewritten_is_truncated_against_a_checkpoint() -> None:
    table = TABLES[1]
    lines = clean()  # the cut-card table has a checkpoint of size 40
    kept = 30
    cut = [x for x in lines if not (type(x) is RecordLine and x.table_id == table.table_id and x.seq > kept)]
    new_head = TableHead(
        table_id=table.table_id, operator_id=table.operator, seq=kept, hash=table.links[kept - 1].hash.hex()
    )
    cut = [new_head if type(x) is TableHead and x.table_id == table.table_id else x for x in cut]
    cut = [
        msgspec.structs.replace(x, records=x.records - (len(table.links) - kept)) if type(x) is ExportEnd else x
        for x in cut
    ]
    report = check(cut)
    assert [(f.kind, f.seq) for f in report.faults] == [(FaultKind.TRUNCATED, kept + 1)]
    assert "size 40" in report.faults[0].detail


def test_a_checkpoint_with_a_bad_signature_is_refused() -> None:
    table = TABLES[0]
    good = signed(table, 5)
    note = good.note
    signature = note.rsplit(" ", 1)[1]
    flipped = signature[:10] + ("A" if signature[10] != "A" else "B") + signature[11:]
    lines = with_checkpoints(export(TABLES), [msgspec.structs.replace(good, note=note.replace(signature, flipped))])
    report = check(lines)
    assert [f.kind for f in report.faults] == [FaultKind.CHECKPOINT]
    assert "BadSignature" in report.faults[0].detail or "Malformed" in report.faults[0].detail


def test_a_checkpoint_signed_by_another_key_or_of_another_table_is_refused() -> None:
    table = TABLES[0]
    stranger = parse_signer(generate_key("reddog.example/audit", bytes(32)).signer_key)
    lines = with_checkpoints(
        export(TABLES), [signed(table, 5, stranger), signed(table, 6, origin=ORIGIN + TABLES[1].table_id)]
    )
    details = [f.detail for f in check(lines).faults]
    assert len(details) == 2
    assert "UnknownKey" in details[0]
    assert TABLES[1].table_id in details[1]


def test_without_a_public_key_signatures_are_not_checked_but_the_roots_are() -> None:
    report = verify_lines(clean())
    assert report.ok
    assert (report.signatures_checked, report.checkpoints_matched) == (False, 4)


def test_an_owners_rechained_rewrite_passes_alone_but_not_against_a_kept_checkpoint() -> None:
    table = TABLES[1]
    seq = next(i + 1 for i, r in enumerate(table.records) if isinstance(r.event, BetSettled) and i > 20)
    records = list(table.records)
    event = records[seq - 1].event
    assert isinstance(event, BetSettled)
    records[seq - 1] = msgspec.structs.replace(
        records[seq - 1], event=msgspec.structs.replace(event, payout=event.payout + 100, net=event.net + 100)
    )
    links = extend(GENESIS, records)
    rewritten: list[Line] = [
        TableHead(table_id=table.table_id, operator_id=table.operator, seq=len(links), hash=links[-1].hash.hex()),
        *(line_of(link, r) for link, r in zip(links, records, strict=True)),
    ]
    assert verify_lines(rewritten, VERIFIER).ok  # the chain is consistent: only an anchor can tell
    kept = signed(table, 40)
    report = verify_lines([kept, *rewritten], VERIFIER)
    assert [(f.kind, f.seq) for f in report.faults] == [(FaultKind.CHANGED, 1)]
    assert f"seq 1..{40}" in report.faults[0].detail
    with_earlier = verify_lines([signed(table, seq - 1), kept, *rewritten], VERIFIER)
    assert [(f.kind, f.seq) for f in with_earlier.faults] == [(FaultKind.CHANGED, seq)]


def test_a_file_cut_short_or_holding_a_bad_line_is_malformed() -> None:
    lines = clean()
    assert [f.kind for f in check(lines[:-1]).faults] == [FaultKind.MALFORMED]
    bad: list[Line | BadLine] = [*lines[:3], BadLine(number=4, error="not JSON"), *lines[3:]]
    report = check(bad)
    assert [f.kind for f in report.faults] == [FaultKind.MALFORMED]


def test_a_body_that_is_not_json_travels_as_base64_and_still_verifies() -> None:
    line = record_line(
        table_id="t",
        seq=1,
        prev_hash=GENESIS,
        hash=hashlib.sha256(GENESIS + b"\xff\n").digest(),
        recorded_at=TABLES[0].records[0].recorded_at,
        kind="x",
        round_id=None,
        bet_id=None,
        test=False,
        body=b"\xff\n",
    )
    assert line.encoding == "base64"
    back = list(read_lines(io.BytesIO(encode_lines([line]))))
    report = verify_lines(back)
    assert [(f.kind, f.seq) for f in report.faults] == [(FaultKind.CHANGED, 1)]  # hashes, but is no record
    assert "not an audit record" in report.faults[0].detail
