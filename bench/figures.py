"""The figures a run reports, computed from what the generator or pgbench saw and the CPU used in the same window."""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from bench.cpu_accounting import WindowCpu
from bench.latency import LatencySummary, summarise
from bench.load_generator import Window


class RoundFigures(msgspec.Struct, frozen=True, kw_only=True):
    """Complete signed rounds through the real service."""

    seconds: float
    rounds: int
    rounds_per_s: float
    requests_per_s: float
    requests_per_round: float
    mix: dict[str, int]  # settled_at_open, raise, call
    latency: dict[str, LatencySummary]  # by endpoint: open, decide
    errors: dict[str, int]
    cpu_ms_per_round: dict[str, float]  # service, postgres, postgres_own_backends, generator
    service_ms_per_request: float
    service_processes_ms: list[float]  # each service process over the window: shows how workers shared the load
    other_load: float
    machine_load: float
    cpu_bound_rounds_per_s: float  # an estimate: every core busy at the CPU per round measured (service, PG, generator)
    wal_bytes_per_round: float = 0.0  # pg_current_wal_insert_lsn() moved over the window, per complete round


class HttpFigures(msgspec.Struct, frozen=True, kw_only=True):
    """GET /health/live under the same generator and clients: the framework's floor."""

    seconds: float
    requests_per_s: float
    latency: LatencySummary
    errors: dict[str, int]
    service_ms_per_request: float
    generator_ms_per_request: float
    other_load: float


class CeilingFigures(msgspec.Struct, frozen=True, kw_only=True):
    """The same statements replayed by pgbench: what PostgreSQL alone allows on this machine."""

    seconds: float
    connections: int
    rounds: int
    rounds_per_s: float
    mix: dict[str, int]  # settled_at_open, decided
    latency: LatencySummary  # a whole round's transactions, back to back
    postgres_ms_per_round: float
    pgbench_ms_per_round: float
    postgres_bound_rounds_per_s: float  # every core given to PostgreSQL at the CPU per round measured
    failed: int
    aborted: str
    scripts: int
    other_load: float


def per(total: float, count: int) -> float:
    return round(total / count, 4) if count else 0.0


def round_figures(
    window: Window, cpu: WindowCpu, service_processes_ms: list[float], wal_bytes: int = 0
) -> RoundFigures:
    rounds = window.complete_rounds
    requests = sum(window.requests.values())
    return RoundFigures(
        seconds=round(window.seconds, 3),
        rounds=rounds,
        rounds_per_s=round(rounds / window.seconds, 1),
        requests_per_s=round(requests / window.seconds, 1),
        requests_per_round=per(requests, rounds),
        mix=window.rounds,
        latency={endpoint: summarise(values) for endpoint, values in sorted(window.latencies_us.items())},
        errors=window.errors,
        cpu_ms_per_round={name: per(value, rounds) for name, value in cpu.ms.items()},
        service_ms_per_request=per(cpu.ms.get("service", 0.0), requests),
        service_processes_ms=service_processes_ms,
        other_load=round(cpu.other_load, 3),
        machine_load=round(cpu.machine_load, 3),
        cpu_bound_rounds_per_s=cpu_bound(
            cpu.cores, [cpu.ms.get(k, 0.0) for k in ("service", "postgres", "generator")], rounds
        ),
        wal_bytes_per_round=round(wal_bytes / rounds, 1) if rounds else 0.0,
    )


def cpu_bound(cores: int, ms: list[float], rounds: int) -> float:
    """Rounds/s if every core did nothing but this work at the CPU per round measured: a shared machine's rates
    depend on what else ran, its CPU per round much less."""
    total = sum(ms)
    return round(cores * 1000 * rounds / total, 1) if total and rounds else 0.0


def http_figures(window: Window, cpu: WindowCpu) -> HttpFigures:
    requests = window.requests.get("health", 0)
    return HttpFigures(
        seconds=round(window.seconds, 3),
        requests_per_s=round(requests / window.seconds, 1),
        latency=summarise(window.latencies_us.get("health", [])),
        errors=window.errors,
        service_ms_per_request=per(cpu.ms.get("service", 0.0), requests),
        generator_ms_per_request=per(cpu.ms.get("generator", 0.0), requests),
        other_load=round(cpu.other_load, 3),
    )


def ratios(product: RoundFigures, http: HttpFigures, ceiling: CeilingFigures | None) -> Mapping[str, float]:
    """Product rounds/s over the database ceiling's; a round request's service CPU over GET /health's."""
    found = {}
    if ceiling is not None and ceiling.rounds_per_s:
        found["product_over_database_ceiling"] = round(product.rounds_per_s / ceiling.rounds_per_s, 3)
    if http.service_ms_per_request:
        found["request_cpu_over_http_floor"] = round(product.service_ms_per_request / http.service_ms_per_request, 2)
    return found
