"""The API tests' own fixtures: a set of ids that bad requests can aim at."""

from __future__ import annotations

import uuid

import pytest

from tests.api.helpers import open_round
from tests.support.client import Signed


@pytest.fixture
async def targets(api: Signed) -> dict[str, str]:
    """The ids the bad requests aim at: a test table, a live table, a limits table, a settled and an open round."""
    test = await api.table(mode="test")
    live = await api.table()
    limits = await api.table(mode="test", min_ante=5, max_ante=100, max_bets=2)
    one_deck = await api.table(mode="test", decks=1)
    settled = await open_round(api, test["table_id"], [("p1", 10)], ["5S", "6H"])  # consecutive: settles at once
    rnd = await open_round(api, test["table_id"], [("p1", 10), ("p2", 10)], ["4S", "TH", "7D"])
    return {
        "test": test["table_id"],
        "live": live["table_id"],
        "limits": limits["table_id"],
        "one_deck": one_deck["table_id"],
        "round": rnd["round_id"],
        "settled": settled["round_id"],
        "bet": rnd["bets"][0]["bet_id"],
        "random": str(uuid.uuid4()),
    }
