"""A forced-card In Between table for tests: the pack's first cards are chosen, every step is checked and recorded."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import msgspec

from paytables.inbetween import inbetween_rules
from paytables.inbetween.inbetween_actions import CallAce, CallPair, InBetweenAction, PassTurn, PlaceBet
from paytables.inbetween.inbetween_events import AceCall, InBetweenChipsBought, InBetweenEvent, PairCall, SeatSpec
from paytables.inbetween.inbetween_game import InBetweenStep, act, advance, start_game
from paytables.inbetween.inbetween_rules import RuleSet
from paytables.inbetween.inbetween_state import GameStatus
from shoe.shoe import new_shoe

NOW = datetime(2024, 10, 12, 18, 0, tzinfo=UTC)  # Dashain


class Table:
    """One game dealt from a pack whose first cards are forced; players are `p0`, `p1`, ... by seat."""

    def __init__(
        self,
        ruleset_id: str,
        *cards: str,
        players: int = 3,
        ante: int = 10,
        rounds: int | str | None = None,
        dealer: int = 0,
        seed: int = 2024,
    ) -> None:
        self.rules: RuleSet = inbetween_rules.get(ruleset_id)
        self.rng = random.Random(seed)
        self.events: list[InBetweenEvent] = []
        shoe = new_shoe(1, self.rng, forced=cards)
        step = start_game(
            game_id="g1",
            ruleset=self.rules,
            ante=ante,
            rounds=self.rules.default_rounds if rounds is None else rounds,
            seats=[SeatSpec(player_id=f"p{i}") for i in range(players)],
            dealer=dealer,
            shoe=shoe,
            source=self.rng,
            now=NOW,
            test=True,
        )
        self.game, self.shoe = step.game, step.shoe
        self._record(step)

    @property
    def chips(self) -> list[int]:
        return [seat.chips for seat in self.game.seats]

    @property
    def pot(self) -> int:
        return self.game.pot

    @property
    def status(self) -> GameStatus:
        return self.game.status

    @property
    def player(self) -> str:
        assert self.game.to_act is not None
        return self.game.to_act

    def act(self, action: InBetweenAction) -> InBetweenStep:
        step = act(self.game, self.shoe, action, ruleset=self.rules, source=self.rng, now=NOW)
        return self._record(step)

    def bet(self, amount: int) -> InBetweenStep:
        return self.act(PlaceBet(player_id=self.player, amount=amount))

    def pass_turn(self) -> InBetweenStep:
        return self.act(PassTurn(player_id=self.player))

    def call_ace(self, call: AceCall) -> InBetweenStep:
        return self.act(CallAce(player_id=self.player, call=call))

    def call_pair(self, call: PairCall) -> InBetweenStep:
        return self.act(CallPair(player_id=self.player, call=call))

    def advance(self) -> InBetweenStep:
        return self._record(advance(self.game, self.shoe, ruleset=self.rules, source=self.rng, now=NOW))

    def rebalance(self, chips: list[int]) -> None:
        """Set the seats' chips by hand, the rest of the game's chips in the pot (a state reached some other way)."""
        pot = self.game.total_chips - sum(chips)
        assert pot >= 0
        seats = tuple(msgspec.structs.replace(seat, chips=c) for seat, c in zip(self.game.seats, chips, strict=True))
        self.game = msgspec.structs.replace(self.game, seats=seats, pot=pot)
        self.events.clear()  # the record no longer replays: the surgery is no event

    def _record(self, step: InBetweenStep) -> InBetweenStep:
        self.game, self.shoe = step.game, step.shoe
        self.events.extend(step.events)
        bought = sum(e.amount for e in self.events if isinstance(e, InBetweenChipsBought))  # counted from the records
        assert self.game.total_chips == len(self.game.seats) * self.rules.terms.starting_chips + bought
        return step
