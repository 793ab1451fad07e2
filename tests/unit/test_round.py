"""The round state machine: opening, deciding, closing and voiding a round, with payouts worked out by hand."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import TypeVar

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paytables.red_dog import loader
from paytables.red_dog.events import (
    BetSettled,
    CardDealt,
    Decided,
    DecidedBy,
    Event,
    OpenedBet,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    SpreadAnnounced,
    kind_of,
)
from paytables.red_dog.paytable import Paytable
from paytables.red_dog.red_dog import (
    Decision,
    Direction,
    Outcome,
    Result,
    Transaction,
    TransactionKind,
    transaction_total,
)
from paytables.red_dog.round import (
    SYSTEM,
    Call,
    Raise,
    Round,
    RoundStatus,
    Step,
    close_window,
    decide,
    is_expired,
    open_round,
    settle_if_expired,
    void_round,
)
from paytables.refusals import AlreadyDecided, NotInRaiseWindow, RaiseExceedsAnte, RaiseWindowClosed, UnknownBet
from shoe.cards import DECK, rank
from shoe.shoe import Shoe, ShoePolicy, new_shoe

STANDARD = loader.get("standard/v1")  # spreads 1, 2, 3 pay 5, 4, 2 to 1; 4..11 pay 1 to 1; trips 11 to 1
POST_DOUBLE = loader.get("post-double/v1")  # standard odds; a third card equal to a post loses twice the wager
NOW = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
WINDOW = 15
OPERATOR = "op-1"
E = TypeVar("E")


def forced_shoe(*cards: str, decks: int = 1, policy: ShoePolicy = ShoePolicy.PER_ROUND) -> Shoe:
    return new_shoe(decks, random.Random(1234), policy=policy, forced=cards)


def opened(
    *cards: str,
    antes: tuple[tuple[str, int], ...] = (("p1", 10),),
    paytable: Paytable = STANDARD,
    shoe: Shoe | None = None,
) -> Step:
    return open_round(
        round_id="r1",
        table_id="t1",
        paytable=paytable,
        shoe=forced_shoe(*cards) if shoe is None else shoe,
        antes=list(antes),
        now=NOW,
        window_seconds=WINDOW,
        test=True,
        actor=OPERATOR,
    )


def kinds(events: tuple[Event, ...]) -> list[str]:
    return [kind_of(e) for e in events]


def money(rnd: Round) -> list[tuple[str, str | None, int | None, int | None]]:
    return [(b.bet_id, b.result, b.payout, b.net) for b in rnd.bets]


def moves(rnd: Round, index: int = 0) -> list[tuple[str, str, str, int]]:
    return [(m.id, m.kind, m.type, m.amount) for m in rnd.bets[index].transactions]


def of_type(events: tuple[Event, ...], kind: type[E]) -> list[E]:
    return [e for e in events if isinstance(e, kind)]


def raise_(step: Step, bet_id: str, amount: int | None = None, *, now: datetime = NOW) -> Step:
    return decide(
        step.round, step.shoe, step_paytable(step), Raise(bet_id=bet_id, amount=amount), now=now, actor=OPERATOR
    )


def call(step: Step, bet_id: str, *, now: datetime = NOW) -> Step:
    return decide(step.round, step.shoe, step_paytable(step), Call(bet_id=bet_id), now=now, actor=OPERATOR)


def close(step: Step, *, now: datetime = NOW) -> Step:
    return close_window(step.round, step.shoe, step_paytable(step), now=now, actor=OPERATOR)


def void(step: Step, reason: str = "fault", *, now: datetime = NOW) -> Step:
    return void_round(step.round, step.shoe, step_paytable(step), reason=reason, now=now, actor=OPERATOR)


def step_paytable(step: Step) -> Paytable:
    return loader.get(step.round.paytable)


def test_consecutive_posts_push_at_once_without_a_third_card() -> None:
    step = opened("5S", "6H")
    rnd = step.round
    assert rnd.status is RoundStatus.SETTLED
    assert (rnd.outcome, rnd.spread, rnd.payout_odds, rnd.raise_window_closes_at) == ("consecutive", None, None, None)
    assert [c.card for c in rnd.cards] == ["5S", "6H"]
    assert step.shoe.position == 2
    # A push returns the ante: 10 back, nothing won.
    assert money(rnd) == [("r1.1", "push", 10, 0)]
    assert moves(rnd) == [("r1.1:ante", "ante", "debit", 10), ("r1.1:payout", "payout", "credit", 10)]
    assert rnd.settled_at == NOW
    assert kinds(step.events) == ["round_opened", "card_dealt", "card_dealt", "bet_settled", "round_settled"]
    assert step.ended


def test_a_pair_deals_the_third_card_at_once_and_pushes_when_it_does_not_match() -> None:
    step = opened("8S", "8H", "3D")
    rnd = step.round
    assert rnd.status is RoundStatus.SETTLED
    assert rnd.outcome == "pair"
    assert [(c.position, c.card, c.shoe_index) for c in rnd.cards] == [(1, "8S", 0), (2, "8H", 1), (3, "3D", 2)]
    assert money(rnd) == [("r1.1", "push", 10, 0)]
    assert kinds(step.events)[:4] == ["round_opened", "card_dealt", "card_dealt", "card_dealt"]
    assert "spread_announced" not in kinds(step.events)


def test_a_pair_followed_by_a_matching_card_pays_eleven_to_one() -> None:
    step = opened("8S", "8H", "8D", antes=(("p1", 10), ("p2", 3)))
    # Trips at 11 to 1: the ante back plus eleven times it.
    assert step.round.outcome == "trips"
    assert money(step.round) == [("r1.1", "trips", 120, 110), ("r1.2", "trips", 36, 33)]
    assert of_type(step.events, RoundSettled) == [
        RoundSettled(round_id="r1", outcome=Outcome.TRIPS, settled_at=NOW, total_net=143)
    ]


def test_a_spread_opens_the_raise_window_until_now_plus_the_window() -> None:
    step = opened("5S", "9H", "7D")
    rnd = step.round
    assert rnd.status is RoundStatus.RAISE_WINDOW
    # 5 and 9: 6, 7, 8 lie between, a spread of 3, which standard/v1 pays 2 to 1.
    assert (rnd.outcome, rnd.spread, rnd.payout_odds) == ("spread", 3, 2)
    assert rnd.raise_window_closes_at == NOW + timedelta(seconds=WINDOW)
    assert [c.card for c in rnd.cards] == ["5S", "9H"]
    assert step.shoe.position == 2
    assert (rnd.bets[0].decision, rnd.bets[0].payout) == (None, None)
    assert kinds(step.events) == ["round_opened", "card_dealt", "card_dealt", "spread_announced"]
    closes = datetime(2024, 5, 1, 12, 0, 15, tzinfo=UTC)
    assert of_type(step.events, SpreadAnnounced) == [
        SpreadAnnounced(round_id="r1", spread=3, odds=2, raise_window_closes_at=closes)
    ]


def test_a_raise_is_recorded_and_the_round_waits_for_the_other_bets() -> None:
    start = opened("5S", "9H", "7D", antes=(("p1", 10), ("p2", 10)))
    step = raise_(start, "r1.1")
    assert step.round.status is RoundStatus.RAISE_WINDOW
    assert (step.round.bets[0].decision, step.round.bets[0].raise_amount) == ("raise", 10)  # no amount: the ante
    assert step.round.bets[1].decision is None
    assert (len(step.round.cards), step.shoe.position) == (2, 2)
    assert step.events == (
        Decided(
            round_id="r1", bet_id="r1.1", action=Decision.RAISE, raise_amount=10, by=DecidedBy.PLAYER, actor=OPERATOR
        ),
    )


def test_the_last_decision_deals_the_third_card_and_settles_every_bet() -> None:
    start = opened("5S", "9H", "7D", antes=(("p1", 10), ("p2", 10)))
    raised = raise_(start, "r1.1", 4)
    later = NOW + timedelta(seconds=3)
    step = call(raised, "r1.2", now=later)
    rnd = step.round
    assert (rnd.status, rnd.settled_at) == (RoundStatus.SETTLED, later)
    assert [(c.position, c.card, c.shoe_index) for c in rnd.cards][2] == (3, "7D", 2)
    # A 7 lies between 5 and 9 at 2 to 1: wager 14 wins 28 (42 back); wager 10 wins 20 (30 back).
    assert money(rnd) == [("r1.1", "win", 42, 28), ("r1.2", "win", 30, 20)]
    assert moves(rnd, 0) == [
        ("r1.1:ante", "ante", "debit", 10),
        ("r1.1:raise", "raise", "debit", 4),
        ("r1.1:payout", "payout", "credit", 42),
    ]
    assert kinds(step.events) == ["decision", "card_dealt", "bet_settled", "bet_settled", "round_settled"]


def test_a_third_card_outside_the_posts_loses_the_whole_wager() -> None:
    step = raise_(opened("5S", "9H", "KD"), "r1.1", 10)
    assert money(step.round) == [("r1.1", "lose", 0, -20)]
    assert moves(step.round)[-1] == ("r1.1:payout", "payout", "credit", 0)


def test_hitting_a_post_on_post_double_loses_twice_the_wager() -> None:
    step = raise_(opened("5S", "9H", "9D", paytable=POST_DOUBLE), "r1.1", 10)
    # Wager 20 lost, and a penalty of another 20.
    assert money(step.round) == [("r1.1", "lose", 0, -40)]
    assert moves(step.round) == [
        ("r1.1:ante", "ante", "debit", 10),
        ("r1.1:raise", "raise", "debit", 10),
        ("r1.1:post_penalty", "post_penalty", "debit", 20),
        ("r1.1:payout", "payout", "credit", 0),
    ]


def test_the_dealer_closing_the_window_calls_the_undecided_bets_and_says_so() -> None:
    start = opened("2S", "AH", "KD", antes=(("p1", 10), ("p2", 6)))
    step = close(raise_(start, "r1.1", 10), now=NOW + timedelta(seconds=5))
    rnd = step.round
    assert rnd.status is RoundStatus.SETTLED
    assert [(b.decision, b.raise_amount) for b in rnd.bets] == [("raise", 10), ("timeout_call", 0)]
    # 2 and A: spread 11 at 1 to 1; a king lies between. Wager 20 wins 20, wager 6 wins 6.
    assert money(rnd) == [("r1.1", "win", 40, 20), ("r1.2", "win", 12, 6)]
    assert of_type(step.events, Decided) == [
        Decided(
            round_id="r1",
            bet_id="r1.2",
            action=Decision.TIMEOUT_CALL,
            raise_amount=0,
            by=DecidedBy.DEALER,
            actor=OPERATOR,
        )
    ]


def test_the_deadline_calls_the_undecided_bets_and_names_the_system_as_the_actor() -> None:
    start = raise_(opened("2S", "AH", "KD", antes=(("p1", 10), ("p2", 6))), "r1.1", 10)
    deadline = NOW + timedelta(seconds=WINDOW)
    assert settle_if_expired(start.round, start.shoe, STANDARD, now=deadline - timedelta(microseconds=1)) is None
    step = settle_if_expired(start.round, start.shoe, STANDARD, now=deadline)
    assert step is not None
    assert money(step.round) == [("r1.1", "win", 40, 20), ("r1.2", "win", 12, 6)]
    (decided,) = of_type(step.events, Decided)
    assert (decided.bet_id, decided.by, decided.actor) == ("r1.2", DecidedBy.TIMEOUT, SYSTEM)
    # The dealer closing after the deadline is the deadline's doing, not the dealer's.
    closed = close(start, now=deadline + timedelta(seconds=1))
    assert [d.by for d in of_type(closed.events, Decided)] == [DecidedBy.TIMEOUT]


def test_voiding_refunds_every_stake_taken_so_far() -> None:
    start = opened("5S", "9H", "7D", antes=(("p1", 10), ("p2", 8)))
    step = void(raise_(start, "r1.1", 7), "table fault", now=NOW + timedelta(seconds=1))
    rnd = step.round
    assert (rnd.status, rnd.void_reason, rnd.settled_at) == (
        RoundStatus.VOID,
        "table fault",
        NOW + timedelta(seconds=1),
    )
    assert money(rnd) == [("r1.1", "void", 17, 0), ("r1.2", "void", 8, 0)]
    assert moves(rnd, 0) == [
        ("r1.1:ante", "ante", "debit", 10),
        ("r1.1:raise", "raise", "debit", 7),
        ("r1.1:refund", "refund", "credit", 17),
    ]
    assert moves(rnd, 1) == [("r1.2:ante", "ante", "debit", 8), ("r1.2:refund", "refund", "credit", 8)]
    assert len(rnd.cards) == 2  # the third card is never dealt
    assert kinds(step.events) == ["bet_settled", "bet_settled", "round_voided"]
    voided_at = datetime(2024, 5, 1, 12, 0, 1, tzinfo=UTC)
    assert of_type(step.events, RoundVoided) == [
        RoundVoided(round_id="r1", reason="table fault", voided_at=voided_at, actor=OPERATOR)
    ]


def test_a_settled_round_takes_no_decision_close_or_void() -> None:
    done = opened("5S", "6H")
    with pytest.raises(NotInRaiseWindow):
        call(done, "r1.1")
    with pytest.raises(NotInRaiseWindow):
        close(done)
    with pytest.raises(NotInRaiseWindow):
        void(done, "late")


def test_a_void_round_takes_no_decision() -> None:
    voided = void(opened("5S", "9H"))
    with pytest.raises(NotInRaiseWindow):
        call(voided, "r1.1")


def test_a_decision_at_or_after_the_deadline_settles_the_round_by_timeout_and_is_refused() -> None:
    start = opened("5S", "9H", "7D")
    closes = NOW + timedelta(seconds=WINDOW)
    assert not is_expired(start.round, closes - timedelta(microseconds=1))
    for late in (closes, closes + timedelta(microseconds=1), closes + timedelta(hours=1)):
        assert is_expired(start.round, late)
        step = call(start, "r1.1", now=late)
        # The deadline's settlement stands (it is committed), then the decision is refused.
        assert isinstance(step.refusal, RaiseWindowClosed)
        assert step.round.status is RoundStatus.SETTLED
        assert [b.decision for b in step.round.bets] == ["timeout_call"]
    just_in_time = call(start, "r1.1", now=closes - timedelta(microseconds=1))
    assert just_in_time.refusal is None
    assert just_in_time.round.bets[0].decision == "call"


def test_a_late_decision_is_refused_as_closed_even_once_the_deadline_has_settled_the_round() -> None:
    start = opened("5S", "9H", antes=(("p1", 10), ("p2", 10)))
    closes = NOW + timedelta(seconds=WINDOW)
    swept = settle_if_expired(start.round, start.shoe, STANDARD, now=closes)
    assert swept is not None
    # The answer to a late decision must not depend on whether a sweeper got to the round first.
    with pytest.raises(RaiseWindowClosed):
        call(swept, "r1.1", now=closes)


def test_a_late_void_settles_the_round_by_timeout_and_is_refused() -> None:
    start = opened("5S", "9H", "7D")
    step = void(start, now=NOW + timedelta(seconds=WINDOW))
    assert isinstance(step.refusal, NotInRaiseWindow)
    assert (step.round.status, step.round.bets[0].decision) == (RoundStatus.SETTLED, "timeout_call")


def test_a_bet_decides_only_once() -> None:
    once = call(opened("5S", "9H", antes=(("p1", 10), ("p2", 10))), "r1.1")
    with pytest.raises(AlreadyDecided):
        raise_(once, "r1.1", 10)


def test_a_decision_for_a_bet_the_round_does_not_have_is_refused() -> None:
    start = opened("5S", "9H")
    with pytest.raises(UnknownBet):
        call(start, "r1.2")
    with pytest.raises(UnknownBet):
        call(start, "r2.1")


@pytest.mark.parametrize("amount", [11, 0, -1])
def test_a_raise_above_the_ante_or_below_one_is_refused(amount: int) -> None:
    with pytest.raises(RaiseExceedsAnte):
        raise_(opened("5S", "9H"), "r1.1", amount)


def test_round_opened_names_the_paytable_its_sha256_the_decks_the_bets_and_who_opened_it() -> None:
    step = opened("5S", "9H", antes=(("alice", 10), ("bob", 25)))
    assert step.events[0] == RoundOpened(
        round_id="r1",
        paytable="standard/v1",
        paytable_sha256=STANDARD.sha256,
        decks=1,
        commitment=step.shoe.commitment,
        opened_at=NOW,
        bets=(
            OpenedBet(bet_id="r1.1", player_id="alice", ante=10),
            OpenedBet(bet_id="r1.2", player_id="bob", ante=25),
        ),
        actor=OPERATOR,
    )


def test_card_dealt_events_give_position_shoe_index_and_card() -> None:
    step = opened("8S", "8H", "QD")
    dealt = [(e.position, e.shoe_index, e.card, e.commitment) for e in of_type(step.events, CardDealt)]
    commitment = step.shoe.commitment
    assert dealt == [(1, 0, "8S", commitment), (2, 1, "8H", commitment), (3, 2, "QD", commitment)]


def test_bet_settled_events_carry_the_result_payout_net_and_transactions() -> None:
    step = opened("8S", "8H", "8C", antes=(("p1", 5),))
    assert of_type(step.events, BetSettled) == [
        BetSettled(
            round_id="r1",
            bet_id="r1.1",
            player_id="p1",
            ante=5,
            raise_amount=0,
            decision=None,
            result=Result.TRIPS,
            payout=60,
            net=55,
            transactions=(
                Transaction(id="r1.1:ante", kind=TransactionKind.ANTE, type=Direction.DEBIT, amount=5),
                Transaction(id="r1.1:payout", kind=TransactionKind.PAYOUT, type=Direction.CREDIT, amount=60),
            ),
        )
    ]


def test_a_cut_card_shoe_deals_on_from_where_the_last_round_stopped() -> None:
    shoe = forced_shoe("8S", "8H", "3D", "5S", "9H", "7D", policy=ShoePolicy.CUT_CARD)
    assert shoe.cut_position is not None
    first = opened(shoe=shoe)
    assert first.round.status is RoundStatus.SETTLED
    second = opened(shoe=first.shoe)
    assert [(c.card, c.shoe_index) for c in second.round.cards] == [("5S", 3), ("9H", 4)]
    done = close(second)
    assert done.round.cards[2].shoe_index == 5


# --- properties over random posts, third cards, bets and decisions ---

cards3 = st.lists(st.sampled_from(DECK), min_size=3, max_size=3, unique=True)
bets = st.lists(st.integers(min_value=1, max_value=1000), min_size=1, max_size=7)
# None: the bet never decides and the window is closed on it.
choices = st.lists(st.one_of(st.none(), st.just(0), st.integers(min_value=1, max_value=1000)), min_size=7, max_size=7)


def play(cards: list[str], antes: list[int], plan: list[int | None], paytable: Paytable) -> list[Step]:
    """Open, then decide each bet as planned (0 calls, n raises min(n, ante)), then close whatever is still open."""
    steps = [opened(*cards, antes=tuple((f"p{i}", a) for i, a in enumerate(antes)), paytable=paytable)]
    for bet, choice in zip(steps[0].round.bets, plan, strict=False):
        current = steps[-1]
        if current.round.status is not RoundStatus.RAISE_WINDOW or choice is None:
            continue
        steps.append(call(current, bet.bet_id) if choice == 0 else raise_(current, bet.bet_id, min(choice, bet.ante)))
    if steps[-1].round.status is RoundStatus.RAISE_WINDOW:
        steps.append(close(steps[-1]))
    return steps


@settings(max_examples=300, deadline=None)
@given(cards=cards3, antes=bets, plan=choices, paytable_id=st.sampled_from(sorted(loader.released())))
def test_every_round_settles_with_transactions_that_add_up_to_each_net(
    cards: list[str], antes: list[int], plan: list[int | None], paytable_id: str
) -> None:
    steps = play(cards, antes, plan, loader.get(paytable_id))
    final = steps[-1].round
    assert final.status is RoundStatus.SETTLED
    assert all(b.net is not None and transaction_total(b.transactions) == b.net for b in final.bets)
    # Every bet is paid exactly once, and the settled events say the same as the round.
    settled = [e for s in steps for e in of_type(s.events, BetSettled)]
    assert sorted(e.bet_id for e in settled) == sorted(b.bet_id for b in final.bets)
    assert [(e.payout, e.net) for e in settled] == [(b.payout, b.net) for b in final.bets]
    assert [kind_of(e) for s in steps for e in s.events].count("round_settled") == 1


@settings(max_examples=300, deadline=None)
@given(cards=cards3, antes=bets, plan=choices)
def test_a_round_deals_at_most_three_cards_and_never_shows_the_third_while_the_window_is_open(
    cards: list[str], antes: list[int], plan: list[int | None]
) -> None:
    steps = play(cards, antes, plan, STANDARD)
    for step in steps:
        rnd = step.round
        assert len(rnd.cards) <= 3
        assert step.shoe.position == len(rnd.cards)
        assert len(rnd.cards) == (2 if rnd.status is RoundStatus.RAISE_WINDOW else len(rnd.cards))
        assert [c.card for c in rnd.cards] == cards[: len(rnd.cards)]
    dealt = [e.card for s in steps for e in of_type(s.events, CardDealt)]
    consecutive = abs(rank(cards[0]) - rank(cards[1])) == 1
    assert dealt == (cards[:2] if consecutive else cards)


def test_a_round_survives_a_json_round_trip_through_its_stored_form() -> None:
    step = opened("5S", "9H", antes=(("p1", 10), ("p2", 3)))
    raised = raise_(step, "r1.2", 2)
    stored = msgspec.json.decode(msgspec.json.encode(raised.round), type=Round)
    assert stored == raised.round
