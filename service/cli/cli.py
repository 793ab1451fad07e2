"""The `reddog` command: paytables, exact RTP, simulation, and the server's own commands."""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable, Sequence
from fractions import Fraction

import msgspec

from paytables.red_dog import loader
from paytables.red_dog.analysis import red_dog_per_seat, rtp
from paytables.red_dog.analysis.simulate import simulate
from shoe.random_source import OsRandom, RandomSource
from shoe.shoe import MAX_DECKS, MIN_DECKS

Handler = Callable[[argparse.Namespace], int]


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    try:
        return handler(args)
    except loader.PaytableError as exc:
        print(f"reddog: {exc}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="reddog", description="Red Dog table service")
    sub = parser.add_subparsers(required=True, metavar="COMMAND")

    p = sub.add_parser("paytables", help="list the released paytables with their sha256")
    p.add_argument("--ids", action="store_true", help="print only the ids")
    p.set_defaults(handler=cmd_paytables)

    p = sub.add_parser("rtp", help="exact theoretical return of a paytable")
    p.add_argument("paytable")
    p.add_argument("--decks", type=_decks, default=6)
    p.add_argument("--json", action="store_true", help="one JSON object instead of a table")
    p.add_argument("--deal", choices=("shared", "per_seat"), default="shared", help="one hand for all, or one a seat")
    p.add_argument("--seats", type=int, choices=range(1, red_dog_per_seat.MAX_SEATS + 1), metavar="S", help="per_seat")
    p.set_defaults(handler=cmd_rtp)

    p = sub.add_parser("simulate", help="play rounds through the real shoe and rules; compare with the exact RTP")
    p.add_argument("paytable")
    p.add_argument("--decks", type=_decks, default=6)
    p.add_argument("--rounds", type=int, default=100_000)
    p.add_argument("--seed", type=int, default=None, help="seeded generator for a repeatable run (not the CSPRNG)")
    p.add_argument("--json", action="store_true")
    p.set_defaults(handler=cmd_simulate)

    from service.cli import commands, inbetween_commands, outbox_commands  # the server's commands, with its code

    commands.register(sub)
    inbetween_commands.register(sub)
    outbox_commands.register(sub)
    return parser


def _decks(text: str) -> int:
    value = int(text)
    if not MIN_DECKS <= value <= MAX_DECKS:
        raise argparse.ArgumentTypeError(f"decks must be {MIN_DECKS}..{MAX_DECKS}")
    return value


def cmd_paytables(args: argparse.Namespace) -> int:
    for table in loader.released().values():
        print(table.id if args.ids else f"{table.id:<16} {table.sha256}  {table.description}")
    return 0


def cmd_rtp(args: argparse.Namespace) -> int:
    if args.deal == "per_seat":
        seat = red_dog_per_seat.compute(loader.get(args.paytable), args.decks, args.seats or red_dog_per_seat.MAX_SEATS)
        if args.json:
            print(msgspec.json.encode(seat).decode())
            return 0
        print(f"{seat.paytable} with {seat.decks} deck(s), a hand per seat at {seat.seats} seat(s)")
        print(f"  usual strategy house edge    {seat.usual_house_edge}  ({seat.usual_house_edge_fraction})")
        print(f"    raising on own spreads {seat.raise_spreads}; the shared deal's edge is {seat.shared_house_edge}")
        print(f"  counting seat house edge     {seat.counting_house_edge}  ({seat.counting_house_edge_fraction})")
        print(
            f"    gain per ante from counting {seat.counting_gain}; RTP per total bet {seat.counting_rtp_per_total_bet}"
        )
        print(f"    raises where usual calls   {seat.counting_raises_where_usual_calls} of hands")
        print(f"    calls where usual raises   {seat.counting_calls_where_usual_raises} of hands")
        return 0
    if args.seats is not None:
        print("reddog: --seats goes with --deal per_seat", file=sys.stderr)
        return 2
    figures = rtp.compute(loader.get(args.paytable), args.decks)
    if args.json:
        print(msgspec.json.encode(figures).decode())
        return 0
    print(f"{figures.paytable} with {figures.decks} deck(s)  sha256 {figures.paytable_sha256}")
    print(f"  house edge per ante     {figures.house_edge}  ({figures.house_edge_fraction})")
    print(f"  RTP per total bet       {figures.rtp_per_total_bet}")
    print(f"  never-raise house edge  {figures.never_raise_house_edge}")
    print(f"  raise on spreads        {figures.raise_spreads} (min {figures.min_raise_spread})")
    print(f"  std dev per ante        {figures.std_dev_per_ante}")
    print("  outcome probabilities")
    for name, p in figures.outcome_probabilities.items():
        print(f"    {name:<12} {rtp.decimal_string(Fraction(p), 8)}  ({p})")
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    paytable = loader.get(args.paytable)
    exact = Fraction(rtp.compute(paytable, args.decks).house_edge_fraction)
    source: RandomSource = OsRandom() if args.seed is None else random.Random(args.seed)  # noqa: S311 - asked for by --seed
    started = time.monotonic()
    show = _progress_bar(args.rounds) if sys.stderr.isatty() else None
    report = simulate(paytable, args.decks, args.rounds, source, exact, show)
    elapsed = time.monotonic() - started
    if show is not None:
        print(file=sys.stderr)
    if args.json:
        print(msgspec.json.encode(report).decode())
    else:
        verdict = "inside" if report.exact_inside_ci99 else "OUTSIDE"
        print(f"{report.paytable} {report.decks} deck(s), {report.rounds} rounds in {elapsed:.1f} s")
        print(f"  observed house edge {report.observed_house_edge}")
        print(f"  99% interval        [{report.ci99_low}, {report.ci99_high}]")
        print(f"  exact house edge    {report.exact_house_edge} ({verdict} the interval)")
    return 0 if report.exact_inside_ci99 else 1


def _progress_bar(total: int) -> Callable[[int], None]:
    def show(done: int) -> None:
        filled = 40 * done // total
        sys.stderr.write(f"\r[{'#' * filled}{' ' * (40 - filled)}] {100 * done // total:3d}%")
        sys.stderr.flush()

    return show


if __name__ == "__main__":
    raise SystemExit(main())
