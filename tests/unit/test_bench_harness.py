"""The benchmark harness's pure parts: percentiles, CPU arithmetic, statement capture and pgbench script writing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

import msgspec
import pytest

from bench import cpu_accounting as cpu
from bench.database_ceiling import ReplayRun, check, weights
from bench.latency import nearest_rank, summarise
from bench.pgbench_script import (
    CLIENT_TABLE,
    ROUND_UUID,
    SEQ_BASE,
    ParamType,
    Script,
    Variables,
    build_script,
    references,
    sample,
)
from bench.results_table import read_runs, row, update_document, write_result
from bench.statement_capture import CapturedRound, Statement, Transaction, match_rounds, transactions
from service.db.audit_sql import AuditHead
from service.db.table_sql import update_table
from tests.unit.test_architecture import imported_top_level_names

ROUND = UUID("6f1c2d3e-4a5b-4c6d-8e7f-901a2b3c4d5e")
TABLE = UUID("0a0b0c0d-0e0f-4011-8213-141516171819")
KEY_OPEN, KEY_DECIDE = "key-open-0001", "key-decide-0002"
HASH_1, HASH_2 = bytes(range(32)), bytes(range(1, 33))
NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_the_nearest_rank_percentile_of_one_to_a_hundred_is_the_percent_itself() -> None:
    values = list(range(1, 101))
    assert [nearest_rank(values, p) for p in (50, 95, 99, 100)] == [50, 95, 99, 100]


def test_the_nearest_rank_of_four_values_rounds_the_rank_up() -> None:
    # ranks: p50 -> ceil(2.0) = 2nd, p95 -> ceil(3.8) = 4th, p10 -> ceil(0.4) = 1st
    assert [nearest_rank([10, 20, 30, 40], p) for p in (50, 95, 10)] == [20, 40, 10]


def test_a_summary_reports_microseconds_as_milliseconds() -> None:
    summary = summarise([3000, 1000, 2000, 4000])
    assert (summary.count, summary.p50_ms, summary.p99_ms, summary.max_ms, summary.mean_ms) == (4, 2.0, 4.0, 4.0, 2.5)


def test_no_latencies_summarise_to_zeros_rather_than_failing() -> None:
    assert summarise([]).count == 0


def stat_line(pid: int, comm: str, ppid: int, utime: int, stime: int, cutime: int = 0, cstime: int = 0) -> str:
    # proc(5): pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ...
    return f"{pid} ({comm}) S {ppid} 1 1 0 -1 0 0 0 0 0 {utime} {stime} {cutime} {cstime} 20 0 1 0 99 0 0"


def test_a_process_name_with_spaces_and_parentheses_does_not_shift_the_fields() -> None:
    times = cpu.parse_process_stat(stat_line(42, "uvicorn (worker) 1)", 7, utime=300, stime=50, cutime=9, cstime=1))
    assert (times.pid, times.ppid, times.own, times.reaped_children) == (42, 7, 350, 10)


def test_the_machine_is_busy_for_all_but_idle_and_iowait() -> None:
    machine = cpu.parse_machine_stat("cpu  100 5 30 1000 7 2 3 4 0 0\ncpu0 1 1 1 1 1 1 1 1 0 0\n")
    assert (machine.busy, machine.total) == (100 + 5 + 30 + 2 + 3 + 4, 144 + 1000 + 7)


def snap(at: float, busy: int, *processes: tuple[int, int, int, int]) -> cpu.Snapshot:
    table = {
        pid: cpu.ProcessTimes(pid=pid, ppid=ppid, own=own, reaped_children=reaped)
        for pid, ppid, own, reaped in processes
    }
    return cpu.Snapshot(at=at, processes=table, machine=cpu.MachineTimes(busy=busy, total=busy * 4))


def test_a_tree_counts_its_live_processes_and_what_their_exited_children_used() -> None:
    # 10 -> 11 -> 12, and 20 elsewhere: (5 + 1) + (7 + 2) + 3 for the tree rooted at 10.
    snapshot = snap(0, 0, (10, 1, 5, 1), (11, 10, 7, 2), (12, 11, 3, 0), (20, 1, 100, 0))
    assert cpu.tree_ticks(snapshot.processes, 10) == 18
    assert cpu.tree_ticks(snapshot.processes, 99) == 0


def test_a_backend_that_exits_inside_the_window_still_counts_through_its_parent() -> None:
    before = snap(0, 0, (10, 1, 5, 0), (11, 10, 7, 0))
    after = snap(1, 0, (10, 1, 6, 9))  # 11 used 2 more ticks, exited, was reaped: 7 + 2 moved into 10's counters
    assert cpu.tree_delta(before, after, 10) == (6 + 9) - (5 + 7)


def test_own_time_of_listed_processes_counts_one_born_in_the_window_from_zero() -> None:
    before = snap(0, 0, (30, 1, 100, 0))
    after = snap(1, 0, (30, 1, 130, 0), (31, 1, 12, 0))
    assert cpu.pids_delta(before, after, [30, 31, 32]) == 30 + 12


def test_the_other_load_is_the_machine_busy_time_no_named_tree_used_over_all_cores() -> None:
    ticks = cpu.CLOCK_TICKS
    before = snap(100.0, 0, (10, 1, 0, 0), (20, 1, 0, 0))
    # 4 s on 2 cores; the service used 2 s of CPU, PostgreSQL 1 s, the machine 4 s in all: 1 s elsewhere.
    after = snap(104.0, 4 * ticks, (10, 1, 2 * ticks, 0), (20, 1, 1 * ticks, 0))
    window = cpu.account(before, after, {"service": 10, "postgres": 20, "remote": None}, cores=2)
    assert window.ms == {"service": 2000.0, "postgres": 1000.0}
    assert (window.other_ms, window.other_load, window.machine_load) == (1000.0, 1 / 8, 4 / 8)


def test_weights_give_the_product_runs_mix_of_rounds_settled_at_open() -> None:
    scripts = [Script(text="", settles_at_open=s, seq_step=1) for s in (True, False, False, False)]
    # 20% at open over one script, 80% over three: 2000 and 2667 each.
    assert weights(scripts, 0.2) == [2000, 2667, 2667, 2667]
    assert weights(scripts[1:], 0.2) == [1, 1, 1]  # no script of one kind: replay the sample as it is


def begin() -> Statement:
    return Statement("BEGIN;", ())


def commit() -> Statement:
    return Statement("COMMIT;", ())


def claim(key: str) -> Statement:
    return Statement("INSERT INTO keys (k, at) VALUES ($1, $2)", (key, NOW))


def test_statements_are_cut_into_committed_transactions_per_connection() -> None:
    records: list[tuple[int, str, tuple[Any, ...]]] = [
        (1, "SELECT 1", ()),  # outside any transaction: a transaction of its own
        (1, "BEGIN;", ()),
        (2, "BEGIN;", ()),
        (1, "INSERT INTO keys (k, at) VALUES ($1, $2)", ("a", NOW)),
        (2, "INSERT INTO keys (k, at) VALUES ($1, $2)", ("b", NOW)),
        (2, "ROLLBACK;", ()),
        (1, "COMMIT;", ()),
    ]
    assert transactions(records) == [
        Transaction((Statement("SELECT 1", ()),)),
        Transaction((begin(), claim("a"), commit())),
    ]


def audit(seqs: list[int], hashes: list[bytes]) -> Statement:
    return Statement("INSERT INTO audit SELECT * FROM unnest($1::bigint[], $2::bytea[])", (seqs, hashes))


def test_a_round_finds_its_transactions_by_key_and_the_chain_head_before_it() -> None:
    warmup = Transaction((begin(), claim("w"), audit([SEQ_BASE + 1, SEQ_BASE + 2], [HASH_1, HASH_2]), commit()))
    opened = Transaction((begin(), claim(KEY_OPEN), audit([SEQ_BASE + 3], [HASH_1]), commit()))
    decided = Transaction((begin(), claim(KEY_DECIDE), audit([SEQ_BASE + 4], [HASH_2]), commit()))
    (found,) = match_rounds([warmup, opened, decided], [(ROUND, (KEY_OPEN, KEY_DECIDE))], SEQ_BASE)
    assert (found.transactions, found.head_before) == ((opened, decided), SEQ_BASE + 2)


def test_an_integer_far_above_the_chain_such_as_an_advisory_lock_key_is_not_taken_for_a_seq() -> None:
    # The outbox's position lock key (about 9e13) once moved every replayed chain below zero: all rounds failed.
    lock = Transaction((Statement("SELECT pg_try_advisory_xact_lock($1)", (90_453_340_999_512,)),))
    opened = Transaction((begin(), claim(KEY_OPEN), audit([SEQ_BASE + 1], [HASH_1]), commit()))
    (found,) = match_rounds([lock, opened], [(ROUND, (KEY_OPEN,))], SEQ_BASE)
    assert found.head_before == SEQ_BASE


def look_up(key: str) -> Statement:
    return Statement("SELECT * FROM keys WHERE k = $1", (key,))


def test_an_unlocked_request_is_its_read_and_its_one_statement_write() -> None:
    opened = Transaction((begin(), claim(KEY_OPEN), audit([SEQ_BASE + 1], [HASH_1]), commit()))
    read, write = Transaction((look_up(KEY_DECIDE),)), Transaction((claim(KEY_DECIDE),))
    (found,) = match_rounds([opened, read, write], [(ROUND, (KEY_OPEN, KEY_DECIDE))], SEQ_BASE)
    assert found.transactions == (opened, read, write)


def test_a_key_in_more_than_one_locked_transaction_is_refused() -> None:
    first = Transaction((begin(), claim(KEY_OPEN), commit()))
    again = Transaction((begin(), look_up(KEY_OPEN), commit()))
    with pytest.raises(ValueError, match="not one or a pair"):
        match_rounds([first, again], [(ROUND, (KEY_OPEN,))], SEQ_BASE)


ROUND_SQL = (
    "INSERT INTO rounds (id, t, state, opened, closes, a, b, c, d, e) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
)
TYPES = {
    claim("").sql: (ParamType("text"), ParamType("timestamp with time zone")),
    audit([], []).sql: (ParamType("bigint[]", "bigint"), ParamType("bytea[]", "bytea")),
    ROUND_SQL: (
        ParamType("uuid"),
        ParamType("uuid"),
        ParamType("jsonb"),
        ParamType("timestamp with time zone"),
        ParamType("timestamp with time zone"),
        *(ParamType("integer") for _ in range(5)),
    ),
}


def captured_round() -> CapturedRound:
    state = f'{{"round_id":"{ROUND}","bets":[{{"bet_id":"{ROUND}.1"}}]}}'
    later = NOW + timedelta(seconds=15)
    insert = Statement(ROUND_SQL, (ROUND, TABLE, state, NOW, later, 500, 7, 500, 8, 9))
    opened = Transaction(
        (begin(), claim(KEY_OPEN), insert, audit([SEQ_BASE + 3, SEQ_BASE + 4], [HASH_1, HASH_2]), commit())
    )
    decided = Transaction((begin(), claim(KEY_DECIDE), audit([SEQ_BASE + 5], [b"not a chain hash"]), commit()))
    return CapturedRound(
        round_id=ROUND, keys=(KEY_OPEN, KEY_DECIDE), transactions=(opened, decided), head_before=SEQ_BASE + 2
    )


def fake_render(value: Any, type_name: str) -> str:
    return f"{type_name}<{value!r}>"


def script_for(captured: CapturedRound, variables: Variables) -> Script:
    hashes = frozenset({HASH_1, HASH_2})
    return build_script(captured, table_id=TABLE, hashes=hashes, types=TYPES, variables=variables, render=fake_render)


def lines(script: Script) -> list[str]:
    return script.text.splitlines()


def test_a_script_draws_a_fresh_round_then_replays_both_transactions_and_moves_the_chain_head() -> None:
    script = script_for(captured_round(), Variables())
    text = lines(script)
    assert text[0].startswith("\\set r random(")
    assert [line for line in text if line in ("BEGIN;", "COMMIT;")] == ["BEGIN;", "COMMIT;", "BEGIN;", "COMMIT;"]
    assert text[-1] == "\\set seq :seq + 3"  # records head+1 .. head+3
    assert (script.seq_step, script.settles_at_open) == (3, False)


def test_the_round_id_the_table_and_the_keys_become_fresh_per_run_and_per_client() -> None:
    text = lines(script_for(captured_round(), Variables()))
    insert = next(line for line in text if line.startswith("INSERT INTO rounds"))
    assert f"VALUES (({ROUND_UUID})::uuid, ({CLIENT_TABLE})::uuid," in insert
    claims = [line for line in text if line.startswith("INSERT INTO keys")]
    assert ["'-k0'" in claims[0], "'-k1'" in claims[1]] == [True, True]
    assert str(ROUND) not in "\n".join(text)
    assert KEY_OPEN not in "\n".join(text)


def test_another_id_the_round_writes_such_as_its_notification_s_becomes_fresh_per_run_and_the_same_within_it() -> None:
    # The outbox's message id is UNIQUE (ON CONFLICT DO NOTHING): a constant one inserted a notification only once.
    message = UUID("0191d8c0-1234-7abc-8def-0123456789ab")
    outbox = Statement("INSERT INTO outbox (message_id) VALUES ($1)", (message,))
    body = Statement("INSERT INTO outbox_bodies (message_id) VALUES ($1)", (message,))
    system = Statement("INSERT INTO outbox (message_id) VALUES ($1)", (UUID(int=0),))
    captured = captured_round()
    told = Transaction((*captured.transactions[0].statements[:-1], outbox, body, system, commit()))
    types = {**TYPES, outbox.sql: (ParamType("uuid"),), body.sql: (ParamType("uuid"),)}
    script = build_script(
        msgspec.structs.replace(captured, transactions=(told, captured.transactions[1])),
        table_id=TABLE,
        hashes=frozenset({HASH_1, HASH_2}),
        types=types,
        variables=Variables(),
        render=fake_render,
    )
    fresh = f"(md5(:r::text || '/{message}')::uuid)::uuid"
    text = lines(script)
    assert [line for line in text if "message_id" in line][:2] == [
        f"INSERT INTO outbox (message_id) VALUES ({fresh});",  # noqa: S608 - expected script text
        f"INSERT INTO outbox_bodies (message_id) VALUES ({fresh});",  # noqa: S608
    ]
    assert "VALUES (:v" in next(line for line in text if "message_id" in line and fresh not in line)  # nil: a constant


def test_text_holding_the_round_id_is_spliced_around_the_fresh_id() -> None:
    variables = Variables()
    text = lines(script_for(captured_round(), variables))
    insert = next(line for line in text if line.startswith("INSERT INTO rounds"))
    before, between, after = (variables.names[piece] for piece in ('{"round_id":"', '","bets":[{"bet_id":"', '.1"}]}'))
    fresh = "(lpad(to_hex(:seq::bigint), 12, '0') || substr(md5(:r::text), 13))::uuid::text"  # the chain position first
    assert f"(:{before}::text || {fresh} || :{between}::text || {fresh} || :{after}::text)::jsonb" in insert


def test_sequence_numbers_follow_the_clients_head_and_chain_hashes_become_fresh() -> None:
    text = "\n".join(lines(script_for(captured_round(), Variables())))
    assert "ARRAY[((:seq::bigint + 1))::bigint, ((:seq::bigint + 2))::bigint]::bigint[]" in text
    assert "sha256((:r::text || '/0')::bytea)" in text
    assert "sha256((:r::text || '/1')::bytea)" in text
    assert "(:seq::bigint + 3)" in text


def test_timestamps_become_now_plus_their_offset_in_the_transaction() -> None:
    text = "\n".join(lines(script_for(captured_round(), Variables())))
    assert "((now() + interval '0 microseconds'))::timestamp with time zone" in text
    assert "((now() + interval '15000000 microseconds'))::timestamp with time zone" in text


def test_constants_are_variables_one_per_distinct_value_and_placeholders_past_nine_are_not_confused() -> None:
    variables = Variables()
    text = lines(script_for(captured_round(), variables))
    insert = next(line for line in text if line.startswith("INSERT INTO rounds"))
    tail = insert.rsplit(", ", 5)[1:]  # $6..$10 = 500, 7, 500, 8, 9: 500 appears twice and shares one variable
    names = [variables.names[f"integer<{v}>"] for v in (500, 7, 500, 8, 9)]
    assert [t.rstrip(");") for t in tail] == [f":{n}" for n in names]
    assert names[0] == names[2]
    unhashed = variables.names["bytea[]<[b'not a chain hash']>"]  # not a hash the capture wrote: kept as it was
    assert f":{unhashed}" in "\n".join(text)


def test_a_remembered_rows_checkpoint_guard_compares_the_replayed_tables_latest_checkpoint_with_itself() -> None:
    # The service's own statement: a decision from a remembered row names the checkpoint size it last saw, a size a
    # replayed table need not have (its client's earlier scripts signed its checkpoints); compared with a captured
    # size, every such replayed round failed.
    head = AuditHead(seq=SEQ_BASE + 5, hash=HASH_2, recorded_at=NOW)
    write = update_table(TABLE, head, replaces=SEQ_BASE + 4, checkpoint_size=SEQ_BASE + 3)
    types = {write.sql: tuple(ParamType(t) for t in ("uuid", "bigint", "bytea", "timestamp with time zone", "bytea"))}
    types[write.sql] += (ParamType("bigint"), ParamType("bigint"))
    decided = Transaction((Statement(write.sql, write.args),))
    captured = CapturedRound(round_id=ROUND, keys=(KEY_DECIDE,), transactions=(decided,), head_before=SEQ_BASE + 4)
    text = build_script(
        captured, table_id=TABLE, hashes=frozenset(), types=types, variables=Variables(), render=fake_render
    ).text
    lookup = (
        f"(SELECT coalesce(max(c.tree_size), 0) FROM audit_checkpoints c WHERE c.table_id = ({CLIENT_TABLE})::uuid)"  # noqa: S608 - a test's expected text
    )
    assert f"reddog_expect_head({lookup}, {lookup})" in text
    assert "reddog_expect_head(audit_seq, ((:seq::bigint + 0))::bigint)" in text  # the head's guard stays as it was


def test_a_replay_with_more_than_one_round_in_a_hundred_failed_is_refused_with_pgbench_s_words() -> None:
    def run(rounds: int, failed: int) -> ReplayRun:
        return ReplayRun(rounds=rounds, by_kind={}, failed=failed, latencies_us=[], aborted="", errors="head moved")

    check(run(rounds=990, failed=10))
    with pytest.raises(RuntimeError, match="11 of 1000 rounds failed; pgbench said: head moved"):
        check(run(rounds=989, failed=11))


def test_every_variable_a_script_reads_is_defined() -> None:
    variables = Variables()
    script = script_for(captured_round(), variables)
    assert references(script.text) <= {*variables.names.values(), "r", "seq", "client_id"}
    assert len(variables.arguments()) == 2 * len(variables.names)


def test_a_sample_takes_distinct_shapes_first_and_at_most_so_many_of_each_kind() -> None:
    decided = captured_round()
    single = CapturedRound(round_id=ROUND, keys=(KEY_OPEN,), transactions=decided.transactions[:1], head_before=0)
    other_shape = CapturedRound(
        round_id=ROUND, keys=(KEY_OPEN,), transactions=(Transaction((begin(), commit())),), head_before=0
    )
    chosen = sample([single, single, other_shape, decided, decided], per_kind=2)
    assert chosen[:2] == [single, other_shape]
    assert chosen[2:] == [decided, decided]


def result(date: str, rev: str, workers: int, rounds_per_s: float) -> dict[str, Any]:
    latency = {"p99_ms": 80.0}
    return {
        "date": date,
        "git_rev": rev,
        "machine": {"cores": 2, "memory_gb": 23.5},
        "options": {"workers": workers, "clients": 32, "seconds": 30.0, "seed_rounds": 0},
        "product": {
            "seconds": 30.0,
            "rounds_per_s": rounds_per_s,
            "requests_per_s": 1.8 * rounds_per_s,
            "latency": {"open": latency, "decide": latency},
            "errors": {},
            "cpu_ms_per_round": {"service": 1.5, "postgres": 1.0, "generator": 0.3},
            "other_load": 0.25,
        },
        "http": {"requests_per_s": 9000.0},
        "ceiling": {"rounds_per_s": 1800.0},
        "ratios": {"product_over_database_ceiling": rounds_per_s / 1800, "request_cpu_over_http_floor": 8.0},
    }


def test_a_rerun_of_a_configuration_replaces_its_record_and_others_accumulate(tmp_path: Path) -> None:
    write_result(tmp_path, result("2026-01-02", "abc1234", 1, 600.0))
    write_result(tmp_path, result("2026-01-02", "abc1234", 2, 650.0))
    write_result(tmp_path, result("2026-01-02", "abc1234", 1, 610.0))
    write_result(tmp_path, result("2026-01-03", "def5678", 1, 700.0))
    assert [(r["options"]["workers"], r["product"]["rounds_per_s"]) for r in read_runs(tmp_path)] == [
        (2, 650.0),
        (1, 610.0),
        (1, 700.0),
    ]


def test_a_recorded_ceiling_whose_replay_failed_every_round_reads_failed_not_zero() -> None:
    run = result("2026-01-02", "abc1234", 1, 600.0)
    run["ceiling"] = {"rounds_per_s": 0.0, "rounds": 0, "failed": 195_352}
    assert "| replay failed |" in row(run)
    assert "| 1,800 |" in row(result("2026-01-02", "abc1234", 1, 600.0))


def test_the_docs_table_is_rebuilt_in_place_and_the_prose_around_it_is_kept() -> None:
    runs = [result("2026-01-02", "abc1234", 1, 600.0)]
    document = update_document("# Benchmarks\n\nprose\n", runs)
    again = update_document(document.replace("<!-- bench:table:end -->", "<!-- bench:table:end -->\nafter"), runs)
    assert again.startswith("# Benchmarks\n\nprose\n\n<!-- bench:table:start -->")
    assert again.endswith("<!-- bench:table:end -->\nafter\n")
    assert again.count("| 2026-01-02 |") == 1
    assert "**600**" in again


@pytest.mark.parametrize("bad", [0, 101, -5])
def test_a_percentile_outside_zero_to_a_hundred_is_refused(bad: float) -> None:
    with pytest.raises(ValueError, match="percent"):
        nearest_rank([1, 2, 3], bad)


def test_the_service_and_the_pure_core_never_import_the_benchmark() -> None:
    root = Path(__file__).resolve().parents[2]
    importers = [
        str(path.relative_to(root))
        for package in ("service", "paytables", "shoe", "audit")
        for path in (root / package).rglob("*.py")
        if "bench" in imported_top_level_names(path.read_text(encoding="utf-8"))
    ]
    assert importers == []
