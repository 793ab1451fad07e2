"""bench.instructions' pure parts: a callgrind dump's total, the figures a request and a round, the report."""

from __future__ import annotations

from bench.instructions import _TOTALS, Counted, report


def counted(side: str, service: int, postgres: int, requests: int = 200, rounds: int = 110) -> Counted:
    return Counted(
        side=side,
        rounds=rounds,
        requests=requests,
        mix={"settled_at_open": 20, "raise": 30, "call": 60},
        seconds=20.0,
        service=service,
        postgres=postgres,
        service_idle_per_s=1_000_000,
        postgres_idle_per_s=500_000,
        wal_bytes=rounds * 11_000,
        errors=0,
    )


def test_a_dumps_total_is_read_from_its_summary_or_totals_line() -> None:
    dump = b"version: 1\ncreator: callgrind-3.19.0\nevents: Ir\nfl=(1)\n15 3\nsummary: 984542885\ntotals: 984542885\n"
    assert [int(found) for found in _TOTALS.findall(dump)] == [984_542_885, 984_542_885]


def test_the_figures_are_a_request_and_a_round_at_the_runs_own_mix() -> None:
    run = counted("this", service=640_000_000, postgres=480_000_000)
    assert run.per_request("service") == 3_200_000  # 640 M over 200 requests
    assert run.per_round("postgres") == 480_000_000 / 110
    assert run.per_round("wal_bytes") == 11_000


def test_the_report_divides_this_trees_mean_a_request_by_the_bases() -> None:
    runs = [
        counted("base", service=560_000_000, postgres=500_000_000),  # 2.8 M and 2.5 M a request
        counted("this", service=640_000_000, postgres=400_000_000, requests=200),  # 3.2 M and 2.0 M
        counted("base", service=580_000_000, postgres=540_000_000),  # 2.9 M and 2.7 M
        counted("this", service=620_000_000, postgres=440_000_000),  # 3.1 M and 2.2 M
    ]
    lines = report(runs, "c9bb892").splitlines()
    assert lines[2].startswith("| base | 110 (20 / 30 / 60) | 200 | 2,800,000 | 2,500,000 |")
    assert "| service | 1.105 |" in lines  # (3.2 + 3.1) / (2.8 + 2.9)
    assert "| postgres | 0.808 |" in lines  # (2.0 + 2.2) / (2.5 + 2.7)
    assert "| wal_bytes | 1.000 |" in lines
