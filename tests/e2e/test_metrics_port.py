"""A real server's metrics port, after forced-card rounds of every outcome, shows exactly what was played, added up
over its two worker processes; the public port shows no metrics; the probes say what they check."""

from __future__ import annotations

from fractions import Fraction

import httpx

from tests.e2e.conftest import Sample, key, scrape, scrape_until_shown
from tests.support import every_outcome as hand
from tests.support.client import Signed
from tests.support.served import Served

CURRENCY = "DKK"  # a currency no other test plays: no other test's money shares these series
MONEY = {"paytable": "standard/v1", "decks": "1", "currency": CURRENCY, "mode": "test"}
ROUNDS = {"paytable": "standard/v1", "decks": "1", "mode": "test"}
# Audit records of the table and its seven rounds, event by event (see tests/support/every_outcome.py):
#   every round: shoe_shuffled, round_opened, two posts dealt, shoe_revealed once it ends;
#   r1, r5 (spread, decided): spread_announced, decision, third card, bet_settled, round_settled;
#   r2 (consecutive): bet_settled, round_settled;   r3, r4 (pairs): third card, bet_settled, round_settled;
#   r6 (void): spread_announced, bet_settled (the refund), round_voided;
#   r7 (two bets, dealer closes): spread_announced, two decisions, third card, two bet_settled, round_settled.
AUDIT = {
    "table_created": 1,
    "shoe_shuffled": 7,
    "round_opened": 7,
    "card_dealt": 7 * 2 + 5,  # third cards: r1, r3, r4, r5, r7
    "spread_announced": 4,
    "decision": 4,
    "bet_settled": 8,
    "round_settled": 6,
    "round_voided": 1,
    "shoe_revealed": 7,
}
REQUESTS = {  # (method, route, status): how many
    ("POST", "/v1/tables", "201"): 1,
    ("POST", "/v1/tables/{table_id}/rounds", "201"): 7,
    ("POST", "/v1/rounds/{round_id}/decisions", "200"): 3,
    ("POST", "/v1/rounds/{round_id}/void", "200"): 1,
    ("POST", "/v1/rounds/{round_id}/close", "200"): 1,
}


def expected_changes() -> dict[Sample, float]:
    """What the seven rounds add to each series, from the hand calculation alone."""
    changes = {
        key("reddog_paid_minor_units_total", **MONEY): hand.PAID,
        key("reddog_wagered_minor_units_total", **MONEY): hand.WAGERED,
        key("reddog_expected_paid_minor_units_total", **MONEY): float(hand.EXPECTED_PAID),  # 83.28
        key("reddog_expected_wagered_minor_units_total", **MONEY): float(hand.EXPECTED_WAGERED),
        key("reddog_net_variance_minor_units_squared_total", **MONEY): float(hand.VARIANCE),  # 1248.0256
        key("reddog_voided_bets_total", **MONEY): 1,
        key("reddog_refunded_minor_units_total", **MONEY): hand.REFUNDED,
    }
    for outcome, count in hand.OUTCOMES.items():
        status = "void" if outcome == "spread_3" else "settled"
        changes[key("reddog_rounds_total", outcome=outcome, status=status, **ROUNDS)] = count
    for (decision, result), count in hand.BETS.items():
        labels = {"paytable": "standard/v1", "decision": decision, "result": result, "mode": "test"}
        changes[key("reddog_bets_total", **labels)] = count
    for kind, count in AUDIT.items():
        changes[key("reddog_audit_records_appended_total", kind=kind)] = count
    for (method, route, status), count in REQUESTS.items():
        changes[key("reddog_http_request_duration_seconds_count", method=method, route=route, status=status)] = count
    return changes


async def test_after_rounds_of_every_outcome_the_metrics_port_shows_exactly_what_was_played(
    server: Served, e2e_api: Signed
) -> None:
    before = scrape(server.metrics_url)
    table = await e2e_api.table(**hand.TABLE, currency=CURRENCY)
    await hand.play_every_outcome(e2e_api, table["table_id"])
    after = scrape(server.metrics_url)
    expected = expected_changes()
    changed = {k: after.get(k, 0) - before.get(k, 0) for k in expected}
    assert changed == {k: _near(changed[k], v) for k, v in expected.items()}
    # The money series of this currency are new: they start at exactly what these rounds moved.
    assert before.get(key("reddog_paid_minor_units_total", **MONEY)) is None
    assert after[key("reddog_paid_minor_units_total", **MONEY)] == 163
    # Every other outcome of this configuration is exported at 0, so Prometheus sees each series start.
    assert after[key("reddog_rounds_total", outcome="spread_11", status="settled", **ROUNDS)] == 0


def _near(got: float, want: float | Fraction) -> float:
    """`got` when it is `want` up to the rounding of float additions, else `want` (the assertion then shows both)."""
    return got if abs(got - float(want)) <= 1e-9 * max(1.0, abs(float(want))) else float(want)


async def test_the_theory_of_the_table_configuration_is_published_for_both_outcomes_and_rtp(
    server: Served, e2e_api: Signed
) -> None:
    await e2e_api.table(**hand.TABLE, currency=CURRENCY)
    spread_11 = key("reddog_outcome_probability", decks="1", outcome="spread_11")
    rtp = key("reddog_theoretical_rtp", paytable="standard/v1", decks="1")
    samples = await scrape_until_shown(server.metrics_url, spread_11, rtp)  # computed off the loop: a moment later
    # Only A-2 is a spread of 11 in one deck: either order, 4 x 4 of 52 x 51.
    assert samples[spread_11] == 32 / (52 * 51)
    assert 0.9 < samples[rtp] < 1


def test_the_pool_gauges_add_up_the_open_connections_of_both_workers(server: Served) -> None:
    samples = scrape(server.metrics_url)
    assert samples[key("reddog_db_pool_size")] >= 4  # each worker opens RD_POOL_MIN_SIZE (2) connections at start
    assert samples[key("reddog_db_pool_waiters")] == 0


def test_the_public_port_shows_no_metrics_and_answers_the_probes(server: Served) -> None:
    assert httpx.get(f"{server.api_url}/metrics").status_code == 404
    assert httpx.get(f"{server.api_url}/health/live").json() == {"status": "ok"}
    assert httpx.get(f"{server.api_url}/health/ready").json() == {"status": "ready"}
