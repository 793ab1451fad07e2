"""`reddog audit verify FILE` and `reddog audit replay FILE`: the auditors' offline tools, needing no database.

They run from the package alone (`python -m audit.audit_cli verify FILE`) with only msgspec and cryptography
installed. The server's `reddog` command adds `export` and the `--db` forms (`service/cli/audit_commands.py`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec

from audit import parallel
from audit.collector import collector_paused
from audit.export_format import CheckpointLine, Progress, read_lines, read_raw_lines
from audit.replay import Replayer, ReplayReport
from audit.replay_stats import GroupSummary
from audit.signed_note import NoteError, Verifier, parse_verifier
from audit.verify_export import ExportVerifier, VerifyReport

LISTED = 50  # faults or mismatches printed as text; --json lists every one


def add_verify(
    sub: Any, name: str = "verify", summary: str = "verify an audit export: chains, columns, checkpoints"
) -> argparse.ArgumentParser:
    """The verify command's arguments, defined once: `reddog audit-verify`, its alias, gets these same ones."""
    p: argparse.ArgumentParser = sub.add_parser(name, help=summary)
    p.add_argument("file", nargs="?", help="the export (JSON Lines) to check")
    p.add_argument("--public-key", metavar="KEY", help="the checkpoint verifier key, or a file holding it")
    p.add_argument(
        "--kept", metavar="FILE", action="append", default=[], help="an earlier export whose checkpoints must hold"
    )
    p.add_argument("--json", action="store_true", help="the whole report as one JSON object")
    _add_jobs(p)
    p.set_defaults(handler=run_verify)
    return p


def add_replay(sub: Any) -> argparse.ArgumentParser:
    p: argparse.ArgumentParser = sub.add_parser("replay", help="re-run every round of an export through the game core")
    p.add_argument("file", nargs="?", help="the export (JSON Lines) to replay")
    p.add_argument("--json", action="store_true", help="the whole report as one JSON object")
    _add_jobs(p)
    p.set_defaults(handler=run_replay)
    return p


def _add_jobs(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--jobs",
        type=int,
        default=0,
        metavar="N",
        help="processes sharing the file's tables (default 0: every core; 1: one process); the report is the same",
    )


def run_verify(args: argparse.Namespace) -> int:
    source = _source(args)
    key = key_text(args.public_key)
    verifier = verifier_of(args.public_key)
    kept = kept_checkpoints(args.kept)
    jobs = parallel.workers(getattr(args, "jobs", 1))
    with collector_paused():  # nothing read here forms a cycle: see audit/collector.py
        checker = parallel.verify_file(source, key, kept, jobs)
        if checker is None:
            checker = ExportVerifier(verifier)
            for table_id, size, note, where in kept:
                checker.keep(table_id, size, note, where)
            with open(source, "rb") as stream:
                checker.feed_bytes(read_raw_lines(stream, _progress(source)))
        report = checker.report()
    print_verify(report, as_json=args.json)
    return 0 if report.ok else 1


def run_replay(args: argparse.Namespace) -> int:
    source = _source(args)
    jobs = parallel.workers(getattr(args, "jobs", 1))
    with collector_paused():
        replayer = parallel.replay_file(source, jobs)
        if replayer is None:
            replayer = Replayer()
            with open(source, "rb") as stream:
                replayer.feed_bytes(read_raw_lines(stream, _progress(source)))
        report = replayer.report()
    print_replay(report, as_json=args.json)
    return 0 if report.ok else 1


def _source(args: argparse.Namespace) -> str:
    if not args.file:
        raise SystemExit("reddog audit: name the export FILE (or --db to read the database)")
    if not Path(args.file).is_file():
        raise SystemExit(f"reddog audit: no such file: {args.file}")
    return str(args.file)


def keep_checkpoints(checker: ExportVerifier, files: list[str]) -> None:
    """The checkpoints of earlier exports the auditor kept: the chains must still match every one of them."""
    for table_id, size, note, source in kept_checkpoints(files):
        checker.keep(table_id, size, note, source)


def kept_checkpoints(files: list[str]) -> parallel.Kept:
    """(table_id, size, note, where) of every checkpoint in the kept files, in order."""
    kept: parallel.Kept = []
    for name in files:
        with open(name, "rb") as stream:
            for line in read_lines(stream):
                if type(line) is CheckpointLine:
                    kept.append((line.table_id, line.size, line.note, f"kept in {name}"))
    return kept


def key_text(key: str | None) -> str | None:
    """The key as text (`name+id+base64`), or read from the file it names."""
    if key is None:
        return None
    return Path(key).read_text(encoding="utf-8") if Path(key).is_file() else key


