"""Recall as the player reads it: each moment of a round in words, and the JSON of a player's last rounds."""

from __future__ import annotations

from service.api import wire
from service.api.presenters import round_out
from service.use_cases.recall_use_cases import Moment, RoundRecall
from service.web.recall_words import moment_text, players_of


def timeline(recall: RoundRecall) -> list[wire.MomentOut]:
    players = players_of(recall)
    return [_moment(m, players) for m in recall.moments]


def _moment(moment: Moment, players: dict[str, str]) -> wire.MomentOut:
    kind = type(moment.event).__struct_config__.tag
    return wire.MomentOut(seq=moment.seq, at=moment.at, kind=str(kind), text=moment_text(moment.event, players))


def player_rounds_out(player_id: str, recalls: list[RoundRecall]) -> wire.PlayerRoundsOut:
    items = [wire.PlayerRoundOut(round=round_out(r.view), currency=r.currency, timeline=timeline(r)) for r in recalls]
    return wire.PlayerRoundsOut(player_id=player_id, items=items)
