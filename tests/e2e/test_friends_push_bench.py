"""The short form of the friends' push benchmark (`make bench-push`): its Node phones against a real `reddog serve` with
two workers, a few seconds, so the generator, its SSE reader and its arithmetic are known to work before a long run
depends on them."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from bench import database_server as servers
from bench.friends_push import Options, measure
from tests.support.served import ROOT

UNDICI = ROOT / "bench" / "node_modules" / "undici"


def _need_the_generator() -> None:
    if shutil.which("node") is not None and UNDICI.is_dir():
        return
    message = "the push benchmark needs Node and bench/node_modules (make test installs them where npm is)"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


async def test_every_move_reaches_every_other_phone_of_its_table_across_two_workers(
    database_server: str, tmp_path: Path
) -> None:
    _need_the_generator()
    server = await servers.describe(database_server, embedded=False)
    options = Options(clients=(12,), seats=4, rate=8, seconds=2.0, warmup=0.5, workers=2, publishes=0, late_ms=1500)
    async with servers.fresh_database(server, "push_test") as url:
        level = await measure(server, url, tmp_path, options, 12)
    assert (level["clients"], level["tables"]) == (12, 3)
    assert level["moves"] >= 8  # 8 a second for 2 s, the first ones maybe still starting games
    assert level["errors"] == {}
    assert level["late_or_lost"] == 0
    assert level["all_of_table"]["count"] == level["moves"]  # every move heard by each of the 3 other phones
    assert level["delivery"]["count"] == 3 * level["moves"]
    assert level["reconnects"] == level["stream_errors"] == 0
    assert level["kb_per_connection"] > 0
