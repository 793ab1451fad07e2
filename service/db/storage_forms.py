"""Which storage forms this process writes: the compact ones (a packed shoe, a deflated round state, an outbox body
beside its row: migrations 025 and 026), or the forms before them, which every earlier release reads.

A replica of an earlier release can still be serving (a rolling update), and it cannot read the compact forms: a
round it reads would fail, a message it delivers would have no body. So compact forms are written only while the
database has no connection of the service's login that is not of a release that reads them: every connection of
this release names APPLICATION_NAME, one of an earlier release names none. Each worker looks at start and then with
its database probe (every few seconds), so a rolling update writes the forms before until its last older replica
has gone, then the compact ones. What it reads it reads in either form, always.
"""

from __future__ import annotations

import asyncpg

from service.db import Conn
from shoe.shoe import Shoe, encode_shoe

APPLICATION_NAME = "reddog storage/2"  # 2: the forms of migrations 025 and 026; 1 (unnamed): those before


class Forms:
    """This process's view, one for the process: whatever of its apps looked last (they share one database)."""

    compact = False  # until a look has found no older replica


FORMS = Forms()


async def older_replicas_connected(conn: Conn) -> bool:
    """Whether the service's login has a connection to this database that does not name this release's forms. A
    superuser's never: only development serves as one (production refuses it), where a tool or a benchmark's
    harness logged in as the same superuser is not a replica."""
    found: bool = await conn.fetchval(
        "SELECT NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AND EXISTS (SELECT FROM"
        " pg_stat_activity WHERE datname = current_database() AND usename = current_user"
        " AND backend_type = 'client backend' AND application_name IS DISTINCT FROM $1)",
        APPLICATION_NAME,
    )
    return found


async def look(pool: asyncpg.Pool) -> bool:
    """Look at the database's connections and set FORMS; returns whether compact forms are written now."""
    # Not db_pool.acquire (counted): the SQL modules that import this one must not load the metrics.
    async with pool.acquire() as conn:
        FORMS.compact = not await older_replicas_connected(conn)
    return FORMS.compact


def shoe_bytes(shoe: Shoe) -> bytes:
    """A shoe as written now: packed in the compact forms, msgpack in those before."""
    return encode_shoe(shoe, packed=FORMS.compact)
