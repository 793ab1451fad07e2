"""The short form of `make bench`'s outbox step: rounds under load from the Node generator against a real
`reddog serve` whose operator has a notification URL, a real HTTP receiver, a few seconds; every message written is
delivered and the lag read from the rows is ordered as percentiles must be."""

from __future__ import annotations

import secrets
from pathlib import Path

from bench import database_server as servers
from bench.harness import Context, Options
from bench.outbox_lag import measure_outbox
from tests.e2e.test_friends_push_bench import _need_the_generator


async def test_every_notification_written_under_load_is_delivered_and_its_lag_is_measured(
    database_server: str, tmp_path: Path
) -> None:
    _need_the_generator()
    server = await servers.describe(database_server, embedded=False)
    ctx = Context(
        options=Options(seconds=1.0, warmup=0.3, clients=4, workers=1),
        server=server,
        secret=secrets.token_hex(16),
        folder=tmp_path,
    )
    async with servers.fresh_database(server, "outbox_test") as url:
        run = await measure_outbox(ctx, url)
    print(run)  # the figures, seen with -s
    assert run.rounds > 0
    # Every complete round settled and owes its notification; checkpoints owe theirs too.
    assert run.messages >= run.rounds
    assert run.pending_after_drain == 0
    assert run.delivered == run.messages
    assert run.received >= run.delivered  # an attempt answered late is sent again; the receiver counts each
    assert 0 < run.lag_p50_ms <= run.lag_p99_ms <= run.lag_max_ms
