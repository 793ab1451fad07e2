"""Play whole In Between games between computer strategies and report each strategy's final chips with an interval."""

from __future__ import annotations

import decimal
from collections.abc import Sequence
from datetime import UTC, datetime
from fractions import Fraction

import msgspec

from paytables.inbetween.inbetween_bot import STRATEGIES, Strategy, play_computers
from paytables.inbetween.inbetween_events import SeatSpec
from paytables.inbetween.inbetween_game import start_game
from paytables.inbetween.inbetween_rules import RuleSet
from paytables.inbetween.inbetween_state import Game
from shoe.random_source import RandomSource
from shoe.shoe import new_shoe

Z_95 = decimal.Decimal("1.959963984540054")  # two-sided 95% normal quantile
EPOCH = datetime(2000, 1, 1, tzinfo=UTC)  # simulated games need a `now`; no clock is read


class StrategyResult(msgspec.Struct, frozen=True, kw_only=True):
    strategy: str
    seats: int  # seat-games played by this strategy
    mean_final_chips: str
    ci95_low: str
    ci95_high: str


class InBetweenSimulation(msgspec.Struct, frozen=True, kw_only=True):
    ruleset: str
    players: int
    games: int
    ante: int
    rounds: int | str
    starting_chips: int
    results: tuple[StrategyResult, ...]


def play_game(
    ruleset: RuleSet,
    strategies: Sequence[Strategy],
    *,
    ante: int,
    rounds: int | str,
    dealer: int,
    source: RandomSource,
    game_id: str = "sim",
) -> Game:
    """One whole game, seat i played by strategies[i], through the real engine and a shuffled pack."""
    seats = [SeatSpec(player_id=f"seat{i}", computer=True) for i in range(len(strategies))]
    step = start_game(
        game_id=game_id,
        ruleset=ruleset,
        ante=ante,
        rounds=rounds,
        seats=seats,
        dealer=dealer,
        shoe=new_shoe(1, source),
        source=source,
        now=EPOCH,
    )
    done = play_computers(step.game, step.shoe, ruleset=ruleset, source=source, now=EPOCH, strategies=strategies)
    return done.game


def simulate(
    ruleset: RuleSet,
    players: int,
    games: int,
    source: RandomSource,
    *,
    ante: int | None = None,
    rounds: int | str | None = None,
    names: Sequence[str] = ("kelly", "one-chip"),
) -> InBetweenSimulation:
    """Play `games` games with the strategies taking seats in turn; the deal starts one seat on each game."""
    if games < 2:
        raise ValueError("simulate at least 2 games")
    ante = ruleset.terms.antes[0] if ante is None else ante
    rounds = ruleset.default_rounds if rounds is None else rounds
    seat_names = [names[i % len(names)] for i in range(players)]
    finals: dict[str, list[int]] = {name: [] for name in names}
    for number in range(games):
        strategies = [STRATEGIES[name] for name in seat_names]
        game = play_game(ruleset, strategies, ante=ante, rounds=rounds, dealer=number % players, source=source)
        for name, seat in zip(seat_names, game.seats, strict=True):
            finals[name].append(seat.chips)
    results = tuple(_result(name, values) for name, values in finals.items() if values)
    return InBetweenSimulation(
        ruleset=ruleset.id,
        players=players,
        games=games,
        ante=ante,
        rounds=rounds,
        starting_chips=ruleset.terms.starting_chips,
        results=results,
    )


def mean_interval(values: Sequence[int]) -> tuple[Fraction, decimal.Decimal]:
    """The mean and the half-width of its 95% normal interval (sample variance, n - 1)."""
    n = len(values)
    total, square = sum(values), sum(v * v for v in values)
    mean = Fraction(total, n)
    variance = Fraction(square * n - total * total, n * (n - 1))
    ctx = decimal.Context(prec=40)
    spread = ctx.divide(decimal.Decimal(variance.numerator), decimal.Decimal(variance.denominator * n))
    return mean, ctx.multiply(Z_95, ctx.sqrt(spread))


def _result(name: str, values: list[int]) -> StrategyResult:
    mean, half = mean_interval(values)
    centre = decimal.Decimal(mean.numerator) / decimal.Decimal(mean.denominator)
    places = decimal.Decimal("0.01")
    return StrategyResult(
        strategy=name,
        seats=len(values),
        mean_final_chips=str(centre.quantize(places)),
        ci95_low=str((centre - half).quantize(places)),
        ci95_high=str((centre + half).quantize(places)),
    )
