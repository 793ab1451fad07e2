"""What the In Between engine refuses, each with a stable machine-readable code, leaving the game as it was."""

from __future__ import annotations

import random
from collections.abc import Callable
from datetime import datetime

import pytest

from paytables.inbetween import inbetween_rules
from paytables.inbetween.inbetween_actions import (
    BetBelowMinimum,
    BetOverChips,
    BetOverPot,
    CallAce,
    CallPair,
    GameOver,
    ImpossibleCall,
    InBetweenError,
    InvalidGame,
    NotYourTurn,
    PassTurn,
    PlaceBet,
    WrongAction,
)
from paytables.inbetween.inbetween_events import AceCall, PairCall, SeatSpec
from paytables.inbetween.inbetween_game import act, advance, start_game
from paytables.refusals import GameError
from shoe.shoe import new_shoe
from tests.unit.inbetween_table import NOW, Table

NEPAL = "inbetween/nepal/v1"


def refused(t: Table, error: type[InBetweenError], call: Callable[[], object]) -> InBetweenError:
    """Run a refused move and check that the table's game and shoe did not change."""
    game, shoe, events = t.game, t.shoe, len(t.events)
    with pytest.raises(error) as caught:
        call()
    assert (t.game, t.shoe, len(t.events)) == (game, shoe, events)
    return caught.value


def test_a_player_acting_out_of_turn_is_refused() -> None:
    t = Table(NEPAL, "4S", "JH")
    error = refused(t, NotYourTurn, lambda: t.act(PlaceBet(player_id="p2", amount=5)))
    assert error.code == "NOT_YOUR_TURN"


def test_a_bet_over_the_pot_is_refused() -> None:
    t = Table(NEPAL, "4S", "JH")
    assert refused(t, BetOverPot, lambda: t.bet(31)).code == "BET_OVER_POT"


def test_a_bet_over_the_players_chips_is_refused() -> None:
    t = Table(NEPAL, "4S", "JH")
    t.rebalance([990, 25, 990])  # pot 985
    assert refused(t, BetOverChips, lambda: t.bet(26)).code == "BET_OVER_CHIPS"


@pytest.mark.parametrize("amount", [0, -5])
def test_a_bet_below_one_chip_is_refused(amount: int) -> None:
    t = Table(NEPAL, "4S", "JH")
    assert refused(t, BetBelowMinimum, lambda: t.bet(amount)).code == "BET_BELOW_MINIMUM"


def test_calling_higher_than_a_pair_of_aces_is_refused() -> None:
    t = Table(NEPAL, "AS", "AH")
    t.call_ace(AceCall.HIGH)
    assert refused(t, ImpossibleCall, lambda: t.call_pair(PairCall.HIGHER)).code == "IMPOSSIBLE_CALL"
    t.call_pair(PairCall.LOWER)


def test_calling_lower_than_a_pair_of_twos_is_refused() -> None:
    t = Table(NEPAL, "2S", "2H")
    assert refused(t, ImpossibleCall, lambda: t.call_pair(PairCall.LOWER)).code == "IMPOSSIBLE_CALL"
    t.call_pair(PairCall.HIGHER)


def test_an_action_the_state_does_not_wait_for_is_refused() -> None:
    t = Table(NEPAL, "AS", "9H")
    assert refused(t, WrongAction, lambda: t.bet(5)).code == "WRONG_ACTION"
    refused(t, WrongAction, lambda: t.pass_turn())  # no passing before the second post
    refused(t, WrongAction, lambda: t.call_pair(PairCall.HIGHER))
    refused(t, WrongAction, t.advance)
    t.call_ace(AceCall.LOW)
    refused(t, WrongAction, lambda: t.call_ace(AceCall.HIGH))


def test_a_player_action_between_turns_is_refused() -> None:
    t = Table(NEPAL, "7S", "8H")
    refused(t, WrongAction, lambda: t.act(PassTurn(player_id="p1")))


def test_every_move_after_the_game_is_over_is_refused() -> None:
    t = Table(NEPAL, "2S", "KH", "AC", players=2, ante=20)
    t.rebalance([980, 20])
    t.bet(20)
    assert refused(t, GameOver, t.advance).code == "GAME_OVER"
    refused(t, GameOver, lambda: t.act(PassTurn(player_id="p0")))
    refused(t, GameOver, lambda: t.act(CallAce(player_id="p1", call=AceCall.LOW)))


def test_a_game_is_played_only_by_the_rule_set_it_started_with() -> None:
    t = Table(NEPAL, "4S", "JH")
    other = inbetween_rules.get("inbetween/pay-the-bet/v1")
    with pytest.raises(InvalidGame):
        act(t.game, t.shoe, PlaceBet(player_id="p1", amount=1), ruleset=other, source=t.rng, now=NOW)
    with pytest.raises(InvalidGame):
        advance(t.game, t.shoe, ruleset=other, source=t.rng, now=NOW)


def test_a_time_without_a_utc_zone_is_refused() -> None:
    t = Table(NEPAL, "4S", "JH")
    with pytest.raises(ValueError, match="UTC"):
        act(
            t.game,
            t.shoe,
            CallPair(player_id="p1", call=PairCall.HIGHER),
            ruleset=t.rules,
            source=t.rng,
            now=datetime(2024, 1, 1),
        )


def test_every_refusal_is_a_game_error_the_api_maps_by_its_code() -> None:
    codes = {cls.code for cls in InBetweenError.__subclasses__()}
    assert all(issubclass(cls, GameError) for cls in InBetweenError.__subclasses__())
    assert len(codes) == len(InBetweenError.__subclasses__())


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"seats": 1}, "2..8 players"),
        ({"seats": 9}, "2..8 players"),
        ({"ante": 7}, "ante"),
        ({"rounds": 7}, "rounds"),
        ({"rounds": "until_empty"}, "rounds"),
        ({"dealer": 3}, "dealer"),
        ({"duplicate": True}, "one seat"),
        ({"decks": 2}, "52-card pack"),
    ],
)
def test_a_game_the_rule_set_does_not_offer_is_refused(change: dict[str, object], message: str) -> None:
    rng = random.Random(1)
    count = int(str(change.get("seats", 3)))
    seats = [SeatSpec(player_id="same" if change.get("duplicate") else f"p{i}") for i in range(count)]
    rounds = change.get("rounds", 5)
    assert isinstance(rounds, int | str)
    with pytest.raises(InvalidGame, match=message):
        start_game(
            game_id="g",
            ruleset=inbetween_rules.get(NEPAL),
            ante=int(str(change.get("ante", 10))),
            rounds=rounds,
            seats=seats,
            dealer=int(str(change.get("dealer", 0))),
            shoe=new_shoe(int(str(change.get("decks", 1))), rng),
            source=rng,
            now=NOW,
        )


def test_a_pack_already_dealt_from_is_refused_at_the_start() -> None:
    rng = random.Random(1)
    _, _, shoe = new_shoe(1, rng).deal()
    with pytest.raises(InvalidGame, match="undealt"):
        start_game(
            game_id="g",
            ruleset=inbetween_rules.get(NEPAL),
            ante=10,
            rounds=5,
            seats=[SeatSpec(player_id="a"), SeatSpec(player_id="b")],
            shoe=shoe,
            source=rng,
            now=NOW,
        )
