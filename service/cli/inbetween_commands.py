"""The `reddog inbetween` subcommands: the released rule sets, simulated games, and a game played on a server."""

from __future__ import annotations

import argparse
import random
import sys
import time
from typing import Any

import msgspec

from paytables.inbetween import inbetween_rules
from paytables.inbetween.inbetween_actions import InBetweenError
from paytables.inbetween.inbetween_rules import UNTIL_EMPTY
from paytables.inbetween.inbetween_simulate import simulate
from shoe.random_source import OsRandom, RandomSource


def register(sub: Any) -> None:
    """Add `inbetween` with its own subcommands to the `reddog` parser."""
    parser = sub.add_parser("inbetween", help="In Between pot games: rule sets, simulations, play")
    inner = parser.add_subparsers(required=True, metavar="COMMAND")
    p = inner.add_parser("rulesets", help="list the released In Between rule sets with their sha256")
    p.set_defaults(handler=cmd_rulesets)
    p = inner.add_parser("simulate", help="play whole games between the Kelly bot and a one-chip player")
    p.add_argument("ruleset", help="a rule set id such as inbetween/nepal/v1 (or just nepal/v1)")
    p.add_argument("--players", type=_players, default=2)
    p.add_argument("--games", type=_games, default=1000)
    p.add_argument("--ante", type=int, default=None, help="one of the rule set's antes (default: its first)")
    p.add_argument(
        "--rounds", type=_rounds, default=None, help="one of the rule set's rounds (default: the rule set's)"
    )
    p.add_argument("--seed", type=int, default=None, help="seeded generator for a repeatable run (not the CSPRNG)")
    p.add_argument("--json", action="store_true", help="one JSON object instead of a table")
    p.set_defaults(handler=cmd_simulate)
    p = inner.add_parser("play", help="play a game against a running server: your turns asked here, computers fill")
    p.add_argument("--url", default="http://127.0.0.1:8000")
    p.add_argument("--operator", default="demo")
    p.add_argument("--secret", default="demo-secret")
    p.add_argument("--ruleset", default="inbetween/nepal/v1", help="a rule set id (or just nepal/v1)")
    p.add_argument("--ante", type=int, default=None, help="one of the rule set's antes (default: its first)")
    p.add_argument(
        "--rounds", type=_rounds, default=None, help="one of the rule set's rounds (default: the rule set's)"
    )
    p.add_argument("--player", action="append", dest="players", help="a human seat (repeat for more; default: you)")
    p.add_argument("--computers", type=int, default=1, help="computer seats after the humans (default: 1)")
    p.add_argument("--game", default=None, help="go on with a game already started, by its id")
    p.add_argument("--cards", nargs="+", default=(), help="a test game's first cards (server: RD_ALLOW_TEST_TABLES)")
    p.set_defaults(handler=cmd_play)


def cmd_rulesets(_: argparse.Namespace) -> int:
    for ruleset in inbetween_rules.released().values():
        print(f"{ruleset.id:<28} {ruleset.sha256}  {ruleset.description}")
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    ruleset_id = args.ruleset if args.ruleset.startswith("inbetween/") else f"inbetween/{args.ruleset}"
    try:
        ruleset = inbetween_rules.get(ruleset_id)
    except inbetween_rules.RuleSetError as exc:
        print(f"reddog: {exc}", file=sys.stderr)
        return 2
    source: RandomSource = OsRandom() if args.seed is None else random.Random(args.seed)  # noqa: S311
    started = time.monotonic()
    try:
        report = simulate(ruleset, args.players, args.games, source, ante=args.ante, rounds=args.rounds)
    except InBetweenError as exc:  # an ante, rounds or player count the rule set does not offer
        print(f"reddog: {exc}", file=sys.stderr)
        return 2
    elapsed = time.monotonic() - started
    if args.json:
        print(msgspec.json.encode(report).decode())
        return 0
    print(f"{report.ruleset}: {report.players} players, {report.games} games, ante {report.ante}, ", end="")
    rounds = "until the pot is empty" if report.rounds == UNTIL_EMPTY else f"{report.rounds} round"
    rounds += "" if report.rounds in (1, UNTIL_EMPTY) else "s"
    print(f"{rounds}, {report.starting_chips} chips each ({elapsed:.1f} s)")
    print(f"  {'strategy':<10} {'seats':>6}  {'average final chips':>19}  95% interval")
    for r in report.results:
        print(f"  {r.strategy:<10} {r.seats:>6}  {r.mean_final_chips:>19}  [{r.ci95_low}, {r.ci95_high}]")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    from service.cli.client import Client
    from service.cli.inbetween_play import PlayOptions, Terminal, play

    options = PlayOptions(
        ruleset=args.ruleset,
        ante=args.ante,
        rounds=args.rounds,
        players=tuple(args.players or ("you",)),
        computers=args.computers,
        game_id=args.game,
        cards=tuple(card.upper() for card in args.cards),
    )
    return play(Client(args.url, args.operator, args.secret), options, Terminal(sys.stdin, sys.stdout))


def _players(text: str) -> int:
    value = int(text)
    if not 2 <= value <= 8:
        raise argparse.ArgumentTypeError("players must be 2..8")
    return value


def _games(text: str) -> int:
    value = int(text)
    if value < 2:
        raise argparse.ArgumentTypeError("simulate at least 2 games")
    return value


def _rounds(text: str) -> int | str:
    return text if text == UNTIL_EMPTY else int(text)
