"""The alerts an on-call engineer missed fire against a real Prometheus (Debian's) when caused: the service's database
stopped while nobody calls the service, and discovery that finds no target at all.

The rules are the repository's, evaluated every half second, with every alert's `for` held for 1 s instead of
minutes: promtool's tests (deploy/prometheus/tests) hold the shipped durations, and this test the expressions
against what a running service really exports."""

from __future__ import annotations

import json
from pathlib import Path

from tests.deploy.support import tool
from tests.support.private_cluster import private_cluster
from tests.support.prometheus import prometheus, until, value
from tests.support.served import served

HOLD = "1s"


async def test_a_database_stopped_while_nobody_calls_fires_database_unreachable(tmp_path: Path) -> None:
    binary = tool("prometheus")
    async with private_cluster() as cluster:
        with served(cluster.app_url, tmp_path / "served", workers=2) as server:
            target = server.metrics_url.removeprefix("http://").removesuffix("/metrics")
            with prometheus(binary, target, tmp_path / "prometheus", hold=HOLD) as scraping:
                await until(lambda: value(scraping, "reddog_database_reachable == 1"), "both workers' probes answering")
                assert scraping.firing("RedDogDatabaseUnreachable") == []

                cluster.stop("fast")  # every session cut, no new one accepted

                fired = await until(
                    lambda: scraping.firing("RedDogDatabaseUnreachable") or None, "the alert firing", seconds=60
                )
                assert [a["labels"]["instance"] for a in fired] == [target]
                assert value(scraping, "reddog_database_reachable") == 0
                # Nobody called the API: the only requests it ever counted are served()'s readiness probes.
                assert scraping.query('reddog_http_request_duration_seconds_count{route=~"/v1/.*"}') == []
                show("RedDogDatabaseUnreachable", fired, scraping.query("reddog_database_reachable"))


async def test_discovery_that_finds_no_target_fires_no_targets_and_not_down(tmp_path: Path) -> None:
    with prometheus(tool("prometheus"), None, tmp_path, hold=HOLD) as scraping:
        fired = await until(lambda: scraping.firing("RedDogNoTargets") or None, "the alert firing")
        assert [a["labels"]["job"] for a in fired] == ["reddog"]
        assert scraping.query('up{job="reddog"}') == []
        assert scraping.firing("RedDogDown") == []
        show("RedDogNoTargets", fired, scraping.query('absent(up{job="reddog"})'))


def show(alert: str, fired: list[dict[str, object]], query: object) -> None:
    """What Prometheus answered, for a closing note or an on-call engineer (seen with -s)."""
    print(f"{alert}: /api/v1/alerts gave {json.dumps(fired)}; the expression's query gave {json.dumps(query)}")
