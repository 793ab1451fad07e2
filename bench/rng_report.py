"""`make rng-report`: chi-square tests of the production shuffle over a million shoes, and dieharder on its draws.

Every shoe comes from `service.shuffler.shuffle`, the one way the service shuffles, reading the OS CSPRNG. Counting is
done a batch of shoes at a time with byte and big-integer operations (each card becomes a 16-bit token
position * 52 + card, counted by `Counter` in C), so a million 6-deck shoes take a few minutes of CPU over two
processes, standard library only.

The tests:
- card by position: the 52 cards x shoe positions table. Each position alone is uniform over the 52 cards (51 degrees
  of freedom per position); the whole table has fixed margins in every shoe (each card d times), so its Pearson
  statistic is (T / (T - 1)) chi-square with (T - 1) * 51 degrees of freedom for a T-card shoe: the report divides
  that factor out before taking the p-value.
- rank by position: the same with the 13 ranks.
- the first two cards: the 52 x 52 pairs a round's posts are dealt as, against their exact probabilities.
- dieharder (where Debian's `dieharder` is installed): the shuffle run on the 312 distinct positions of a 6-deck shoe,
  its Fisher-Yates draws recovered from each order (one draw in [0, i] per position i), written as one mixed-radix
  number, uniform in [0, 312!) exactly when the shuffle is; numbers below 2**2140 (76% of them) give their low 2,136
  bits as raw bytes to dieharder's stdin generator.
"""

from __future__ import annotations

import argparse
import datetime
import math
import multiprocessing
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Final

import msgspec

from paytables.red_dog.analysis.chi_square import chi_square_p_value, outcome_chi_square
from service import shuffler
from shoe.cards import DECK, RANKS, SUITS
from shoe.random_source import OsRandom, shuffled
from shoe.shoe import ShoePolicy

_LITTLE: Final = "little"
_RANK_TIMES_4 = bytes.maketrans(RANKS.encode(), bytes(4 * i for i in range(len(RANKS))))
_SUIT = bytes.maketrans(SUITS.encode(), bytes(range(len(SUITS))))
CARDS = len(DECK)
BATCH = 500
FIRST_TWO = "first two cards (52 x 52 pairs)"


