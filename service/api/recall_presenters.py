"""Recall as the player reads it: each moment of a round in words, and the JSON of a player's last rounds."""

from __future__ import annotations

from paytables.events import (
    BetSettled,
    CardDealt,
    Decided,
    DecidedBy,
    Event,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    ShoeRevealed,
    ShoeShuffled,
    SpreadAnnounced,
)
from paytables.red_dog import Decision
from service.api import wire
from service.api.presenters import round_out
from service.recall_use_cases import Moment, RoundRecall

SUITS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
RANKS = {"T": "10", "J": "J", "Q": "Q", "K": "K", "A": "A"}


def card_name(code: str) -> str:
    """`TH` -> `10♥`."""
    return RANKS.get(code[0], code[0]) + SUITS[code[1]]


def moment_text(event: Event, players: dict[str, str]) -> str:
    """One record in words; `players` maps the bet ids shown to their player ids (others are only counted)."""
    match event:
        case ShoeShuffled(commitment=commitment):
            return f"Shoe shuffled and committed: {commitment[:16]}…"
        case RoundOpened(bets=bets):
            shown = [f"{b.player_id} {b.ante}" for b in bets if b.bet_id in players]
            others = len(bets) - len(shown)
            return "Round opened; antes: " + ", ".join(shown) + (f" (and {others} other bet(s))" if others else "")
        case CardDealt(position=position, card=card):
            return f"Card {position}: {card_name(card)}"
        case SpreadAnnounced(spread=spread, odds=odds, raise_window_closes_at=closes):
            return f"Spread {spread}: pays {odds} to 1; raise until {closes:%H:%M:%S} UTC"
        case Decided():
            return _decision_text(event, players.get(event.bet_id, event.bet_id))
        case BetSettled(player_id=player, result=result, payout=payout, net=net):
            return f"{player}: {result.value}, paid {payout} (net {net:+d})"
        case RoundSettled(outcome=outcome):
            return f"Round settled: {outcome.value}"
        case RoundVoided(reason=reason):
            return f"Round voided: {reason}"
        case ShoeRevealed(dealt=dealt):
            return f"Shoe revealed (salt and order published) after {dealt} cards"
    return type(event).__name__


def _decision_text(event: Decided, player: str) -> str:
    if event.by is DecidedBy.PLAYER:
        return f"{player} raised {event.raise_amount}" if event.action is Decision.RAISE else f"{player} called"
    if event.by is DecidedBy.DEALER:
        asked = f" (asked by {event.requested_by})" if event.requested_by else ""
        return f"The dealer closed the raise window{asked}: {player} called"
    return f"The raise window expired: {player} called"


def timeline(recall: RoundRecall) -> list[wire.MomentOut]:
    players = {b.bet_id: b.player_id for b in recall.view.round.bets}
    return [_moment(m, players) for m in recall.moments]


def _moment(moment: Moment, players: dict[str, str]) -> wire.MomentOut:
    kind = type(moment.event).__struct_config__.tag
    return wire.MomentOut(seq=moment.seq, at=moment.at, kind=str(kind), text=moment_text(moment.event, players))


def player_rounds_out(player_id: str, recalls: list[RoundRecall]) -> wire.PlayerRoundsOut:
    items = [wire.PlayerRoundOut(round=round_out(r.view), currency=r.currency, timeline=timeline(r)) for r in recalls]
    return wire.PlayerRoundsOut(player_id=player_id, items=items)
