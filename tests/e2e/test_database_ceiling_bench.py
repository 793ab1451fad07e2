"""The short form of `make bench`'s database ceiling: real rounds played through `reddog serve` with its statements
recorded, then replayed by pgbench on tables of its own for a second. Every replayed round must commit: a replay
whose statements the schema refuses measures nothing (one did, and `make bench` recorded a ceiling of 0)."""

from __future__ import annotations

import secrets
from pathlib import Path

from bench import database_server as servers
from bench.harness import Context, Options, capture, measure_ceiling
from tests.e2e.test_friends_push_bench import _need_the_generator


async def test_every_round_of_the_database_ceilings_replay_commits(database_server: str, tmp_path: Path) -> None:
    _need_the_generator()
    server = await servers.describe(database_server, embedded=False)
    ctx = Context(
        options=Options(seconds=1.0, warmup=0.5, clients=4, workers=1, capture_rounds=24),
        server=server,
        secret=secrets.token_hex(16),
        folder=tmp_path,
    )
    async with servers.fresh_database(server, "ceiling_test") as url:
        captured, table = await capture(ctx, url)
        ceiling = await measure_ceiling(ctx, url, captured, table, share_at_open=0.25)
    print(ceiling)  # the figures, seen with -s
    assert len(captured) == 24
    assert ceiling.failed == 0
    assert ceiling.rounds > 0
    assert ceiling.mix["settled_at_open"] > 0 and ceiling.mix["decided"] > 0
