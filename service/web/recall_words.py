"""A round's moments in words, as the recall page and the player's JSON both show them: cards and records as text."""

from __future__ import annotations

from paytables.red_dog.events import (
    BetSettled,
    CardDealt,
    Decided,
    DecidedBy,
    Event,
    RoundOpened,
    RoundRolledBack,
    RoundSettled,
    RoundVoided,
    ShoeRevealed,
    ShoeShuffled,
    SpreadAnnounced,
)
from paytables.red_dog.red_dog import Decision
from service.use_cases.recall_use_cases import RoundRecall

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
        case CardDealt(position=position, card=card, seat=None):
            return f"Card {position}: {card_name(card)}"
        case CardDealt(position=position, card=card, seat=seat):
            return f"Seat {seat}, card {position}: {card_name(card)}"
        case SpreadAnnounced(spread=spread, odds=odds, raise_window_closes_at=closes):
            return f"Spread {spread}: pays {odds} to 1; raise until {closes:%H:%M:%S} UTC"
        case Decided():
            return _decision_text(event, players.get(event.bet_id, event.bet_id))
        case BetSettled(player_id=player, result=result, payout=payout, net=net):
            return f"{player}: {result.value}, paid {payout} (net {net:+d})"
        case RoundSettled(outcome=outcome):
            return "Round settled" if outcome is None else f"Round settled: {outcome.value}"
        case RoundVoided(reason=reason):
            return f"Round voided: {reason}"
        case RoundRolledBack(reason=reason):
            return f"Round rolled back, every transaction reversed: {reason}"
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


def players_of(recall: RoundRecall) -> dict[str, str]:
    """The bet ids of the round's bets and their players, for moment_text."""
    return {b.bet_id: b.player_id for b in recall.view.round.bets}