def verifier_of(key: str | None) -> Verifier | None:
    """The key as text (`name+id+base64`), or the name of a file holding it."""
    text = key_text(key)
    if text is None:
        return None
    try:
        return parse_verifier(text)
    except NoteError as exc:
        raise SystemExit(f"reddog audit: --public-key is not a verifier key: {exc}") from None


def _progress(path: str) -> Progress | None:
    """A bar on stderr while a terminal watches; nothing when the output goes to a file or a pipe."""
    return progress_bar(Path(path).stat().st_size) if sys.stderr.isatty() else None


def progress_bar(total: int) -> Progress:
    def show(done: int) -> None:
        share = done / total if total else 1.0
        filled = int(40 * share)
        sys.stderr.write(f"\r[{'#' * filled}{' ' * (40 - filled)}] {int(100 * share):3d}%")
        if done >= total:
            sys.stderr.write("\n")
        sys.stderr.flush()

    return show


def print_verify(report: VerifyReport, *, as_json: bool = False, out: Callable[[str], None] = print) -> None:
    if as_json:
        out(msgspec.json.encode(report).decode())
        return
    for table in report.tables:
        status = (
            "ok"
            if table.first_broken is None
            else f"BROKEN at seq {table.first_broken.seq}: {table.first_broken.detail}"
        )
        head = "no head" if table.head_seq is None else f"head {table.head_seq}"
        hashes = f" (+{table.hashes_only} as hashes)" if table.hashes_only else ""
        out(
            f"table {table.table_id}: {table.records} records{hashes} to seq {table.last_seq}, {head}, "
            f"checkpoints {table.checkpoints_matched}/{table.checkpoints} matched  {status}"
        )
    for fault in report.faults[:LISTED]:
        where = " ".join(
            part
            for part in (f"table {fault.table_id}" if fault.table_id else "", f"seq {fault.seq}" if fault.seq else "")
            if part
        )
        out(f"  {fault.kind:<10} {where}: {fault.detail}")
    if len(report.faults) > LISTED:
        out(f"  ... and {len(report.faults) - LISTED} more (--json lists them all)")
    signatures = "checked" if report.signatures_checked else "NOT checked (no --public-key)"
    out(
        f"{len(report.tables)} tables, {report.records} records, {report.checkpoints} checkpoints "
        f"({report.checkpoints_matched} matched), signatures {signatures}: "
        + ("OK" if report.ok else f"{len(report.faults)} FAULTS")
    )


def print_replay(report: ReplayReport, *, as_json: bool = False, out: Callable[[str], None] = print) -> None:
    if as_json:
        out(msgspec.json.encode(report).decode())
        return
    out(f"rounds re-run through the game core: {report.rounds}, matching their records: {report.matched}")
    out(
        f"not re-run: {report.open_rounds} open, {report.unrevealed_rounds} with their shoe still in play, "
        f"{report.partial_rounds} opened before the export starts; {report.schema1_records} schema-1 records; "
        f"{report.test_rounds} test-table rounds (kept out of the figures)"
    )
    for mismatch in report.mismatches[:LISTED]:
        where = f"table {mismatch.table_id}" + (f" round {mismatch.round_id}" if mismatch.round_id else "")
        out(f"  MISMATCH {where}: {mismatch.detail}")
    if len(report.mismatches) > LISTED:
        out(f"  ... and {len(report.mismatches) - LISTED} more (--json lists them all)")
    for group in report.summary:
        for line in _group_lines(group):
            out(line)
    games = report.games
    out(
        f"In Between games re-played through the engine: {games.games}, matching their records: {games.matched}; "
        f"{games.open_games} not over in the export (not re-played)"
    )
    for problem in games.mismatches[:LISTED]:
        out(f"  MISMATCH game {problem.game_id}: {problem.detail}")
    found = len(report.mismatches) + len(games.mismatches)
    out("OK" if report.ok else f"{found} MISMATCHES")


def _group_lines(group: GroupSummary) -> Iterator[str]:
    rtp = "n/a" if group.rtp is None else group.rtp
    yield (
        f"{group.paytable} with {group.decks} deck(s): {group.rounds} rounds ({group.voided} voided), "
        f"{group.bets} bets, wagered {group.wagered}, paid {group.paid}, observed RTP {rtp}"
    )
    yield f"  {'outcome':<12} {'observed':>9} {'expected':>11}  probability"
    for name, count in group.outcomes.items():
        yield f"  {name:<12} {count.observed:>9} {count.expected:>11}  {count.probability}"
    if group.chi_square is not None:
        yield f"  chi-square {group.chi_square:.3f} on {group.degrees_of_freedom} dof, p = {group.p_value:.4f}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m audit.audit_cli", description="Red Dog audit export tools")
    sub = parser.add_subparsers(required=True, metavar="COMMAND")
    add_verify(sub)
    add_replay(sub)
    args = parser.parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    return handler(args)


if __name__ == "__main__":
    raise SystemExit(main())
