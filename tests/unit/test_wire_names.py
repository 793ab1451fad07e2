"""The wire spells the domain's enums as literals (so the schema lists them inline); they must stay the same sets."""

from __future__ import annotations

import enum
from typing import Any, get_args

import pytest

from paytables.red_dog.paytable import PostRule
from paytables.red_dog.red_dog import Decision, Direction, Outcome, Result, TransactionKind
from paytables.red_dog.round import RoundStatus
from paytables.red_dog.table import TableMode, TableStatus
from service.api import wire
from shoe.shoe import ShoePolicy


@pytest.mark.parametrize(
    ("literal", "domain"),
    [
        (wire.TableStatusName, TableStatus),
        (wire.ShoePolicyName, ShoePolicy),
        (wire.TableModeName, TableMode),
        (wire.RoundStatusName, RoundStatus),
        (wire.OutcomeName, Outcome),
        (wire.DecisionName, Decision),
        (wire.ResultName, Result),
        (wire.TransactionKindName, TransactionKind),
        (wire.DirectionName, Direction),
        (wire.PostRuleName, PostRule),
    ],
)
def test_each_wire_literal_names_exactly_the_values_of_its_domain_enum(
    literal: Any, domain: type[enum.StrEnum]
) -> None:
    assert set(get_args(literal)) == {member.value for member in domain}
