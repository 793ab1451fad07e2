"""bench.compare's pure parts: the order of each pair, the ratios within pairs, the report."""

from __future__ import annotations

from bench.compare import Measured, Side, order_of, ratios, report

BASE, THIS = Side("base", "/old/reddog"), Side("this", "/new/reddog")


def measured(side: str, pair: int, rounds: float, service: float = 2.0, errors: int = 0) -> Measured:
    return Measured(
        side=side,
        pair=pair,
        rounds_per_s=rounds,
        service_ms=service,
        postgres_ms=1.5,
        floor_ms=0.2,
        wal_bytes=16_000.0 if side == "base" else 8_000.0,
        other_load=0.25,
        errors=errors,
    )


def test_the_order_alternates_so_neither_side_always_runs_first() -> None:
    assert [order_of(pair, [BASE, THIS])[0].name for pair in range(4)] == ["base", "this", "base", "this"]


def test_ratios_are_taken_within_each_pair_whatever_the_order_they_ran_in() -> None:
    runs = [measured("base", 0, 300), measured("this", 0, 330), measured("this", 1, 360), measured("base", 1, 400)]
    assert ratios(runs, "rounds_per_s") == [1.1, 0.9]


def test_a_pair_cut_short_gives_no_ratio() -> None:
    assert ratios([measured("base", 0, 300), measured("this", 0, 330), measured("base", 1, 400)], "rounds_per_s") == [
        1.1
    ]


def test_the_report_gives_every_run_and_the_mean_and_range_of_each_ratio() -> None:
    runs = [measured("base", 0, 300, 2.0), measured("this", 0, 330, 1.5), measured("base", 1, 400, 2.0)]
    runs.append(measured("this", 1, 360, 2.5))
    text = report(runs, "c081f89")
    assert "| 1 | base (c081f89) | 300.0 | 2.00 + 1.50 | 16,000 | 0.200 | 25% | 0 |" in text
    assert "| rounds_per_s | 1.000 | 0.900 | 1.100 |" in text  # (1.1 + 0.9) / 2
    assert "| service_ms | 1.000 | 0.750 | 1.250 |" in text  # 1.5 / 2 and 2.5 / 2
    assert "| wal_bytes | 0.500 | 0.500 | 0.500 |" in text  # 8,000 / 16,000 in both pairs


def test_a_pair_where_either_side_failed_requests_gives_no_ratio() -> None:
    runs = [measured("base", 0, 300, errors=3), measured("this", 0, 330), measured("base", 1, 400)]
    runs.append(measured("this", 1, 360))
    assert ratios(runs, "rounds_per_s") == [0.9]


def test_a_figure_the_base_did_not_measure_gives_no_ratio() -> None:
    base = Measured(side="base", pair=0, rounds_per_s=300, service_ms=2.0, postgres_ms=0.0, floor_ms=0.2)
    assert ratios([base, measured("this", 0, 330)], "postgres_ms") == []
