"""Prometheus metrics, defined once at import with low-cardinality labels (never round, bet or player ids).

Every name, its labels and its meaning are listed in deploy/METRICS.md; the dashboard and the alert rules in
deploy/ are tested against this module. Gauges say how several worker processes add up (`multiprocess_mode`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from prometheus_client import Counter, Gauge, Histogram, values

from paytables.red_dog.analysis import rtp_report
from paytables.red_dog.analysis.chi_square import outcome_probabilities
from paytables.red_dog.analysis.red_dog_expectation import Expectation, optimal_play_return
from paytables.red_dog.paytable import Paytable
from paytables.red_dog.red_dog import Result
from paytables.red_dog.round import Round


def _pid_kept_value_class() -> Any:
    """prometheus-client's multiprocess value asks the OS for the process id on every update, to notice a fork
    (some twenty times a round). The id is kept here instead and renewed in a forked child, so a fork is noticed
    all the same. Set before the first metric exists: each value class keeps its own open files."""
    if values.ValueClass is values.MutexValue:  # one process: no files, nothing to check
        return values.MutexValue
    if _values_made_by(values.ValueClass):  # two writers of one mmap file, each at its own offsets, corrupt it
        raise RuntimeError(
            "a metric was created before service.observability.metrics: its values would share this one's files"
        )
    pid = [os.getpid()]
    os.register_at_fork(after_in_child=lambda: pid.__setitem__(0, os.getpid()))
    return values.MultiProcessValue(process_identifier=lambda: pid[0])  # type: ignore[no-untyped-call]


def _values_made_by(value_class: Any) -> list[Any]:
    """The values a multiprocess value class has made so far: prometheus-client keeps them in a list its
    `__init__` closes over (the pinned version's; a version without it is treated as having made none)."""
    init = value_class.__init__
    cells = dict(zip(init.__code__.co_freevars, init.__closure__ or (), strict=True))
    made = cells["values"].cell_contents if "values" in cells else []
    return list(made)


values.ValueClass = _pid_kept_value_class()

MONEY = ["paytable", "decks", "currency", "mode"]  # minor units add up within one currency; RTP within one deck count

HTTP_DURATION = Histogram(
    "reddog_http_request_duration_seconds",
    "HTTP request duration; its _count is the requests served, by route template and status code",
    ["method", "route", "status"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)
ROUNDS = Counter(
    "reddog_rounds",
    "Rounds ended, by outcome (consecutive, pair_push, trips, spread_1..spread_11) and status (settled, void)",
    ["paytable", "decks", "outcome", "status", "mode"],
)
BETS = Counter(
    "reddog_bets",
    "Bets ended, by decision (raise, call, timeout_call, none) and result",
    ["paytable", "decision", "result", "mode"],
)
WAGERED = Counter("reddog_wagered_minor_units", "Every debit of settled bets: ante, raise and post penalty", MONEY)
PAID = Counter("reddog_paid_minor_units", "Every credit of settled bets: the payout, stake included", MONEY)
EXPECTED_PAID = Counter(
    "reddog_expected_paid_minor_units", "Exact expected payout of settled bets given posts, shoe and decision", MONEY
)
EXPECTED_WAGERED = Counter(
    "reddog_expected_wagered_minor_units", "Exact expected debits of settled bets given posts, shoe and decision", MONEY
)
NET_VARIANCE = Counter(
    "reddog_net_variance_minor_units_squared", "Exact variance of paid - wagered of settled rounds, summed", MONEY
)
VOIDED_BETS = Counter("reddog_voided_bets", "Bets of voided rounds", MONEY)
REFUNDED = Counter("reddog_refunded_minor_units", "Stakes refunded by voided rounds", MONEY)
MONEY_COUNTERS = (WAGERED, PAID, EXPECTED_PAID, EXPECTED_WAGERED, NET_VARIANCE, VOIDED_BETS, REFUNDED)
OPEN_RAISE_WINDOWS = Gauge(
    "reddog_open_raise_windows", "Rounds waiting in their raise window (sampled)", multiprocess_mode="livemostrecent"
)
ROUNDS_PAST_DEADLINE = Gauge(
    "reddog_rounds_past_deadline",
    "Rounds still unsettled whose deadline passed before the last sweep pass began (0 while the sweeper keeps up)",
    multiprocess_mode="livemostrecent",
)
SWEEPER_LAG = Histogram(
    "reddog_sweeper_lag_seconds",
    "From a raise window's deadline to the sweeper settling its round",
    buckets=(0.05, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 30.0, 60.0),
)
SWEPT = Counter("reddog_sweeper_settled", "Rounds settled by the raise-window sweeper")
DB_POOL_SIZE = Gauge("reddog_db_pool_size", "Open database connections in the pools", multiprocess_mode="livesum")
DB_POOL_WAITERS = Gauge(
    "reddog_db_pool_waiters", "Tasks waiting for a database connection", multiprocess_mode="livesum"
)
OPTIMISTIC_CONFLICTS = Counter(
    "reddog_optimistic_conflicts",
    "Unlocked write attempts that found their table changed (or their key taken) and ran again the locked way",
)
REMEMBERED_STARTS = Counter(
    "reddog_remembered_row_starts",
    "Round requests that started from the row this worker's last write left instead of reading it",
)
PROBLEMS = Counter(
    "reddog_problems",
    "Requests answered with a problem document (RFC 9457), by HTTP status and its stable code",
    ["status", "code"],
)
ROLLBACKS = Counter(
    "reddog_rollbacks",
    "Rounds rolled back (an aggregator undoing a round whose wallet call failed), by the status they had",
    ["paytable", "decks", "previous", "mode"],
)
REPLAYS = Counter(
    "reddog_idempotent_replays",
    "Writes answered with the stored reply of their Idempotency-Key (a client retrying), by route template",
    ["route"],
)
AUTH_FAILURES = Counter(
    "reddog_auth_failures",
    "Signed requests refused 401, by reason (the caller sees one answer for all, the on-call engineer which)",
    ["reason"],
)
AUTH_REASONS = ("unknown_operator", "bad_timestamp", "stale_timestamp", "malformed_signature", "bad_signature")
BUILD_INFO = Gauge(
    "reddog_build_info",
    "Always 1: the release serving, by version and git revision",
    ["version", "revision"],
    multiprocess_mode="max",
)
DATABASE_REACHABLE = Gauge(
    "reddog_database_reachable",
    "1 while every worker's last database probe answered in time, else 0 (each worker probes on its own)",
    multiprocess_mode="livemin",
)
DATABASE_PROBED = Gauge(
    "reddog_database_probe_timestamp_seconds",
    "Unix time of the last database probe of the worker that probed longest ago: a stuck probe shows as age",
    multiprocess_mode="livemin",
)
AUDIT_RECORDS = Counter("reddog_audit_records_appended", "Audit records appended, by event kind", ["kind"])
AUDIT_CHECKPOINT = Gauge(
    "reddog_audit_checkpoint_timestamp_seconds",
    "Unix time of the newest audit checkpoint; its age is time() minus this",
    multiprocess_mode="max",
)
CHAINS_FENCED = Gauge(
    "reddog_chains_fenced",
    "Audit chains refused because the database's head is behind or differs from their published checkpoint",
    multiprocess_mode="max",
)
FORK_REFUSALS = Counter(
    "reddog_fork_refusals", "Requests refused because their table's chain is behind its published checkpoint"
)
OUTBOX_WAITING = Gauge(
    "reddog_outbox_waiting",
    "Outbox messages owed and not yet delivered (sampled by each delivery worker from the database)",
    multiprocess_mode="livemostrecent",
)
OUTBOX_OLDEST_AGE = Gauge(
    "reddog_outbox_oldest_age_seconds",
    "Age of the oldest outbox message still owed (0: none): a receiver away, or a message held behind a dead letter",
    multiprocess_mode="livemostrecent",
)
OUTBOX_DEAD_LETTERS = Gauge(
    "reddog_outbox_dead_letters",
    "Outbox messages parked as dead letters and not yet retried or resolved by an operator",
    multiprocess_mode="livemostrecent",
)
OUTBOX_ATTEMPTS = Counter(
    "reddog_outbox_attempts",
    "Delivery attempts, by channel and result: delivered, or the failure (timeout, connection, status_4xx, status_5xx,"
    " no_target, error)",
    ["channel", "result"],
)
OUTBOX_PARKED = Counter("reddog_outbox_parked", "Outbox messages parked as dead letters, by channel", ["channel"])
OUTBOX_LAG = Histogram(
    "reddog_outbox_delivery_lag_seconds",
    "From writing an outbox message (its change's COMMIT) to its delivery being acknowledged",
    ["channel"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 3600.0),
)
THEORETICAL_RTP = Gauge(
    "reddog_theoretical_rtp",
    "Expected paid over expected wagered at optimal play from a fresh shoe",
    ["paytable", "decks"],
    multiprocess_mode="max",
)
OUTCOME_PROBABILITY = Gauge(
    "reddog_outcome_probability",
    "Exact probability of each round outcome from a fresh shoe",
    ["decks", "outcome"],
    multiprocess_mode="max",
)


def record_round(rnd: Round, currency: str, expectation: Expectation | None = None) -> None:
    """Count a round that just ended; called after its transaction committed, so nothing is counted twice.

    `expectation` is `red_dog_expectation.round_expectation` over all the round's bets; pass it for settled rounds.
    """
    mode = "test" if rnd.test else "live"
    _labelled(ROUNDS, rnd.paytable, str(rnd.decks), outcome_name(rnd), rnd.status.value, mode).inc()
    for bet in rnd.bets:
        _labelled(BETS, rnd.paytable, bet.decision or "none", bet.result or "none", mode).inc()
    money = (rnd.paytable, str(rnd.decks), currency, mode)
    if rnd.is_open:
        return
    for bet in rnd.bets:  # a voided per-seat round may hold bets that settled at the deal: those count as settled
        if bet.result is Result.ROLLED_BACK:  # every transaction reversed: nothing to count
            continue
        if bet.result is Result.VOID:
            _labelled(VOIDED_BETS, *money).inc()
            _labelled(REFUNDED, *money).inc(bet.payout or 0)
        elif bet.result is not None:
            _labelled(WAGERED, *money).inc(sum(m.amount for m in bet.transactions if m.type == "debit"))
            _labelled(PAID, *money).inc(bet.payout or 0)
    if expectation is not None:
        _labelled(EXPECTED_PAID, *money).inc(float(expectation.expected_paid))
        _labelled(EXPECTED_WAGERED, *money).inc(float(expectation.expected_wagered))
        _labelled(NET_VARIANCE, *money).inc(float(expectation.variance))


def _labelled(metric: Any, *values: str) -> Any:
    """`metric.labels(*values)`, kept: labels() takes a lock and builds the key on every call, several times a round.
    Every label here has a small, fixed set of values (paytable, decks, outcome, status, mode, currency, kind,
    method, route template, HTTP status)."""
    key = (metric, values)
    child = _children.get(key)
    if child is None:
        child = _children[key] = metric.labels(*values)
    return child


_children: dict[tuple[Any, tuple[str, ...]], Any] = {}


def outcome_name(rnd: Round) -> str:
    """The outcome as `rtp` names it, so counts line up with `reddog_outcome_probability`."""
    return rtp_report.outcome_name(rnd)


def record_rollback(rnd: Round, previous: str) -> None:
    """A round rolled back, once its transaction committed; `previous` is the status it had before."""
    _labelled(ROLLBACKS, rnd.paytable, str(rnd.decks), previous, "test" if rnd.test else "live").inc()


def record_replay(route: str) -> None:
    """A write answered from its idempotency key's stored reply; `route` is the route template (a fixed set)."""
    _labelled(REPLAYS, route).inc()


def record_problem(status: int, code: str) -> None:
    """A problem document sent; `code` is one of the service's stable codes (a fixed set, never caller text)."""
    _labelled(PROBLEMS, str(status), code).inc()


def record_auth_failure(reason: str) -> None:
    """A signed request refused 401; `reason` is one of AUTH_REASONS."""
    _labelled(AUTH_FAILURES, reason).inc()


def publish_build(version: str, revision: str) -> None:
    """The release this process runs; once at start-up (every series starts at zero for the failure reasons too,
    so a first failure shows in increase())."""
    BUILD_INFO.labels(version, revision).set(1)
    for reason in AUTH_REASONS:
        AUTH_FAILURES.labels(reason)


def observe_database(reachable: bool, at: float) -> None:
    """One database probe's answer, at Unix time `at`."""
    DATABASE_REACHABLE.set(1 if reachable else 0)
    DATABASE_PROBED.set(at)


def record_audit(kinds: Iterable[str]) -> None:
    """Audit records appended, by event kind; called after their transaction committed."""
    for kind in kinds:
        _labelled(AUDIT_RECORDS, kind).inc()


def observe_checkpoint(at: datetime) -> None:
    """The hook for audit checkpoints: call it after a checkpoint commits (and at start-up with the newest one)."""
    AUDIT_CHECKPOINT.set(at.timestamp())


def observe_request(method: str, route: str, status: int, seconds: float) -> None:
    _labelled(HTTP_DURATION, method, route, str(status)).observe(seconds)  # route templates: a small, fixed set


def observe_sweep(lag_seconds: float) -> None:
    """One round settled by the sweeper, `lag_seconds` after its deadline."""
    SWEPT.inc()
    SWEEPER_LAG.observe(max(0.0, lag_seconds))


def observe_pool(size: int, waiters: int) -> None:
    observe_pool_size(size)
    DB_POOL_WAITERS.set(waiters)


def observe_pool_size(size: int) -> None:
    """The pool's size, written only when it changed: every request samples it, and in multiprocess mode each write
    is a lock, a getpid() and a write to a shared file."""
    global _pool_size
    if size != _pool_size:
        DB_POOL_SIZE.set(size)
        _pool_size = size


_pool_size = -1  # the size this process last wrote


def publish_theoretical(paytable: Paytable, decks: int) -> None:
    """Export the optimal-play return and the outcome probabilities of a table configuration; once per process."""
    if (paytable.id, decks) in _published:
        return
    THEORETICAL_RTP.labels(paytable.id, str(decks)).set(float(optimal_play_return(paytable, decks)))
    for outcome, p in outcome_probabilities(paytable, decks).items():
        OUTCOME_PROBABILITY.labels(str(decks), outcome).set(float(p))
    _published.add((paytable.id, decks))


_published: set[tuple[str, int]] = set()  # the figures are exact and fixed: computing them once is enough


def record_delivery_attempt(channel: str, failure: str | None) -> None:
    """One delivery attempt's result: None delivered it, else the failure's reason (a small, fixed set)."""
    _labelled(OUTBOX_ATTEMPTS, channel, failure or "delivered").inc()


def observe_delivery_lag(channel: str, seconds: float) -> None:
    _labelled(OUTBOX_LAG, channel).observe(max(0.0, seconds))


def record_dead_letter(channel: str) -> None:
    _labelled(OUTBOX_PARKED, channel).inc()


def observe_outbox(waiting: int, oldest_age_seconds: float, dead: int) -> None:
    OUTBOX_WAITING.set(waiting)
    OUTBOX_OLDEST_AGE.set(oldest_age_seconds)
    OUTBOX_DEAD_LETTERS.set(dead)
