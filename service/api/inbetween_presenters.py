"""In Between domain values to wire Structs and back: what a request means and what a response shows."""

from __future__ import annotations

from uuid import UUID

import msgspec

from audit.chain import Link
from paytables.inbetween.inbetween_actions import (
    AgreeToStop,
    BuyChips,
    CallAce,
    CallPair,
    InBetweenAction,
    KeepPair,
    PassTurn,
    PlaceBet,
    ShowCards,
    SplitPair,
)
from paytables.inbetween.inbetween_events import COMPUTER_NAME, AceCall, PairCall, SeatSpec, computer_names
from paytables.inbetween.inbetween_odds import TurnOdds
from paytables.inbetween.inbetween_rules import RuleSet
from paytables.inbetween.inbetween_state import AWAITING, Game, Turn
from service.api import inbetween_wire as wire
from service.api.wire import RevealOut
from service.errors import validation
from service.use_cases.inbetween_use_cases import GameView, NewGame

COMPUTER = COMPUTER_NAME  # kept for importers of the old name; the naming rule is `computer_names`, in the core


def ruleset_out(ruleset: RuleSet) -> wire.RuleSetOut:
    return wire.RuleSetOut(id=ruleset.id, description=ruleset.description, sha256=ruleset.sha256, terms=ruleset.terms)


def new_game(data: wire.CreateGame) -> NewGame:
    return NewGame(
        ruleset=data.ruleset,
        ante=data.ante,
        rounds=data.rounds,
        seats=_seats(data.seats),
        test=data.mode == "test",
        forced_cards=tuple(data.forced_cards or ()),
    )


def _seats(seats: list[wire.GameSeatIn]) -> tuple[SeatSpec, ...]:
    """The seats asked for; a computer asked no name gets one no other seat has (`computer_names`)."""
    for index, seat in enumerate(seats):
        if not seat.computer and seat.player_id is None:
            raise validation(f"seats[{index}]: a seat is a player_id, or computer: true")
    names = computer_names([seat.player_id for seat in seats])
    return tuple(SeatSpec(player_id=name, computer=seat.computer) for name, seat in zip(names, seats, strict=True))


def action(data: wire.ActionIn) -> InBetweenAction:
    match data:
        case wire.CallAceIn(player_id=player, call=call):
            return CallAce(player_id=player, call=AceCall(call))
        case wire.CallPairIn(player_id=player, call=call):
            return CallPair(player_id=player, call=PairCall(call))
        case wire.PlaceBetIn(player_id=player, amount=amount):
            return PlaceBet(player_id=player, amount=amount)
        case wire.PassIn(player_id=player):
            return PassTurn(player_id=player)
        case wire.SplitIn(player_id=player):
            return SplitPair(player_id=player)
        case wire.KeepPairIn(player_id=player):
            return KeepPair(player_id=player)
        case wire.AgreeStopIn(player_id=player):
            return AgreeToStop(player_id=player)
        case wire.ShowIn(player_id=player):
            return ShowCards(player_id=player)
        case wire.BuyIn(player_id=player, amount=amount):
            return BuyChips(player_id=player, amount=amount)


def game_out(view: GameView) -> wire.GameOut:
    game = view.game
    decision = next((d for d, status in AWAITING.items() if status is game.status), None)
    return wire.GameOut(
        game_id=UUID(game.game_id),
        version=view.version,
        ruleset=game.ruleset,
        ruleset_sha256=game.ruleset_sha256,
        ante=game.ante,
        rounds=game.rounds,
        starting_chips=game.starting_chips,
        test=game.test,
        status=game.status.value,
        round=game.round,
        dealer=game.dealer,
        order=list(game.order),
        pot=game.pot,
        seats=[
            wire.GameSeatOut(seat=i, player_id=s.player_id, computer=s.computer, chips=s.chips)
            for i, s in enumerate(game.seats)
        ],
        to_act=game.to_act,
        awaiting=None if decision is None else decision.value,
        turn=None if game.turn is None else turn_out(game, game.turn),
        count=game.count,
        seen=list(game.seen),
        odds=None if view.odds is None else odds_out(view.odds),
        pair_call_odds=[wire.PairCallOddsOut(call=call.value, odds=odds_out(odds)) for call, odds in view.call_odds],
        shoe=wire.GameShoeOut(
            number=game.shoe_number,
            commitment=game.shoe_commitment,
            reveal=None if view.reveal is None else RevealOut(salt=view.reveal.salt, order=view.reveal.order),
        ),
        started_at=game.started_at,
        ended_at=game.ended_at,
        ended_reason=None if game.ended_reason is None else game.ended_reason.value,
        winners=list(game.winners),
        agreed=list(game.agreed),
        bought=list(game.bought),
        own_cards=list(view.own_cards),
    )


def turn_out(game: Game, turn: Turn) -> wire.GameTurnOut:
    fields = msgspec.structs.asdict(turn)
    del fields["index"]
    fields["hands"] = [msgspec.structs.asdict(hand) for hand in turn.hands]
    return msgspec.convert({**fields, "player_id": game.seats[turn.seat].player_id}, wire.GameTurnOut)


def odds_out(odds: TurnOdds) -> wire.OddsOut:
    return wire.OddsOut(win=odds.win, post=odds.post, lose=odds.lose, unseen=odds.total)


def record_page(links: list[Link], limit: int) -> wire.GameRecordPage:
    """One page of a game's records; `links` holds one more than the page when another page follows."""
    page = links[:limit]
    items = [
        wire.GameRecordOut(seq=k.seq, prev_hash=k.prev_hash.hex(), hash=k.hash.hex(), body=k.body.decode())
        for k in page
    ]
    return wire.GameRecordPage(items=items, next_after=page[-1].seq if len(links) > limit else None)
