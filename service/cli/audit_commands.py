"""`reddog audit export|verify|replay|rotate-key`: the offline tools of `audit/audit_cli.py`, plus what needs the
database.

`export` writes the export file; `verify --db` is the one check of the whole database (`chains/audit_verify.py`:
every chain, to its last record, every stored round and game, and the signing key rotations listed), and
`replay --db` re-runs the export's rounds straight from `DATABASE_URL`; each in one read-only snapshot.
`audit-verify` is an older name for `audit verify --db`. `rotate-key` records on the system chain that another
checkpoint key signs from now on (`chains/key_continuity.py`).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import asyncpg

from audit import audit_cli
from audit.export_format import Line, encode_line
from audit.replay import Replayer
from audit.system_events import SigningKeyRotated
from audit.verify_export import ExportVerifier
from service.chains.audit_export import Scope, export_lines, export_total
from service.chains.audit_verify import verify_database
from service.chains.game_reconcile import GamesReport
from service.chains.round_reconcile import RoundsReport, reconcile_stored_rounds
from service.cli import fork_commands
from service.cli.database_setup import database_url, settings_or_exit

BATCH = 2000


def register(sub: Any) -> None:
    p = sub.add_parser("audit", help="the auditors' tools: export, verify and replay the audit records")
    actions = p.add_subparsers(required=True, metavar="ACTION")
    e = actions.add_parser("export", help="write every record byte-exact as JSON Lines, with heads and checkpoints")
    e.add_argument("--out", required=True, metavar="FILE")
    e.add_argument("--table", type=UUID, metavar="ID", help="only this table")
    e.add_argument("--since", type=_time, metavar="TIME", help="records from this time on (ISO 8601; UTC if no zone)")
    e.set_defaults(handler=cmd_export)
    for add in (audit_cli.add_verify, audit_cli.add_replay):
        command = add(actions)
        command.add_argument("--db", action="store_true", help="read DATABASE_URL (read-only) instead of a FILE")
        command.set_defaults(handler=cmd_verify if add is audit_cli.add_verify else cmd_replay)
    r = actions.add_parser("rotate-key", help="record on the system chain that another checkpoint signing key signs")
    r.add_argument("--new-key", required=True, metavar="FILE", help="the new signer key file (reddog audit-keygen)")
    r.set_defaults(handler=cmd_rotate_key)
    fork_commands.add(actions)
    alias = audit_cli.add_verify(sub, "audit-verify", "an alias of `reddog audit verify --db`")
    alias.set_defaults(handler=cmd_audit_verify, db=True)


ALIAS_NOTE = "reddog: audit-verify is an alias of `reddog audit verify --db`"


def cmd_audit_verify(args: argparse.Namespace) -> int:
    """The old name, kept for the scripts that call it: says what it is, then runs exactly `audit verify --db`."""
    print(ALIAS_NOTE, file=sys.stderr)
    return cmd_verify(args)


def _time(text: str) -> datetime:
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an ISO 8601 time: {text!r}") from None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


Work = Callable[[asyncpg.Connection], Awaitable[int]]


def _run(work: Work) -> int:
    """Run `work` on the configured database (or the embedded one, kept running until it is done)."""
    url, _server = database_url(settings_or_exit())
    return asyncio.run(_snapshot(url, work))


async def _snapshot(url: str, work: Work) -> int:
    """Run `work` in one read-only REPEATABLE READ transaction: every line it reads is of the same moment."""
    conn = await asyncpg.connect(url)
    try:
        async with conn.transaction(isolation="repeatable_read", readonly=True):
            return await work(conn)
    finally:
        await conn.close()


def cmd_export(args: argparse.Namespace) -> int:
    scope = Scope(operator_id=None, table_id=args.table)

    async def work(conn: asyncpg.Connection) -> int:
        total = await export_total(conn, scope)
        show = audit_cli.progress_bar(total) if sys.stderr.isatty() else None
        records = 0
        with open(args.out, "wb") as out:  # noqa: ASYNC230 - a one-task command: nothing else waits on the loop
            lines = export_lines(conn, scope, exported_at=datetime.now(UTC), since=args.since)
            async for line in lines:
                out.write(encode_line(line))
                records += 1
                if show is not None and records % 4096 == 0:
                    show(min(records, total))
        if show is not None:
            show(total)
        print(f"wrote {args.out}: {records} lines", file=sys.stderr)
        return 0

    return _run(work)


async def _batches(conn: asyncpg.Connection) -> AsyncIterator[list[Line]]:
    batch: list[Line] = []
    async for line in export_lines(conn, Scope(operator_id=None), exported_at=datetime.now(UTC)):
        batch.append(line)
        if len(batch) == BATCH:
            yield batch
            batch = []
    yield batch


def cmd_verify(args: argparse.Namespace) -> int:
    if not args.db:
        return audit_cli.run_verify(args)
    _no_file(args)
    checker = ExportVerifier(audit_cli.verifier_of(args.public_key))
    audit_cli.keep_checkpoints(checker, args.kept)

    async def work(conn: asyncpg.Connection) -> int:
        report = await verify_database(conn, checker)
        audit_cli.print_verify(report.chains, as_json=args.json)
        _print_rounds(report.rounds)
        _print_games(report.games)
        _print_rotations(report.rotations)
        return 0 if report.ok else 1

    return _run(work)


def cmd_rotate_key(args: argparse.Namespace) -> int:
    """Write the rotation record (old and new verifier key) so that a service may start with the new key."""
    from audit.signed_note import NoteError
    from service.chains import key_continuity
    from service.settings import SettingsError

    settings = settings_or_exit()
    try:
        with open(args.new_key, encoding="utf-8") as file:
            new_key = file.read().strip()
    except OSError as exc:
        raise SystemExit(f"reddog audit rotate-key: cannot read {args.new_key}: {exc.strerror}") from None
    url, _server = database_url(settings)

    async def rotate() -> SigningKeyRotated:
        conn = await asyncpg.connect(url)
        try:
            return await key_continuity.rotate(conn, new_key, production=settings.production, now=datetime.now(UTC))
        finally:
            await conn.close()

    try:
        rotated = asyncio.run(rotate())
    except (NoteError, SettingsError) as exc:
        raise SystemExit(f"reddog audit rotate-key: {exc}") from None
    print(f"recorded on the system chain: {_rotation(rotated)}")
    print(f"serve with RD_AUDIT_SIGNING_KEY={args.new_key}; publish the new verifier key {rotated.new_key}")
    return 0


def _rotation(rotated: SigningKeyRotated) -> str:
    at = "" if rotated.rotated_at is None else f" at {rotated.rotated_at.isoformat()}"
    return f"signing key rotated{at}: {rotated.old_key or '(none recorded)'} -> {rotated.new_key}"


def _print_rotations(rotations: list[SigningKeyRotated]) -> None:
    """The key history on stderr: each rotation, so a reader knows which key signed which checkpoints."""
    for rotated in rotations:
        print(f"  {_rotation(rotated)}", file=sys.stderr)
    print(f"signing key rotations recorded on the system chain: {len(rotations)}", file=sys.stderr)


def _no_file(args: argparse.Namespace) -> None:
    """`--db` reads the database: a FILE beside it would be silently left unchecked, so it is refused."""
    if args.file:
        raise SystemExit(f"reddog audit: --db reads DATABASE_URL, not {args.file}: give a FILE or --db")


def cmd_replay(args: argparse.Namespace) -> int:
    if not args.db:
        return audit_cli.run_replay(args)
    _no_file(args)

    async def work(conn: asyncpg.Connection) -> int:
        replayer = Replayer(keep_states=True)
        async for batch in _batches(conn):
            replayer.feed(batch)
        report = replayer.report()
        audit_cli.print_replay(report, as_json=args.json)
        rounds = await reconcile_stored_rounds(conn, replayer.recorded_rounds())
        _print_rounds(rounds)
        return 0 if report.ok and rounds.ok else 1

    return _run(work)


def _print_rounds(rounds: RoundsReport) -> None:
    """The reconciliation on stderr, so `--json` keeps stdout one JSON object."""
    differences = rounds.differences
    for difference in differences[: audit_cli.LISTED]:
        print(f"  STORED ROUND DIFFERS {difference.round_id}: {difference.detail}", file=sys.stderr)
    if len(differences) > audit_cli.LISTED:
        print(f"  ... and {len(differences) - audit_cli.LISTED} more", file=sys.stderr)
    verdict = "every stored round matches its records" if rounds.ok else f"{len(differences)} DIFFER"
    skipped = f" ({rounds.unreadable} with pre-schema-2 records not reconciled)" if rounds.unreadable else ""
    print(f"reconciled {rounds.checked} stored rounds with their records{skipped}: {verdict}", file=sys.stderr)


def _print_games(games: GamesReport) -> None:
    """The games' reconciliation on stderr, as the rounds' is."""
    differences = games.differences
    for difference in differences[: audit_cli.LISTED]:
        print(f"  STORED GAME DIFFERS {difference.game_id}: {difference.detail}", file=sys.stderr)
    if len(differences) > audit_cli.LISTED:
        print(f"  ... and {len(differences) - audit_cli.LISTED} more", file=sys.stderr)
    verdict = "every stored game matches its records" if games.ok else f"{len(differences)} DIFFER"
    print(f"reconciled {games.checked} stored In Between games with their records: {verdict}", file=sys.stderr)
