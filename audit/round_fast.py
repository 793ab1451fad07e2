"""The usual shared-deal round re-run in one pass of plain values: what the game core would give, built directly.

`round_rerun.rerun` plays a round through the game core (`paytables/red_dog/round.py`), which moves frozen Round,
Bet and Shoe values through every step; that is most of what a replay costs. For the rounds of an ordinary table
(shared deal, settled at the deal, by the players, the dealer, the deadline or a void, nothing rolled back) this
builds the events the game core gives, with the same constructors and the same rules (`red_dog.settle`,
`allowed_raise`, `check_stake`, the deadline), and compares them with the records as the re-run does, whole.

It answers only "exactly what the game core gives": the new shoe position. Anything else (another kind of round, a
rule the game core would refuse, any difference at all) is None, and the round goes through the game core, which
says what is wrong in its own words. A round accepted here is one the game core re-runs to the same events:
`tests/unit/test_audit_round_fast.py` plays both over rounds of every kind, tampered ones included.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from audit.round_rerun import RecordedRound
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
)
from paytables.red_dog.paytable import Paytable, PostRule
from paytables.red_dog.red_dog import Decision, Direction, Outcome, Result, Transaction, TransactionKind
from paytables.red_dog.round_model import SYSTEM
from paytables.red_dog.table import DealMode
from shoe.cards import RANKS, SUITS

_RANK_OF = {r + s: i + 2 for i, r in enumerate(RANKS) for s in SUITS}
_DEBIT, _CREDIT = Direction.DEBIT, Direction.CREDIT
_ANTE, _RAISE, _PENALTY = TransactionKind.ANTE, TransactionKind.RAISE, TransactionKind.POST_PENALTY


class _Bet:
    __slots__ = ("ante", "bet_id", "decision", "player_id", "raise_amount")

    def __init__(self, bet_id: str, player_id: str, ante: int) -> None:
        self.bet_id, self.player_id, self.ante = bet_id, player_id, ante
        self.decision: Decision | None = None
        self.raise_amount = 0


def fast_rerun(
    recorded: RecordedRound,
    order: str,
    position: int,
    commitment: str,
    decks: int,
    paytable: Paytable,
    window_seconds: int,
) -> int | None:
    """The shoe position after the round when its records are exactly the game core's re-run from the shoe at
    `position` (the revealed `order`); None when that is not certain here."""
    opened = recorded.opened
    if opened is None or recorded.rolled_back is not None or opened.deal is not DealMode.SHARED:
        return None
    ended = recorded.ended
    if ended is None:
        return None
    round_id = opened.round_id
    if round_id != recorded.round_id or not opened.bets:
        return None
    bets = [_Bet(f"{round_id}.{i + 1}", b.player_id, b.ante) for i, b in enumerate(opened.bets)]
    if any(b.ante < 1 for b in bets):  # check_stake refuses it at settlement
        return None
    now = opened.opened_at
    out: list[Event] = [
        RoundOpened(
            round_id=round_id,
            paytable=paytable.id,
            paytable_sha256=paytable.sha256,
            decks=decks,
            commitment=commitment,
            opened_at=now,
            bets=tuple(OpenedBet(bet_id=b.bet_id, player_id=b.player_id, ante=b.ante) for b in bets),
            actor=opened.actor,
            deal=opened.deal,
        )
    ]
    size = len(order) // 2
    if position + 3 > size:
        return None  # the shoe may run out: the game core says how
    cards = [order[2 * i : 2 * i + 2] for i in range(position, position + 3)]
    ranks = [_RANK_OF.get(card) for card in cards]
    first, second = ranks[0], ranks[1]
    if first is None or second is None:
        return None
    for index in range(2):
        out.append(_card(round_id, index, cards[index], position, commitment))
    low, high = min(first, second), max(first, second)
    spread = high - low - 1
    end_time = ended.settled_at if type(ended) is RoundSettled else ended.voided_at  # type: ignore[union-attr]
    if low == high or spread == 0:  # a pair or consecutive posts settle at the deal
        dealt = _finish(out, bets, round_id, cards, ranks, position, commitment, paytable, now)
    else:
        odds = paytable.spread_odds(spread)
        closes = now + timedelta(seconds=window_seconds)
        out.append(SpreadAnnounced(round_id=round_id, spread=spread, odds=odds, raise_window_closes_at=closes))
        dealt = _window(recorded, out, bets, round_id, cards, ranks, position, commitment, paytable, closes, end_time)
    if dealt is None or recorded.events != out:
        return None
    return position + dealt


def _window(
    recorded: RecordedRound,
    out: list[Event],
    bets: list[_Bet],
    round_id: str,
    cards: list[str],
    ranks: list[int | None],
    position: int,
    commitment: str,
    paytable: Paytable,
    closes: datetime,
    end_time: datetime,
) -> int | None:
    """The raise window: the players' decisions in order, then what ended it; the cards dealt, or None."""
    closing: Decided | None = None
    player = 0
    by_id = {b.bet_id: b for b in bets}
    for event in recorded.events:
        if type(event) is not Decided:
            continue
        if event.by is not DecidedBy.PLAYER:
            closing = closing or event
            continue
        if player >= len(recorded.decided_at):
            return None
        at = recorded.decided_at[player]
        player += 1
        now = min(at, end_time)
        bet = by_id.get(event.bet_id)
        if now >= closes or bet is None or bet.decision is not None:
            return None  # a late decision (settled by the deadline), an unknown bet, or one decided twice
        if event.action is Decision.RAISE:
            limit = bet.ante * paytable.terms.max_raise_multiple
            if not 1 <= event.raise_amount <= limit:
                return None  # allowed_raise refuses it
            bet.decision, bet.raise_amount = Decision.RAISE, event.raise_amount
        else:
            bet.decision, bet.raise_amount = Decision.CALL, 0
        out.append(
            Decided(
                round_id=round_id,
                bet_id=bet.bet_id,
                action=bet.decision,
                raise_amount=bet.raise_amount,
                by=DecidedBy.PLAYER,
                actor=event.actor,
            )
        )
        if all(b.decision is not None for b in bets):
            return _finish(out, bets, round_id, cards, ranks, position, commitment, paytable, now)
    ended = recorded.ended
    if end_time >= closes and type(ended) is RoundSettled and closing is not None and closing.by is DecidedBy.TIMEOUT:
        _close(out, bets, round_id, DecidedBy.TIMEOUT, SYSTEM, None)
        return _finish(out, bets, round_id, cards, ranks, position, commitment, paytable, end_time)
    if end_time >= closes:
        return None  # the deadline settles it first, whatever the record says ended it
    if type(ended) is RoundVoided:
        for bet in bets:
            staked = bet.ante + bet.raise_amount
            moves = [Transaction(id=f"{bet.bet_id}:ante", kind=_ANTE, type=_DEBIT, amount=bet.ante)]
            if bet.raise_amount:
                moves.append(Transaction(id=f"{bet.bet_id}:raise", kind=_RAISE, type=_DEBIT, amount=bet.raise_amount))
            moves.append(
                Transaction(id=f"{bet.bet_id}:refund", kind=TransactionKind.REFUND, type=_CREDIT, amount=staked)
            )
            out.append(_settled(round_id, bet, Result.VOID, staked, 0, tuple(moves)))
        out.append(
            RoundVoided(
                round_id=round_id,
                reason=ended.reason,
                voided_at=end_time,
                actor=ended.actor,
                requested_by=ended.requested_by,
            )
        )
        return 2
    if closing is None or closing.by is not DecidedBy.DEALER:
        return None  # no record says who closed it, or the deadline "closed" it before it passed
    _close(out, bets, round_id, DecidedBy.DEALER, closing.actor, closing.requested_by)
    return _finish(out, bets, round_id, cards, ranks, position, commitment, paytable, end_time)