class Verdict(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    statistic: float
    degrees_of_freedom: int
    p_value: float


class PositionSummary(msgspec.Struct, frozen=True, kw_only=True):
    """Each position's own chi-square: the smallest p, that times the positions (Bonferroni), how many below 1%."""

    name: str
    positions: int
    min_p: float
    bonferroni_p: float
    below_1_percent: int
    decile_p: float  # the positions' p-values against uniform deciles (positions are nearly independent)


class Tally(msgspec.Struct, kw_only=True):
    shoes: int = 0
    card_by_position: dict[int, int] = msgspec.field(default_factory=dict)
    first_two: dict[int, int] = msgspec.field(default_factory=dict)

    def add(self, other: Tally) -> None:
        self.shoes += other.shoes
        for mine, theirs in ((self.card_by_position, other.card_by_position), (self.first_two, other.first_two)):
            for key, count in theirs.items():
                mine[key] = mine.get(key, 0) + count


def card_indices(orders: str) -> bytes:
    """One byte per card (rank * 4 + suit, the index in DECK) for a string of concatenated card codes."""
    raw = orders.encode("ascii")
    ranks = int.from_bytes(raw[0::2].translate(_RANK_TIMES_4), _LITTLE)
    suits = int.from_bytes(raw[1::2].translate(_SUIT), _LITTLE)
    return (ranks + suits).to_bytes(len(raw) // 2, _LITTLE)  # no byte carries: each sum is at most 51


def tally(orders: Sequence[str]) -> Tally:
    """Count card by position and the first two cards over shoes of one size, in C where it matters."""
    if not orders:
        return Tally()
    size = len(orders[0]) // 2
    if any(len(order) != 2 * size for order in orders):
        raise ValueError("every shoe of a tally has the same size")
    cards = card_indices("".join(orders))
    lanes = bytearray(2 * len(cards))
    lanes[0::2] = cards
    offsets = int.from_bytes(b"".join((p * CARDS).to_bytes(2, _LITTLE) for p in range(size)) * len(orders), _LITTLE)
    tokens = (int.from_bytes(lanes, _LITTLE) + offsets).to_bytes(len(lanes), _LITTLE)
    by_position = Counter(memoryview(tokens).cast("H"))
    first_two = Counter(a * CARDS + b for a, b in zip(cards[0::size], cards[1::size], strict=True))
    return Tally(shoes=len(orders), card_by_position=dict(by_position), first_two=dict(first_two))


def position_table(counts: dict[int, int], size: int, group: int) -> list[list[int]]:
    """The counts as rows by position; `group` consecutive card indices summed (4: by rank, 1: by card)."""
    columns = CARDS // group
    table = [[0] * columns for _ in range(size)]
    for token, count in counts.items():
        position, card = divmod(token, CARDS)
        table[position][card // group] += count
    return table


def by_position(name: str, table: list[list[int]], shoes: int) -> tuple[Verdict, PositionSummary]:
    size, columns = len(table), len(table[0])
    expected = shoes / columns
    statistics = [sum((observed - expected) ** 2 for observed in row) / expected for row in table]
    p_values = [chi_square_p_value(x, columns - 1) for x in statistics]
    decile_counts = Counter(min(int(p * 10), 9) for p in p_values)
    decile_statistic = sum((decile_counts[d] - size / 10) ** 2 / (size / 10) for d in range(10))
    # Every shoe holds each column size / columns times: fixed margins, hence the T / (T - 1) factor removed here.
    whole = sum(statistics) * (size - 1) / size
    dof = (size - 1) * (columns - 1)
    return (
        Verdict(
            name=f"{name} by position", statistic=whole, degrees_of_freedom=dof, p_value=chi_square_p_value(whole, dof)
        ),
        PositionSummary(
            name=f"{name} at each position",
            positions=size,
            min_p=min(p_values),
            bonferroni_p=min(1.0, min(p_values) * size),
            below_1_percent=sum(p < 0.01 for p in p_values),
            decile_p=chi_square_p_value(decile_statistic, 9),
        ),
    )


def first_two_verdict(counts: dict[int, int], decks: int) -> Verdict:
    size = CARDS * decks
    same, other = Fraction(decks * (decks - 1), size * (size - 1)), Fraction(decks * decks, size * (size - 1))
    cells = {a * CARDS + b: same if a == b else other for a in range(CARDS) for b in range(CARDS)}
    possible = {str(cell): p for cell, p in cells.items() if p > 0}  # one deck: a card cannot follow itself
    if any(str(cell) not in possible for cell in counts):
        return Verdict(name=FIRST_TWO, statistic=math.inf, degrees_of_freedom=len(possible) - 1, p_value=0.0)
    result = outcome_chi_square({str(k): v for k, v in counts.items()}, possible)
    return Verdict(
        name=FIRST_TWO,
        statistic=result.statistic,
        degrees_of_freedom=result.degrees_of_freedom,
        p_value=result.p_value,
    )


def verdicts(total: Tally, decks: int) -> tuple[list[Verdict], list[PositionSummary]]:
    size = CARDS * decks
    found = [
        by_position(name, position_table(total.card_by_position, size, group), total.shoes)
        for name, group in (("card", 1), ("rank", 4))
    ]
    return [v for v, _ in found] + [first_two_verdict(total.first_two, decks)], [s for _, s in found]


def production_orders(decks: int, count: int) -> list[str]:
    return [shuffler.shuffle(decks, ShoePolicy.PER_ROUND, None).order for _ in range(count)]


def _work(job: tuple[int, int]) -> Tally:
    decks, shoes = job
    total = Tally()
    while shoes > 0:
        batch = min(BATCH, shoes)
        total.add(tally(production_orders(decks, batch)))
        shoes -= batch
    return total


def run_shuffles(decks: int, shoes: int, processes: int, progress: Callable[[int], None] | None = None) -> Tally:
    chunk = 20_000
    jobs = [(decks, min(chunk, shoes - start)) for start in range(0, shoes, chunk)]
    total = Tally()
    with multiprocessing.get_context("spawn").Pool(processes) as pool:
        for part in pool.imap_unordered(_work, jobs):
            total.add(part)
            if progress is not None:
                progress(total.shoes)
    return total


# The dieharder stream: the shuffle's draws, recovered from its output and written as raw bits.


def fisher_yates_draws(order: Sequence[int]) -> list[int]:
    """The draws a back-to-front Fisher-Yates made to give `order` (a permutation of 0..n-1): j_i in [0, i], i = n-1..1.

    The shuffle is a bijection between draw sequences and orders, so this undoes it: step i put order[i] at i by
    swapping with wherever that item then was.
    """
    n = len(order)
    current, where = list(range(n)), list(range(n))
    draws = []
    for i in range(n - 1, 0, -1):
        item, displaced = order[i], current[i]
        j = where[item]
        current[j], current[i] = displaced, item
        where[displaced], where[item] = j, i
        draws.append(j)
    return draws


def mixed_radix(draws: Sequence[int]) -> int:
    """The draws j_i in [0, i] (i = n-1 down to 1) as one number in [0, n!), uniform exactly when they all are."""
    value = 0
    for i, j in zip(range(len(draws), 0, -1), draws, strict=True):
        value = value * (i + 1) + j
    return value


def usable_bits(n: int) -> int:
    """The bits taken from a number uniform in [0, n!): below 2**k (k = floor(log2 n!)) its low bits, whole bytes."""
    k = math.factorial(n).bit_length() - 1
    return k - k % 8


def draw_stream_bytes(n: int, shuffles: int, source: OsRandom) -> bytes:
    """Raw bytes from `shuffles` shuffles of n distinct positions through the shoe's own `shuffled`."""
    bits = usable_bits(n)
    limit = 1 << (math.factorial(n).bit_length() - 1)
    positions = [f"{p:03d}" for p in range(n)]
    index = {code: p for p, code in enumerate(positions)}
    out = bytearray()
    for _ in range(shuffles):
        value = mixed_radix(fisher_yates_draws([index[code] for code in shuffled(positions, source)]))
        if value < limit:
            out += (value & ((1 << bits) - 1)).to_bytes(bits // 8, _LITTLE)
    return bytes(out)


def _stream_job(job: tuple[int, int]) -> bytes:
    n, shuffles = job
    return draw_stream_bytes(n, shuffles, OsRandom())


# (test number, extra arguments, what it looks at). Each dieharder run first times its generator (reading some 40 MB,
# rewinding the file as it needs), then the test reads from there: sized here so that no test reads more than the
# 12 MB or so it needs (measured by counting what one reads from a pipe), under the 16 MB the report writes, so no test
# sees a byte twice. The tests share one file: each is valid alone, and they are not independent of each other.
DIEHARDER_TESTS: tuple[tuple[int, tuple[str, ...], str], ...] = (
    (0, ("-p", "20"), "birthday spacings"),
    (8, ("-p", "20"), "count the 1s (stream of bytes)"),
    (15, ("-p", "20"), "runs up and down"),
    (100, ("-p", "20"), "STS monobit"),
    (101, ("-p", "20"), "STS runs"),
    (102, ("-p", "20"), "STS serial (1- to 16-bit patterns)"),
    (3, ("-p", "5"), "6x8 binary matrix rank"),
)


class DieharderResult(msgspec.Struct, frozen=True, kw_only=True):
    test: str
    described: str
    p_value: float | None
    assessment: str
    line: str


def run_dieharder(data: Path) -> list[DieharderResult]:
    results = []
    for number, extra, described in DIEHARDER_TESTS:
        done = subprocess.run(
            ["dieharder", "-g", "201", "-f", str(data), "-d", str(number), *extra],
            capture_output=True,
            text=True,
            check=False,
        )
        lines = [line for line in done.stdout.splitlines() if line.count("|") >= 5 and not line.startswith("#")]
        rows = [line for line in lines if "test_name" not in line]
        for row in rows or [f"dieharder -d {number} gave no result (exit {done.returncode})"]:
            cells = [cell.strip() for cell in row.split("|")]
            p_value = float(cells[4]) if len(cells) >= 6 else None
            assessment = cells[5] if len(cells) >= 6 else "ERROR"
            results.append(
                DieharderResult(
                    test=f"-d {number} {' '.join(extra)}".strip(),
                    described=described,
                    p_value=p_value,
                    assessment=assessment,
                    line=row,
                )
            )
    return results


def dieharder_stream(path: Path, megabytes: float, processes: int) -> tuple[int, int]:
    """Write about `megabytes` of the draw stream to `path`; returns (bytes written, shuffles run)."""
    n = 312
    per_shuffle = usable_bits(n) / 8 * float(Fraction(1 << (math.factorial(n).bit_length() - 1), math.factorial(n)))
    shuffles = int(megabytes * 1e6 / per_shuffle) + 1
    chunk = 2_000
    jobs = [(n, min(chunk, shuffles - start)) for start in range(0, shuffles, chunk)]
    written = 0
    with path.open("wb") as out, multiprocessing.get_context("spawn").Pool(processes) as pool:
        for part in pool.imap_unordered(_stream_job, jobs):
            out.write(part)
            written += len(part)
    return written, shuffles


# The report.


def microseconds_per_shuffle(decks: int, count: int = 5_000) -> float:
    started = time.process_time()
    production_orders(decks, count)
    return (time.process_time() - started) / count * 1e6


def _dh(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"


def _p(value: float) -> str:
    return f"{value:.4f}" if value >= 1e-4 else f"{value:.2e}"


def markdown(
    *,
    decks: int,
    total: Tally,
    found: list[Verdict],
    positions: list[PositionSummary],
    seconds: float,
    per_shuffle_us: float,
    dieharder: list[DieharderResult] | None,
    stream: tuple[int, int] | None,
    control: list[DieharderResult] | None = None,
) -> str:
    lines = [
        "# RNG report",
        "",
        f"Generated by `make rng-report` on {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC "
        f"({platform.python_implementation()} {platform.python_version()}, {platform.machine()}, "
        f"{os.cpu_count()} cores). Method: `bench/rng_report.py`.",
        "",
        f"- {total.shoes:,} shoes of {decks} decks from `service.shuffler.shuffle` (the production path, OS CSPRNG), "
        f"counted in {seconds:.0f} s; one shuffle with its salt and commitment: {per_shuffle_us:.1f} µs of CPU.",
        "- A fair shuffle gives p-values spread evenly over (0, 1): any one line below 0.001 happens by luck once in "
        "1,000 runs; a biased shuffle drives them to 0.",
        "",
        "| test | statistic | degrees of freedom | p-value |",
        "| --- | ---: | ---: | ---: |",
    ]
    lines += [f"| {v.name} | {v.statistic:,.1f} | {v.degrees_of_freedom:,} | {_p(v.p_value)} |" for v in found]
    lines += [
        "",
        "| each position alone | positions | smallest p | x positions (Bonferroni) | p < 0.01 (expected) "
        "| p-values uniform over deciles |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    lines += [
        f"| {s.name} | {s.positions} | {_p(s.min_p)} | {_p(s.bonferroni_p)} | {s.below_1_percent} "
        f"({s.positions / 100:.1f}) | {_p(s.decile_p)} |"
        for s in positions
    ]
    lines += ["", "## dieharder", ""]
    if dieharder is None or stream is None:
        lines.append("Not run: `dieharder` is not installed here (`apt-get install dieharder`).")
    else:
        written, shuffles = stream
        lines += [
            f"Stream: {shuffles:,} shuffles of the 312 positions of a 6-deck shoe through `shoe.random_source.shuffled`"
            f" (OS CSPRNG); each order's Fisher-Yates draws recovered, written as one number in [0, 312!) and, when "
            f"below 2**2140, its low 2,136 bits: {written / 1e6:.1f} MB, read by `dieharder -g 201` (raw file). "
            "The control is the same tests on as many bytes straight from `os.urandom`: how these settings behave "
            "on the source itself.",
            "",
            "| test | what it looks at | p-value | assessment | control p-value | control |",
            "| --- | --- | ---: | --- | ---: | --- |",
        ]
        controls = control or []
        for index, r in enumerate(dieharder):
            c = controls[index] if index < len(controls) else None
            lines.append(
                f"| `{r.test}` | {r.described} | {_dh(r.p_value)} | {r.assessment} "
                f"| {'' if c is None else _dh(c.p_value)} | {'' if c is None else c.assessment} |"
            )
        lines += [
            "",
            "dieharder calls a p-value below 0.005 or above 0.995 WEAK and below 0.000001 FAILED. The STS serial "
            "lines all read the same bytes (patterns of 1 to 16 bits), so they rise and fall together: a WEAK "
            "there tends to come with neighbours, on the control as well.",
        ]
    return "\n".join(lines) + "\n"


def main(argv: Iterable[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--shoes", type=int, default=1_000_000)
    parser.add_argument("--decks", type=int, default=6)
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--dieharder-mb", type=float, default=16.0)
    parser.add_argument("--out", type=Path, default=Path("docs/rng-report.md"))
    args = parser.parse_args(list(argv) if argv is not None else None)

    per_shuffle = microseconds_per_shuffle(args.decks)
    started = time.monotonic()
    step = max(args.shoes // 10, 1)

    def progress(done: int) -> None:
        if done % step < 20_000:
            print(f"  {done:,} shoes", file=sys.stderr, flush=True)

    total = run_shuffles(args.decks, args.shoes, args.processes, progress)
    seconds = time.monotonic() - started
    found, positions = verdicts(total, args.decks)
    dieharder = stream = control = None
    if shutil.which("dieharder") is not None and args.dieharder_mb > 0:
        with tempfile.TemporaryDirectory(prefix="rng-report-") as folder:
            data, same_size = Path(folder) / "draws.bin", Path(folder) / "urandom.bin"
            print(f"  writing {args.dieharder_mb} MB of the draw stream for dieharder", file=sys.stderr, flush=True)
            stream = dieharder_stream(data, args.dieharder_mb, args.processes)
            same_size.write_bytes(os.urandom(stream[0]))
            dieharder = run_dieharder(data)
            control = run_dieharder(same_size)
    report = markdown(
        decks=args.decks,
        total=total,
        found=found,
        positions=positions,
        seconds=seconds,
        per_shuffle_us=per_shuffle,
        dieharder=dieharder,
        stream=stream,
        control=control,
    )
    args.out.write_text(report, encoding="utf-8")
    print(report)


if __name__ == "__main__":
    main()
