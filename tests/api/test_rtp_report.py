"""GET /v1/reports/rtp adds up every ended round from the database, exactly, and shows each caller what is theirs."""

from __future__ import annotations

import asyncio
import json
import math
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from typing import Any
from urllib.parse import quote
from uuid import UUID

import asyncpg
import pytest

from paytables.red_dog import loader
from paytables.red_dog.analysis import rtp
from service.cli.cli import main
from tests.api.helpers import open_round, problem
from tests.support import every_outcome as hand
from tests.support.client import Signed


def only_line(report: Any) -> Any:
    assert len(report["lines"]) == 1, report
    return report["lines"][0]


async def test_the_report_of_every_outcome_matches_the_hand_calculation(api: Signed) -> None:
    table = await api.table(**hand.TABLE)
    await hand.play_every_outcome(api, table["table_id"])
    line = only_line(await api.ok("GET", f"/v1/reports/rtp?mode=test&table_id={table['table_id']}"))
    assert (line["paytable"], line["decks"], line["currency"]) == ("standard/v1", 1, "EUR")
    assert (line["rounds"], line["bets"], line["voided_rounds"], line["voided_bets"]) == (6, 7, 1, 1)
    assert (line["wagered"], line["paid"], line["refunded"], line["net"]) == (74, 163, 10, 89)
    assert line["observed_rtp_fraction"] == "163/74"
    assert line["observed_rtp"] == "2.2027027027"  # 163/74 to ten places
    assert (line["expected_paid_fraction"], line["expected_wagered_fraction"]) == ("2082/25", "74/1")
    assert line["expected_paid"] == "83.2800000000"
    assert line["expected_rtp_fraction"] == "1041/925"  # 2082/25 / 74
    assert line["net_variance_fraction"] == "780016/625"
    # (89 - 232/25) / sqrt(780016/625) = 1993/25 / (sqrt(780016)/25)
    assert math.isclose(line["integrity_z"], 1993 / math.sqrt(780016), rel_tol=1e-12)
    # No post penalty on standard/v1: the optimal-play return is `reddog rtp`'s return per total bet.
    assert line["theoretical_rtp_fraction"] == rtp.compute(loader.get("standard/v1"), 1).rtp_per_total_bet_fraction


async def test_the_outcome_mix_lists_all_fourteen_outcomes_against_their_exact_odds(api: Signed) -> None:
    table = await api.table(**hand.TABLE)
    await hand.play_every_outcome(api, table["table_id"])
    line = only_line(await api.ok("GET", f"/v1/reports/rtp?mode=test&table_id={table['table_id']}"))
    odds = {k: Fraction(v) for k, v in rtp.compute(loader.get("standard/v1"), 1).outcome_probabilities.items()}
    observed = {o["outcome"]: o["observed"] for o in line["outcomes"]}
    assert observed == {name: hand.OUTCOMES.get(name, 0) for name in odds}
    assert {o["outcome"]: o["probability_fraction"] for o in line["outcomes"]} == {
        name: f"{p.numerator}/{p.denominator}" for name, p in odds.items()
    }
    # Pearson over the 7 rounds, written out here: sum (observed - 7p)^2 / 7p.
    statistic = sum((hand.OUTCOMES.get(name, 0) - 7 * p) ** 2 / (7 * p) for name, p in odds.items())
    chi = line["chi_square"]
    assert chi["degrees_of_freedom"] == 13
    assert math.isclose(chi["statistic"], float(statistic), rel_tol=1e-12)
    assert 0 <= chi["p_value"] <= 1


async def test_rounds_that_ended_without_stored_figures_are_computed_from_their_stored_shoe(
    api: Signed, db: asyncpg.Connection
) -> None:
    table = await api.table(**hand.TABLE)
    await hand.play_every_outcome(api, table["table_id"])
    path = f"/v1/reports/rtp?mode=test&table_id={table['table_id']}"
    stored = await api.ok("GET", path)
    # As if these rounds had ended before migration 006, or on a replica of an older release.
    deleted = await db.execute("DELETE FROM round_figures WHERE table_id = $1", UUID(table["table_id"]))
    assert deleted == "DELETE 7"
    assert await api.ok("GET", path) == stored


async def test_the_report_covers_rounds_that_ended_in_the_window_and_live_play_unless_asked(api: Signed) -> None:
    table = await api.table(**hand.TABLE)
    await hand.play_every_outcome(api, table["table_id"])
    later = quote((datetime.now(UTC) + timedelta(hours=1)).isoformat())
    earlier = quote((datetime.now(UTC) - timedelta(hours=1)).isoformat())
    assert (await api.ok("GET", f"/v1/reports/rtp?mode=test&from={later}"))["lines"] == []
    assert only_line(await api.ok("GET", f"/v1/reports/rtp?mode=test&from={earlier}&to={later}"))["rounds"] == 6
    assert (await api.ok("GET", "/v1/reports/rtp"))["lines"] == []  # live is the default: test rounds are apart
    assert (await api.ok("GET", "/v1/reports/rtp?mode=test&paytable=generous/v1"))["lines"] == []
    problem(await api.get("/v1/reports/rtp?paytable=nonesuch/v1"), 422, "VALIDATION_ERROR")
    problem(await api.get("/v1/reports/rtp?mode=both"), 400, "VALIDATION_ERROR")


