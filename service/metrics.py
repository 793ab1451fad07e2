"""Prometheus metrics, defined once at import with low-cardinality labels (never round or player ids)."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

from paytables.round import Round, RoundStatus

HTTP_REQUESTS = Counter("reddog_http_requests_total", "HTTP requests served", ["method", "route", "status"])
HTTP_DURATION = Histogram(
    "reddog_http_request_duration_seconds",
    "HTTP request duration",
    ["method", "route"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)
ROUNDS_ENDED = Counter(
    "reddog_rounds_ended_total", "Rounds settled or voided", ["paytable", "outcome", "status", "mode"]
)
BETS_SETTLED = Counter("reddog_bets_settled_total", "Bets settled", ["paytable", "currency", "result", "mode"])
WAGERED = Counter(
    "reddog_wagered_minor_units_total", "Ante plus raise of settled bets", ["paytable", "currency", "mode"]
)
PAID = Counter(
    "reddog_paid_minor_units_total", "Total returned to players (stake included)", ["paytable", "currency", "mode"]
)
SWEPT = Counter("reddog_sweeper_settled_total", "Rounds settled by the raise-window sweeper")


def record_round(rnd: Round, currency: str) -> None:
    """Count a round that just ended; called after its transaction committed, so nothing is counted twice."""
    mode = "test" if rnd.test else "live"
    ROUNDS_ENDED.labels(rnd.paytable, rnd.outcome or "none", rnd.status.value, mode).inc()
    if rnd.status is not RoundStatus.SETTLED:
        return
    for bet in rnd.bets:
        BETS_SETTLED.labels(rnd.paytable, currency, bet.result or "none", mode).inc()
        WAGERED.labels(rnd.paytable, currency, mode).inc(bet.ante + bet.raise_amount)
        PAID.labels(rnd.paytable, currency, mode).inc(bet.payout or 0)