def _close(
    out: list[Event], bets: list[_Bet], round_id: str, by: DecidedBy, actor: str, requested_by: str | None
) -> None:
    """`round._close`: every undecided bet calls."""
    for bet in bets:
        if bet.decision is None:
            bet.decision = Decision.TIMEOUT_CALL
            out.append(
                Decided(
                    round_id=round_id,
                    bet_id=bet.bet_id,
                    action=Decision.TIMEOUT_CALL,
                    raise_amount=bet.raise_amount,
                    by=by,
                    actor=actor,
                    requested_by=requested_by,
                )
            )


def _finish(
    out: list[Event],
    bets: list[_Bet],
    round_id: str,
    cards: list[str],
    ranks: list[int | None],
    position: int,
    commitment: str,
    paytable: Paytable,
    now: datetime,
) -> int | None:
    """`round_deal.finish` for a shared deal: the third card where the posts need one, every bet settled as
    `red_dog.settle` settles it, then round_settled; the cards dealt, or None."""
    first, second, third = ranks
    assert first is not None
    assert second is not None
    low, high = min(first, second), max(first, second)
    pair, spread = low == high, high - low - 1
    dealt = 2
    if pair or spread:
        if third is None:
            return None
        out.append(_card(round_id, 2, cards[2], position, commitment))
        dealt = 3
    outcome = Outcome.PAIR if pair else Outcome.SPREAD if spread else Outcome.CONSECUTIVE
    if pair and third == first:
        outcome = Outcome.TRIPS
    terms = paytable.terms
    odds = paytable.spread_odds(spread) if spread > 0 else 0
    total = 0
    for bet in bets:
        ante, raised = bet.ante, bet.raise_amount
        if raised and (outcome is not Outcome.SPREAD or not 1 <= raised <= ante * terms.max_raise_multiple):
            return None  # check_stake refuses a raise off a spread or past the ante
        wager, penalty = ante + raised, 0
        if outcome is Outcome.TRIPS:
            result, payout = Result.TRIPS, ante + ante * terms.trips_odds
        elif outcome is not Outcome.SPREAD:
            result, payout = Result.PUSH, ante
        elif low < (third or 0) < high:
            result, payout = Result.WIN, wager + wager * odds
        else:
            result, payout = Result.LOSE, 0
            if third in (first, second) and terms.post_rule is PostRule.LOSE_DOUBLE:
                penalty = wager
        moves = [Transaction(id=f"{bet.bet_id}:ante", kind=_ANTE, type=_DEBIT, amount=ante)]
        if raised:
            moves.append(Transaction(id=f"{bet.bet_id}:raise", kind=_RAISE, type=_DEBIT, amount=raised))
        if penalty:
            moves.append(Transaction(id=f"{bet.bet_id}:post_penalty", kind=_PENALTY, type=_DEBIT, amount=penalty))
        moves.append(Transaction(id=f"{bet.bet_id}:payout", kind=TransactionKind.PAYOUT, type=_CREDIT, amount=payout))
        net = payout - wager - penalty
        total += net
        out.append(_settled(round_id, bet, result, payout, net, tuple(moves)))
    round_outcome = Outcome.PAIR if pair else Outcome.SPREAD if spread else Outcome.CONSECUTIVE
    if pair and third == first:
        round_outcome = Outcome.TRIPS
    out.append(RoundSettled(round_id=round_id, outcome=round_outcome, settled_at=now, total_net=total))
    return dealt


def _card(round_id: str, index: int, card: str, position: int, commitment: str) -> CardDealt:
    return CardDealt(
        round_id=round_id, position=index + 1, card=card, shoe_index=position + index, commitment=commitment
    )


def _settled(
    round_id: str, bet: _Bet, result: Result, payout: int, net: int, moves: tuple[Transaction, ...]
) -> BetSettled:
    return BetSettled(
        round_id=round_id,
        bet_id=bet.bet_id,
        player_id=bet.player_id,
        ante=bet.ante,
        raise_amount=bet.raise_amount,
        decision=bet.decision,
        result=result,
        payout=payout,
        net=net,
        transactions=moves,
    )
