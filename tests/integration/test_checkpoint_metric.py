"""The checkpoint-timestamp gauge follows the signed checkpoints: an append that takes a chain past a multiple of N
sets it to that checkpoint's time once its transaction commits."""

from __future__ import annotations

from prometheus_client import REGISTRY

from service.settings import Settings
from tests.conftest import make_settings
from tests.support.clock import ManualClock
from tests.support.live import live


async def test_a_checkpoint_signed_in_an_append_sets_the_gauge_to_its_time(database_url: str) -> None:
    clock = ManualClock()
    clock.advance(7 * 86_400)  # a week ahead: no other test's checkpoint can have this time
    settings: Settings = make_settings(database_url, checkpoint_every_records=3)
    async with live(settings, clock=clock) as server:
        table = await server.api.table(mode="test")  # one record: table_created
        body = {"bets": [{"player_id": "p1", "ante": 10}], "forced_cards": ["7S", "8H"]}
        await server.api.ok("POST", f"/v1/tables/{table['table_id']}/rounds", body)  # seven more: past 3 and 6
    signed = REGISTRY.get_sample_value("reddog_audit_checkpoint_timestamp_seconds")
    assert signed is not None
    assert abs(signed - clock.now.timestamp()) < 1
