"""The round state machine: opening, deciding, closing and voiding a round, with payouts worked out by hand."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paytables import loader
from paytables.paytable import Paytable
from paytables.red_dog import movement_total
from paytables.round import (
    AlreadyDecided,
    Decision,
    Event,
    NotInRaiseWindow,
    RaiseExceedsAnte,
    RaiseWindowClosed,
    Round,
    RoundStatus,
    Step,
    UnknownBet,
    close_window,
    decide,
    open_round,
    void_round,
)
from shoe.cards import DECK, rank
from shoe.shoe import Shoe, ShoePolicy, new_shoe

STANDARD = loader.get("standard/v1")  # spreads 1, 2, 3 pay 5, 4, 2 to 1; 4..11 pay 1 to 1; trips 11 to 1
POST_DOUBLE = loader.get("post-double/v1")  # standard odds; a third card equal to a post loses twice the wager
NOW = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)
WINDOW = 15


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
    )


def kinds(events: tuple[Event, ...]) -> list[str]:
    return [e.kind for e in events]


def money(rnd: Round) -> list[tuple[str, str | None, int | None, int | None]]:
    return [(b.bet_id, b.result, b.payout, b.net) for b in rnd.bets]


def moves(rnd: Round, index: int = 0) -> list[tuple[str, str, str, int]]:
    return [(m.id, m.kind, m.type, m.amount) for m in rnd.bets[index].transactions]


def of_kind(events: tuple[Event, ...], kind: str) -> list[dict[str, Any]]:
    return [e.payload for e in events if e.kind == kind]


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
    assert kinds(step.events) == [
        "round_opened",
        "card_dealt",
        "card_dealt",
        "bet_settled",
        "round_settled",
        "shoe_revealed",
    ]


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
    assert of_kind(step.events, "round_settled") == [
        {"outcome": "trips", "settled_at": "2024-05-01T12:00:00Z", "total_net": 143}
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
    assert of_kind(step.events, "spread_announced") == [
        {"spread": 3, "odds": 2, "raise_window_closes_at": "2024-05-01T12:00:15Z"}
    ]


def test_a_raise_is_recorded_and_the_round_waits_for_the_other_bets() -> None:
    start = opened("5S", "9H", "7D", antes=(("p1", 10), ("p2", 10)))
    step = decide(start.round, start.shoe, STANDARD, bet_id="r1.1", action=Decision.RAISE, amount=None, now=NOW)
    assert step.round.status is RoundStatus.RAISE_WINDOW
    assert (step.round.bets[0].decision, step.round.bets[0].raise_amount) == ("raise", 10)  # no amount: the ante
    assert step.round.bets[1].decision is None
    assert (len(step.round.cards), step.shoe.position) == (2, 2)
    assert [(e.kind, e.bet_id, e.payload) for e in step.events] == [
        ("decision", "r1.1", {"action": "raise", "amount": 10, "by": "player"})
    ]


def test_the_last_decision_deals_the_third_card_and_settles_every_bet() -> None:
    start = opened("5S", "9H", "7D", antes=(("p1", 10), ("p2", 10)))
    raised = decide(start.round, start.shoe, STANDARD, bet_id="r1.1", action=Decision.RAISE, amount=4, now=NOW)
    later = NOW + timedelta(seconds=3)
    step = decide(raised.round, raised.shoe, STANDARD, bet_id="r1.2", action=Decision.CALL, amount=None, now=later)
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
    assert kinds(step.events) == [
        "decision",
        "card_dealt",
        "bet_settled",
        "bet_settled",
        "round_settled",
        "shoe_revealed",
    ]


def test_a_third_card_outside_the_posts_loses_the_whole_wager() -> None:
    start = opened("5S", "9H", "KD")
    step = decide(start.round, start.shoe, STANDARD, bet_id="r1.1", action=Decision.RAISE, amount=10, now=NOW)
    assert money(step.round) == [("r1.1", "lose", 0, -20)]
    assert moves(step.round)[-1] == ("r1.1:payout", "payout", "credit", 0)


def test_hitting_a_post_on_post_double_loses_twice_the_wager() -> None:
    start = opened("5S", "9H", "9D", paytable=POST_DOUBLE)
    step = decide(start.round, start.shoe, POST_DOUBLE, bet_id="r1.1", action=Decision.RAISE, amount=10, now=NOW)
    # Wager 20 lost, and a penalty of another 20.
    assert money(step.round) == [("r1.1", "lose", 0, -40)]
    assert moves(step.round) == [
        ("r1.1:ante", "ante", "debit", 10),
        ("r1.1:raise", "raise", "debit", 10),
        ("r1.1:post_penalty", "post_penalty", "debit", 20),
        ("r1.1:payout", "payout", "credit", 0),
    ]


@pytest.mark.parametrize("by", ["dealer", "timeout"])
def test_closing_the_window_calls_the_undecided_bets_and_says_who_closed_it(by: str) -> None:
    start = opened("2S", "AH", "KD", antes=(("p1", 10), ("p2", 6)))
    raised = decide(start.round, start.shoe, STANDARD, bet_id="r1.1", action=Decision.RAISE, amount=10, now=NOW)
    step = close_window(raised.round, raised.shoe, STANDARD, now=NOW + timedelta(seconds=20), by=by)
    rnd = step.round
    assert rnd.status is RoundStatus.SETTLED
    assert [(b.decision, b.raise_amount) for b in rnd.bets] == [("raise", 10), ("timeout_call", 0)]
    # 2 and A: spread 11 at 1 to 1; a king lies between. Wager 20 wins 20, wager 6 wins 6.
    assert money(rnd) == [("r1.1", "win", 40, 20), ("r1.2", "win", 12, 6)]
    decisions = [(e.bet_id, e.payload) for e in step.events if e.kind == "decision"]
    assert decisions == [("r1.2", {"action": "timeout_call", "amount": 0, "by": by})]


def test_voiding_refunds_every_stake_taken_so_far() -> None:
    start = opened("5S", "9H", "7D", antes=(("p1", 10), ("p2", 8)))
    raised = decide(start.round, start.shoe, STANDARD, bet_id="r1.1", action=Decision.RAISE, amount=7, now=NOW)
    step = void_round(raised.round, raised.shoe, reason="table fault", now=NOW + timedelta(seconds=1))
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
    assert kinds(step.events) == ["bet_settled", "bet_settled", "round_voided", "shoe_revealed"]
    assert of_kind(step.events, "round_voided") == [{"reason": "table fault", "at": "2024-05-01T12:00:01Z"}]


def test_a_settled_round_takes_no_decision_close_or_void() -> None:
    done = opened("5S", "6H")
    with pytest.raises(NotInRaiseWindow):
        decide(done.round, done.shoe, STANDARD, bet_id="r1.1", action=Decision.CALL, amount=None, now=NOW)
    with pytest.raises(NotInRaiseWindow):
        close_window(done.round, done.shoe, STANDARD, now=NOW, by="dealer")
    with pytest.raises(NotInRaiseWindow):
        void_round(done.round, done.shoe, reason="late", now=NOW)


def test_a_void_round_takes_no_decision() -> None:
    start = opened("5S", "9H")
    voided = void_round(start.round, start.shoe, reason="fault", now=NOW)
    with pytest.raises(NotInRaiseWindow):
        decide(voided.round, voided.shoe, STANDARD, bet_id="r1.1", action=Decision.CALL, amount=None, now=NOW)


def test_a_decision_at_or_after_the_deadline_is_refused_and_just_before_it_is_taken() -> None:
    start = opened("5S", "9H")
    closes = NOW + timedelta(seconds=WINDOW)
    for late in (closes, closes + timedelta(microseconds=1), closes + timedelta(hours=1)):
        with pytest.raises(RaiseWindowClosed):
            decide(start.round, start.shoe, STANDARD, bet_id="r1.1", action=Decision.CALL, amount=None, now=late)
    just_in_time = closes - timedelta(microseconds=1)
    step = decide(start.round, start.shoe, STANDARD, bet_id="r1.1", action=Decision.CALL, amount=None, now=just_in_time)
    assert step.round.status is RoundStatus.SETTLED


def test_a_late_decision_is_refused_as_closed_even_once_the_deadline_has_settled_the_round() -> None:
    start = opened("5S", "9H", antes=(("p1", 10), ("p2", 10)))
    closes = NOW + timedelta(seconds=WINDOW)
    swept = close_window(start.round, start.shoe, STANDARD, now=closes, by="timeout")
    # The answer to a late decision must not depend on whether a sweeper got to the round first.
    with pytest.raises(RaiseWindowClosed):
        decide(swept.round, swept.shoe, STANDARD, bet_id="r1.1", action=Decision.CALL, amount=None, now=closes)


def test_a_bet_decides_only_once() -> None:
    start = opened("5S", "9H", antes=(("p1", 10), ("p2", 10)))
    once = decide(start.round, start.shoe, STANDARD, bet_id="r1.1", action=Decision.CALL, amount=None, now=NOW)
    with pytest.raises(AlreadyDecided):
        decide(once.round, once.shoe, STANDARD, bet_id="r1.1", action=Decision.RAISE, amount=10, now=NOW)


def test_a_decision_for_a_bet_the_round_does_not_have_is_refused() -> None:
    start = opened("5S", "9H")
    with pytest.raises(UnknownBet):
        decide(start.round, start.shoe, STANDARD, bet_id="r1.2", action=Decision.CALL, amount=None, now=NOW)
    with pytest.raises(UnknownBet):
        decide(start.round, start.shoe, STANDARD, bet_id="r2.1", action=Decision.CALL, amount=None, now=NOW)


@pytest.mark.parametrize(
    ("action", "amount"), [(Decision.RAISE, 11), (Decision.RAISE, 0), (Decision.RAISE, -1), (Decision.CALL, 5)]
)
def test_a_raise_above_the_ante_or_a_call_with_an_amount_is_refused(action: Decision, amount: int) -> None:
    start = opened("5S", "9H")
    with pytest.raises(RaiseExceedsAnte):
        decide(start.round, start.shoe, STANDARD, bet_id="r1.1", action=action, amount=amount, now=NOW)


def test_round_opened_names_the_paytable_its_sha256_the_decks_and_the_bets() -> None:
    step = opened("5S", "9H", antes=(("alice", 10), ("bob", 25)))
    assert (step.events[0].kind, step.events[0].round_id) == ("round_opened", "r1")
    payload = step.events[0].payload
    assert payload["paytable"] == "standard/v1"
    assert payload["paytable_sha256"] == STANDARD.sha256
    assert payload["decks"] == 1
    assert payload["test"] is True
    assert payload["commitment"] == step.shoe.commitment
    assert payload["bets"] == [
        {"bet_id": "r1.1", "player_id": "alice", "ante": 10},
        {"bet_id": "r1.2", "player_id": "bob", "ante": 25},
    ]


def test_card_dealt_events_give_position_shoe_index_and_card() -> None:
    step = opened("8S", "8H", "QD")
    dealt = [(p["position"], p["shoe_index"], p["card"]) for p in of_kind(step.events, "card_dealt")]
    assert dealt == [(1, 0, "8S"), (2, 1, "8H"), (3, 2, "QD")]


def test_bet_settled_events_carry_the_result_payout_net_and_transactions() -> None:
    step = opened("8S", "8H", "8C", antes=(("p1", 5),))
    (event,) = [e for e in step.events if e.kind == "bet_settled"]
    assert (event.round_id, event.bet_id) == ("r1", "r1.1")
    assert event.payload == {
        "player_id": "p1",
        "ante": 5,
        "raise": 0,
        "decision": None,
        "result": "trips",
        "payout": 60,
        "net": 55,
        "transactions": [
            {"id": "r1.1:ante", "kind": "ante", "type": "debit", "amount": 5},
            {"id": "r1.1:payout", "kind": "payout", "type": "credit", "amount": 60},
        ],
    }


def test_a_per_round_shoe_is_revealed_when_its_round_ends() -> None:
    step = opened("8S", "8H", "3D")
    (reveal,) = of_kind(step.events, "shoe_revealed")
    assert reveal["commitment"] == step.shoe.commitment
    assert reveal["salt"] == step.shoe.salt
    assert reveal["order"].startswith("8S8H3D")
    assert len(reveal["order"]) == 2 * 52
    assert reveal["dealt"] == 3
    assert step.events[-1].kind == "shoe_revealed"


def test_a_cut_card_shoe_is_not_revealed_when_a_round_ends_and_deals_on_from_where_it_stopped() -> None:
    shoe = forced_shoe("8S", "8H", "3D", "5S", "9H", "7D", policy=ShoePolicy.CUT_CARD)
    assert shoe.cut_position is not None
    first = opened(shoe=shoe)
    assert first.round.status is RoundStatus.SETTLED
    assert "shoe_revealed" not in kinds(first.events)
    second = opened(shoe=first.shoe)
    assert [(c.card, c.shoe_index) for c in second.round.cards] == [("5S", 3), ("9H", 4)]
    done = close_window(second.round, second.shoe, STANDARD, now=NOW, by="dealer")
    assert done.round.cards[2].shoe_index == 5
    assert "shoe_revealed" not in kinds(done.events)
    voided = void_round(second.round, second.shoe, reason="fault", now=NOW)
    assert "shoe_revealed" not in kinds(voided.events)


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
        action = Decision.CALL if choice == 0 else Decision.RAISE
        amount = None if choice == 0 else min(choice, bet.ante)
        steps.append(
            decide(current.round, current.shoe, paytable, bet_id=bet.bet_id, action=action, amount=amount, now=NOW)
        )
    if steps[-1].round.status is RoundStatus.RAISE_WINDOW:
        steps.append(close_window(steps[-1].round, steps[-1].shoe, paytable, now=NOW, by="timeout"))
    return steps


@settings(max_examples=300, deadline=None)
@given(cards=cards3, antes=bets, plan=choices, paytable_id=st.sampled_from(sorted(loader.released())))
def test_every_round_settles_with_movements_that_add_up_to_each_net(
    cards: list[str], antes: list[int], plan: list[int | None], paytable_id: str
) -> None:
    steps = play(cards, antes, plan, loader.get(paytable_id))
    final = steps[-1].round
    assert final.status is RoundStatus.SETTLED
    assert all(b.net is not None and movement_total(b.transactions) == b.net for b in final.bets)
    assert sum(movement_total(b.transactions) for b in final.bets) == sum(b.net or 0 for b in final.bets)
    # Every bet is paid exactly once, and the settled events say the same as the round.
    settled = [e for s in steps for e in s.events if e.kind == "bet_settled"]
    assert sorted(e.bet_id or "" for e in settled) == sorted(b.bet_id for b in final.bets)
    assert [(e.payload["payout"], e.payload["net"]) for e in settled] == [(b.payout, b.net) for b in final.bets]
    assert [e.kind for s in steps for e in s.events].count("round_settled") == 1


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
        if rnd.status is RoundStatus.RAISE_WINDOW:
            assert [c.card for c in rnd.cards] == cards[:2]
            assert all(e.payload.get("card") != cards[2] for e in step.events if e.kind == "card_dealt")
    dealt = [e.payload["card"] for s in steps for e in s.events if e.kind == "card_dealt"]
    consecutive = abs(rank(cards[0]) - rank(cards[1])) == 1
    assert dealt == (cards[:2] if consecutive else cards)


def test_a_round_survives_a_json_round_trip_through_its_stored_form() -> None:
    step = opened("5S", "9H", antes=(("p1", 10), ("p2", 3)))
    raised = decide(step.round, step.shoe, STANDARD, bet_id="r1.2", action=Decision.RAISE, amount=2, now=NOW)
    stored = msgspec.json.decode(msgspec.json.encode(raised.round), type=Round)
    assert stored == raised.round
