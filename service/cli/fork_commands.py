"""`reddog audit accept-fork --table ID --note TEXT`: the person on call lets a chain the fork guard refuses go on
from the head the database holds, on the record (service/chains/fork_acceptance.py)."""

from __future__ import annotations

import argparse
import asyncio
import functools
import getpass
from typing import TYPE_CHECKING, Any
from uuid import UUID

from audit.system_events import SYSTEM_CHAIN_ID, ForkAccepted

if TYPE_CHECKING:  # imported when a command runs, as the other commands do
    from service.db.unit_of_work import UnitOfWork

OPERATOR = "fork-cli"  # the unit of work's operator: the command acts on any operator's table


def _chain(text: str) -> UUID:
    if text == "system":
        return UUID(SYSTEM_CHAIN_ID)
    try:
        return UUID(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a table id or 'system', not {text!r}") from None


def add(actions: Any) -> None:
    said = "let a chain behind its published checkpoint go on from its head, recorded on the system chain"
    a = actions.add_parser("accept-fork", help=said)
    a.add_argument("--table", type=_chain, required=True, action="append", metavar="ID", help="a table id, or 'system'")
    a.add_argument("--note", required=True, help="why, and what was done about the lost records (recorded)")
    a.add_argument("--by", default=None, help="who decides (recorded); default: the login name")
    a.set_defaults(handler=cmd_accept_fork)


async def _accept(unit: UnitOfWork, *, table_id: UUID, by: str, note: str) -> ForkAccepted:
    from service.chains import fork_acceptance

    return await fork_acceptance.accept_fork(unit, table_id, by, note)


def cmd_accept_fork(args: argparse.Namespace) -> int:
    import asyncpg

    from service.chains.fork_acceptance import NothingToAccept
    from service.cli.database_setup import database_url, settings_or_exit
    from service.clock import system_clock
    from service.db.unit_of_work import Runner, run

    settings = settings_or_exit()
    url, _server = database_url(settings)
    by = args.by or getpass.getuser()
    chains: list[UUID] = sorted(args.table, key=lambda t: str(t) != SYSTEM_CHAIN_ID)  # the system chain first

    async def go() -> None:
        pool = await asyncpg.create_pool(url, min_size=1, max_size=1)
        try:
            runner = Runner(pool, settings, system_clock)
            for table_id in chains:
                accepted = await run(
                    runner, OPERATOR, functools.partial(_accept, table_id=table_id, by=by, note=args.note)
                )
                print(
                    f"accepted {accepted.table_id}: published checkpoint of size {accepted.lost_size} given up, the"
                    f" chain goes on from its head at {accepted.head_size}; recorded on the system chain"
                )
        finally:
            await pool.close()

    try:
        asyncio.run(go())
    except NothingToAccept as exc:
        raise SystemExit(f"reddog audit accept-fork: {exc}") from None
    return 0
