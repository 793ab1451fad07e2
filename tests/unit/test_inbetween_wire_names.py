"""The In Between wire spells the engine's enums as literals; they must stay the same sets."""

from __future__ import annotations

import enum
from typing import Any, get_args

import pytest

from paytables.inbetween.inbetween_actions import InBetweenAction
from paytables.inbetween.inbetween_events import AceCall, Decision, EndReason, PairCall, TurnOutcome
from paytables.inbetween.inbetween_state import GameStatus
from service.api import friends_wire
from service.api import inbetween_wire as wire


@pytest.mark.parametrize(
    ("literal", "domain"),
    [
        (wire.GameStatusName, GameStatus),
        (wire.DecisionName, Decision),
        (wire.AceCallName, AceCall),
        (wire.PairCallName, PairCall),
        (wire.TurnOutcomeName, TurnOutcome),
        (wire.EndReasonName, EndReason),
    ],
)
def test_each_in_between_wire_literal_names_exactly_the_values_of_its_engine_enum(
    literal: Any, domain: type[enum.StrEnum]
) -> None:
    assert set(get_args(literal)) == {member.value for member in domain}


def test_the_action_tags_on_the_wire_are_the_engine_actions_tags() -> None:
    engine = {t.__struct_config__.tag for t in get_args(InBetweenAction)}
    on_wire = {t.__struct_config__.tag for t in get_args(wire.ActionIn)}
    friends = {t.__struct_config__.tag for t in get_args(friends_wire.MoveIn)}
    moves = {"call_ace", "call_pair", "bet", "pass", "split", "keep_pair", "agree_stop", "show", "buy"}
    assert on_wire == engine == friends == moves