async def test_an_operator_sees_its_own_tables_and_an_auditor_every_operators(
    api: Signed, other_api: Signed, auditor_api: Signed
) -> None:
    mine = await api.table(**hand.TABLE)
    theirs = await other_api.table(**hand.TABLE, currency="GBP")
    await open_round(api, mine["table_id"], [("p1", 10)], ["7S", "8H"])
    await open_round(other_api, theirs["table_id"], [("p1", 10)], ["7S", "8H"])
    assert [(x["currency"], x["rounds"]) for x in (await api.ok("GET", "/v1/reports/rtp?mode=test"))["lines"]] == [
        ("EUR", 1)
    ]
    assert (await api.ok("GET", f"/v1/reports/rtp?mode=test&table_id={theirs['table_id']}"))["lines"] == []
    seen = only_line(await auditor_api.ok("GET", f"/v1/reports/rtp?mode=test&table_id={theirs['table_id']}"))
    assert (seen["currency"], seen["rounds"], seen["wagered"], seen["paid"]) == ("GBP", 1, 10, 10)


async def test_reddog_report_rtp_prints_the_same_figures_as_a_table(
    api: Signed, database_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    table = await api.table(**hand.TABLE)
    await hand.play_every_outcome(api, table["table_id"])
    monkeypatch.setenv("DATABASE_URL", database_url)
    command = ["report", "rtp", "--mode", "test", "--table", table["table_id"]]
    assert await asyncio.to_thread(main, command) == 0
    printed = capsys.readouterr().out
    assert "standard/v1, 1 deck(s), EUR" in printed
    assert "6 settled (7 bets), 1 voided (1 bets)" in printed
    assert "wagered / paid    74 / 163   net 89   refunded 10" in printed
    assert "paid 83.28 / wagered 74.00   RTP 1.125405" in printed  # 1041/925
    assert f"integrity z       {1993 / math.sqrt(780016):+.3f}" in printed
    assert await asyncio.to_thread(main, [*command, "--json"]) == 0
    as_json = json.loads(capsys.readouterr().out)
    assert as_json == (await api.ok("GET", f"/v1/reports/rtp?mode=test&table_id={table['table_id']}"))["lines"]


async def test_a_per_seat_table_reports_each_hand_and_a_void_keeps_the_hands_settled_at_the_deal(api: Signed) -> None:
    table = await api.table(mode="test", decks=1, deal="per_seat")
    # Seat 1: 5 6 pushes; seat 2: 8 8 then 8, trips (10 + 110 back); seat 3: 4 T, spread 5, a 7 wins at 1 to 1.
    mixed = ["5S", "8S", "4D", "6H", "8H", "TC", "8D", "7C"]
    three = [("p1", 10), ("p2", 10), ("p3", 10)]
    played = await open_round(api, table["table_id"], three, mixed)
    await api.ok(
        "POST", f"/v1/rounds/{played['round_id']}/decisions", {"bet_id": played["bets"][2]["bet_id"], "action": "raise"}
    )
    voided = await open_round(api, table["table_id"], three, mixed)
    await api.ok("POST", f"/v1/rounds/{voided['round_id']}/void", {"reason": "fault"})
    line = only_line(await api.ok("GET", f"/v1/reports/rtp?mode=test&table_id={table['table_id']}"))
    # Played: 10 + 10 + 20 staked, 10 + 120 + 40 back. Voided: the push and the trips stand (20 staked, 130 back),
    # seat 3's ante of 10 is refunded.
    assert (line["wagered"], line["paid"], line["refunded"]) == (40 + 20, 170 + 130, 10)
    # Seat 2 drew its third card from the 46 left after six, two of them 8s; seat 3 from the 45 left after seven,
    # fifteen of them 5 to 9 (three 5s, three 6s, four 7s, one 8, four 9s).
    trips, win = Fraction(2, 46), Fraction(15, 45)
    expected_paid = 2 * (10 + 10 + 110 * trips) + 40 * win
    assert Fraction(line["expected_paid_fraction"]) == expected_paid
    assert Fraction(line["expected_wagered_fraction"]) == 60
    assert sum(o["observed"] for o in line["outcomes"]) == 0  # the round mix has no per-seat round in it


async def test_a_rolled_back_round_leaves_the_report_whether_it_had_ended_or_not(api: Signed) -> None:
    table = await api.table(mode="test", decks=1)
    path = f"/v1/reports/rtp?mode=test&table_id={table['table_id']}"
    trips = await open_round(api, table["table_id"], [("p1", 10)], ["8S", "8H", "8D"])  # settles at once: 120 back
    waiting = await open_round(api, table["table_id"], [("p1", 10)], ["4S", "TH"])  # in its raise window
    line = only_line(await api.ok("GET", path))
    assert (line["rounds"], line["wagered"], line["paid"]) == (1, 10, 120)
    for rnd in (trips, waiting):
        await api.ok("POST", f"/v1/rounds/{rnd['round_id']}/rollback", {"reason": "wallet debit failed"})
    after = only_line(await api.ok("GET", path))
    assert (after["rounds"], after["voided_rounds"], after["wagered"], after["paid"], after["refunded"]) == (
        0,
        0,
        0,
        0,
        0,
    )
    assert after["expected_paid_fraction"] == "0/1"
