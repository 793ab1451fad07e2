"""Properties of settlement that hold for every deal, ante and raise the rules allow."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from paytables.red_dog import loader
from paytables.red_dog.red_dog import Result, RuleError, settle, transaction_total
from paytables.refusals import RaiseExceedsAnte

ranks = st.integers(min_value=2, max_value=14)
antes = st.integers(min_value=1, max_value=10**9)
paytable_ids = st.sampled_from(["standard/v1", "generous/v1", "post-double/v1"])


@dataclass(frozen=True)
class Bet:
    paytable_id: str
    first: int
    second: int
    third: int | None
    ante: int
    raised: int


@st.composite
def bets(draw: st.DrawFn) -> Bet:
    """A bet the rules allow: a raise only on a spread, no third card after consecutive posts."""
    first, second, ante = draw(ranks), draw(ranks), draw(antes)
    consecutive = abs(first - second) == 1
    spread = not consecutive and first != second
    raised = draw(st.integers(min_value=0, max_value=ante)) if spread else 0
    third = None if consecutive else draw(ranks)
    return Bet(draw(paytable_ids), first, second, third, ante, raised)


@given(bets())
def test_the_net_is_what_was_paid_back_less_everything_wagered(bet: Bet) -> None:
    got = settle(loader.get(bet.paytable_id), bet.first, bet.second, bet.third, bet.ante, bet.raised)
    assert got.net == got.payout - got.wagered
    assert got.wagered >= bet.ante + bet.raised


@given(bets())
def test_the_transactions_add_up_to_the_net(bet: Bet) -> None:
    got = settle(loader.get(bet.paytable_id), bet.first, bet.second, bet.third, bet.ante, bet.raised)
    assert transaction_total(got.transactions) == got.net
    assert all(m.amount >= 0 for m in got.transactions)


@given(bets())
def test_a_push_returns_exactly_the_stake(bet: Bet) -> None:
    got = settle(loader.get(bet.paytable_id), bet.first, bet.second, bet.third, bet.ante, bet.raised)
    pushes = abs(bet.first - bet.second) == 1 or (bet.first == bet.second and bet.third != bet.first)
    assert (got.result is Result.PUSH) == pushes
    stake_back = (bet.ante, 0, bet.ante)
    assert ((got.payout, got.net, got.wagered) == stake_back) == pushes


@given(bets())
def test_the_result_does_not_depend_on_which_post_came_first(bet: Bet) -> None:
    paytable = loader.get(bet.paytable_id)
    one_way = settle(paytable, bet.first, bet.second, bet.third, bet.ante, bet.raised)
    other_way = settle(paytable, bet.second, bet.first, bet.third, bet.ante, bet.raised)
    assert one_way == other_way


@given(bets(), st.integers(min_value=1, max_value=10**9))
def test_a_raise_above_the_ante_is_refused(bet: Bet, excess: int) -> None:
    with pytest.raises((RuleError, RaiseExceedsAnte), match="raise"):
        settle(loader.get(bet.paytable_id), bet.first, bet.second, bet.third, bet.ante, bet.ante + excess)


@given(bets(), st.integers(min_value=1, max_value=10**9))
def test_a_negative_raise_is_refused(bet: Bet, below: int) -> None:
    with pytest.raises((RuleError, RaiseExceedsAnte), match="raise"):
        settle(loader.get(bet.paytable_id), bet.first, bet.second, bet.third, bet.ante, -below)


@st.composite
def non_spread_posts(draw: st.DrawFn) -> tuple[int, int]:
    """Two posts with no rank between them: a pair or consecutive ranks, in either order."""
    first = draw(ranks)
    second = draw(st.sampled_from([r for r in (first - 1, first, first + 1) if 2 <= r <= 14]))
    return first, second


@given(paytable_ids, non_spread_posts(), ranks, antes, st.data())
def test_any_raise_on_a_pair_or_consecutive_posts_is_refused(
    paytable_id: str, posts: tuple[int, int], third: int, ante: int, data: st.DataObject
) -> None:
    raised = data.draw(st.integers(min_value=1, max_value=ante))
    with pytest.raises(RuleError, match="no raise"):
        settle(loader.get(paytable_id), posts[0], posts[1], third, ante, raised)
