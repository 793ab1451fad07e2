"""`reddog outbox list | retry ID | resolve ID`: the person on call acts on dead letters, each step recorded on the
system chain (the operator reads its own with GET /v1/outbox/dead-letters)."""

from __future__ import annotations

import argparse
import asyncio
import getpass
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar
from uuid import UUID

if TYPE_CHECKING:  # imported when a command runs: `reddog serve` sets up prometheus_client's directory first
    from service.db.unit_of_work import UnitOfWork

T = TypeVar("T")
OPERATOR = "outbox-cli"  # the unit of work's operator: these commands act on every operator's dead letters


def register(sub: Any) -> None:
    p = sub.add_parser("outbox", help="the outbox's dead letters: list them, send one again, or mark it resolved")
    actions = p.add_subparsers(required=True, metavar="ACTION")
    listed = actions.add_parser("list", help="every operator's dead letters, oldest first")
    listed.add_argument("--limit", type=int, default=100)
    listed.set_defaults(handler=cmd_list)
    retry = actions.add_parser("retry", help="deliver a dead letter again (same id and bytes, fresh attempts)")
    retry.add_argument("message_id", type=UUID)
    retry.add_argument("--by", default=None, help="who asks (recorded); default: the login name")
    retry.set_defaults(handler=cmd_retry)
    resolve = actions.add_parser("resolve", help="mark a dead letter settled by other means: never sent")
    resolve.add_argument("message_id", type=UUID)
    resolve.add_argument("--note", required=True, help="what was done instead (recorded)")
    resolve.add_argument("--by", default=None, help="who asks (recorded); default: the login name")
    resolve.set_defaults(handler=cmd_resolve)


def _with_runner(work: Callable[[UnitOfWork], Awaitable[T]]) -> T:
    import asyncpg

    from service.cli.database_setup import database_url, settings_or_exit
    from service.clock import system_clock
    from service.db.unit_of_work import Runner, run
    from service.errors import ApiError

    settings = settings_or_exit()
    url, _server = database_url(settings)

    async def go() -> T:
        pool = await asyncpg.create_pool(url, min_size=1, max_size=1)
        try:
            return await run(Runner(pool, settings, system_clock), OPERATOR, work)
        finally:
            await pool.close()

    try:
        return asyncio.run(go())
    except ApiError as exc:
        raise SystemExit(f"reddog outbox: {exc.detail}") from None


def cmd_list(args: argparse.Namespace) -> int:
    from service.use_cases import outbox_use_cases

    found = _with_runner(lambda unit: outbox_use_cases.list_dead_letters(unit, args.limit, every_operator=True))
    for d in found:
        print(f"{d.message_id}  {d.operator_id}  {d.kind}  {d.ordering_key}  attempts={d.attempts}  {d.last_error}")
    print(f"{len(found)} dead letter(s)")
    return 0


def cmd_retry(args: argparse.Namespace) -> int:
    from service.use_cases import outbox_use_cases

    by = args.by or getpass.getuser()
    dead = _with_runner(lambda unit: outbox_use_cases.retry_dead_letter(unit, args.message_id, by))
    print(f"retrying {dead.message_id} ({dead.kind} for {dead.operator_id}); recorded on the system chain")
    return 0


def cmd_resolve(args: argparse.Namespace) -> int:
    from service.use_cases import outbox_use_cases

    by = args.by or getpass.getuser()
    dead = _with_runner(lambda unit: outbox_use_cases.resolve_dead_letter(unit, args.message_id, by, args.note))
    print(f"resolved {dead.message_id} ({dead.kind} for {dead.operator_id}); recorded on the system chain")
    return 0
