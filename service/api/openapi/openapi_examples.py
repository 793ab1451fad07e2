"""Example rounds for the OpenAPI document, one per outcome, played by the real game core on a fixed one-deck shoe,
so every example is a round the service could really answer (its shoe reveal even hashes to its commitment)."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec

from paytables.red_dog import loader, round_rollback
from paytables.red_dog.round import Call, Raise, Step, close_window, decide, open_round, void_round
from service.api import presenters
from service.use_cases.round_use_cases import RoundView
from shoe.shoe import ShoePolicy, new_shoe

OPENED = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
LATER = OPENED + timedelta(seconds=4)
ROUND_ID = "5f0c6e1a-3b9d-4c2e-9a77-1d2f3e4a5b6c"
TABLE_ID = "0b7d3c2a-1e4f-4a6b-8c9d-0e1f2a3b4c5d"
STANDARD = loader.get("standard/v1")
GRACE = timedelta(seconds=300)  # RD_ROLLBACK_GRACE_SECONDS's default


def _opened(cards: tuple[str, ...], antes: list[int]) -> Step:
    shoe = new_shoe(1, random.Random(2026), policy=ShoePolicy.PER_ROUND, forced=cards)  # noqa: S311 - a fixed example
    return open_round(
        round_id=ROUND_ID,
        table_id=TABLE_ID,
        paytable=STANDARD,
        shoe=shoe,
        antes=[(f"player-{i + 1}", a) for i, a in enumerate(antes)],
        now=OPENED,
        window_seconds=15,
        test=False,
        actor="demo",
    )


def _decided(step: Step, *choices: Raise | Call) -> Step:
    for choice in choices:
        step = decide(step.round, step.shoe, STANDARD, choice, now=LATER, actor="demo")
    return step


def _bet(n: int) -> str:
    return f"{ROUND_ID}.{n}"


def _spread_won() -> Step:
    return _decided(_opened(("3S", "JH", "9D"), [500, 200]), Raise(bet_id=_bet(1)), Call(bet_id=_bet(2)))


def _spread_lost() -> Step:
    return _decided(_opened(("3S", "JH", "KD"), [500]), Call(bet_id=_bet(1)))


def _closed_by_dealer() -> Step:
    s = _opened(("3S", "JH", "4C"), [500])
    return close_window(s.round, s.shoe, STANDARD, now=LATER, actor="demo")


def _voided() -> Step:
    s = _opened(("3S", "JH"), [500])
    return void_round(s.round, s.shoe, STANDARD, reason="dealer error", now=LATER, actor="demo")


def _rolled_back() -> Step:
    s = _opened(("7S", "7H", "7D"), [500])
    reason = "wallet debit failed"
    return round_rollback.rollback(s.round, s.shoe, STANDARD, reason=reason, now=LATER, actor="demo", grace=GRACE)


EXAMPLES: dict[str, tuple[str, Callable[[], Step]]] = {
    "consecutive": ("Consecutive posts (5, 6): a push, settled at open", lambda: _opened(("5S", "6H"), [500])),
    "pair": ("A pair (7, 7) and a 9: a push, settled at open", lambda: _opened(("7S", "7H", "9D"), [500])),
    "trips": ("A pair and a third 7: trips pay 11 to 1, settled at open", lambda: _opened(("7S", "7H", "7D"), [500])),
    "raise_window": ("A spread of 7 (3, J): the raise window is open", lambda: _opened(("3S", "JH", "9D"), [500, 200])),
    "spread_win": ("The spread settled: player 1 raised and won at 1 to 1, player 2 called and won", _spread_won),
    "spread_lose": ("A third card outside the posts (K): the bet loses", _spread_lost),
    "timeout": ("The dealer closed the window: the undecided bet called (timeout_call)", _closed_by_dealer),
    "void": ("Voided in its raise window: the ante refunded", _voided),
    "rolled_back": ("Rolled back after it settled at open (trips): each movement reversed", _rolled_back),
}


def example_rounds() -> dict[str, dict[str, Any]]:
    """Each example as an OpenAPI Example object: a summary and the round as the API shows it."""
    found = {}
    for name, (summary, play) in EXAMPLES.items():
        step = play()
        reveal = None if step.round.is_open else step.shoe.reveal
        out = presenters.round_out(RoundView(round=step.round, reveal=reveal, currency="EUR"))
        found[name] = {"summary": summary, "value": msgspec.to_builtins(out)}
    return found


def add(doc: dict[str, Any]) -> None:
    """Put the example rounds on every response whose body is a round."""
    rounds = example_rounds()
    for item in doc["paths"].values():
        for op in item.values():
            for status, response in op.get("responses", {}).items():
                content = response.get("content", {}).get("application/json")
                if status.startswith("2") and content and content["schema"].get("$ref", "").endswith("/RoundOut"):
                    content["examples"] = rounds
