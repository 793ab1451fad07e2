"""Replay In Between games from their chains: every game re-played through the engine from its revealed packs and its
recorded moves, and every event the engine writes compared with its record.

A game's records are kept until its `ib_game_ended` (the last pack is revealed just before it); then the released
rule set is loaded by id (its sha256 must match), each pack is taken from its `ib_shoe_revealed` (which must hash to
the commitment published before its first card, and hold exactly the cards the engine shuffles into it), and the
game is started and moved as recorded: a player's call, bet, pass, split, kept pair or agreement to stop is the move
its record names, except a move the record says the computer or the timer made for a seat (`ib_stood_in`), which is
derived again from the strategy it names; and everything else (the antes, cards, chip movements, re-antes, shares
and the end) must come out of the engine exactly as recorded. A game whose end is not in the export is counted as
open and not re-played: the pack in play is still secret.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import msgspec

from audit.chain import Record
from paytables.inbetween import inbetween_rules
from paytables.inbetween.inbetween_actions import (
    AgreeToStop,
    BuyChips,
    CallAce,
    CallPair,
    InBetweenAction,
    InBetweenError,
    KeepPair,
    PassTurn,
    PlaceBet,
    ShowCards,
    SplitPair,
)
from paytables.inbetween.inbetween_events import (
    CalledBy,
    ChipReason,
    InBetweenAceCalled,
    InBetweenBetPlaced,
    InBetweenCardsShown,
    InBetweenChipsBought,
    InBetweenChipsMoved,
    InBetweenEvent,
    InBetweenGameEnded,
    InBetweenGameStarted,
    InBetweenPairCalled,
    InBetweenPassed,
    InBetweenShoeRevealed,
    InBetweenShoeShuffled,
    InBetweenStoodIn,
    InBetweenStopAgreed,
    StandIn,
    StandInBy,
)
from paytables.inbetween.inbetween_game import act, advance, start_game
from paytables.inbetween.inbetween_seat_play import Computer, Personality, computer_move, default_move
from paytables.inbetween.inbetween_state import Game, GameStatus, ReplayError
from paytables.inbetween.inbetween_tape import InBetweenStep
from paytables.inbetween.inbetween_views import seat_view
from shoe.cards import DECK
from shoe.shoe import Reveal, Shoe, verify_reveal


class GameMismatch(msgspec.Struct, frozen=True, kw_only=True):
    game_id: str
    detail: str


class GamesReplayed(msgspec.Struct, frozen=True, kw_only=True):
    """What `replay` found of the In Between games of an export."""

    games: int = 0  # games re-played through the engine (every one that ended in the export)
    matched: int = 0  # ... whose every record the engine wrote again exactly
    open_games: int = 0  # not over in the export (or begun before it): the pack in play is secret, so not re-played
    records: int = 0  # game records read
    mismatches: list[GameMismatch] = msgspec.field(default_factory=list)


class _Problem(Exception):
    """Why a game cannot be re-played as recorded: the replay of that game stops at the first."""


class RevealedPacks:
    """The random source of a replay: no randomness, only the game's revealed packs, handed over in their order."""

    def __init__(self, packs: dict[int, Shoe]) -> None:
        self.packs, self.next = packs, 2  # pack 1 starts the game

    def getrandbits(self, k: int, /) -> int:
        raise _Problem("the engine asked for randomness a replay cannot give")

    def pack(self, cards: list[str]) -> Shoe:
        shoe = self.packs.get(self.next)
        if shoe is None:
            raise _Problem(f"pack {self.next} is shuffled in play but never revealed")
        if sorted(_cards(shoe.order)) != sorted(cards):
            raise _Problem(f"pack {self.next} does not hold exactly the cards off the table")
        self.next += 1
        return shoe


class GameReplayer:
    """Feed it the records of game chains in chain order; `report()` says which games re-played to their records."""

    def __init__(self) -> None:
        self.games: dict[str, list[Record[InBetweenEvent]]] = {}
        self.replayed = self.matched = self.records = 0
        self.begun_before = 0  # ended in the export but begun before it (a --since export): open, as never re-played
        self.mismatches: list[GameMismatch] = []

    def record(self, table_id: str, record: Record[InBetweenEvent]) -> None:
        self.records += 1
        self.games.setdefault(table_id, []).append(record)
        if type(record.event) is InBetweenGameEnded:
            records = self.games.pop(table_id)
            if type(records[0].event) is InBetweenGameStarted:
                self._replay(table_id, records)
            else:
                self.begun_before += 1

    def report(self) -> GamesReplayed:
        return GamesReplayed(
            games=self.replayed,
            matched=self.matched,
            open_games=len(self.games) + self.begun_before,
            records=self.records,
            mismatches=list(self.mismatches),
        )

    def _replay(self, game_id: str, records: list[Record[InBetweenEvent]]) -> None:
        self.replayed += 1
        try:
            replay_game(records)
        except _Problem as problem:
            self.mismatches.append(GameMismatch(game_id=game_id, detail=str(problem)))
        else:
            self.matched += 1


def _forced(events: list[InBetweenEvent]) -> int:
    """How many cards the first pack's shuffle record says a test game forced to its front (the engine refuses any
    in a live game); none in records written before the count was recorded."""
    shuffled = next((e for e in events if type(e) is InBetweenShoeShuffled and e.shoe_number == 1), None)
    return 0 if shuffled is None else shuffled.forced


def replay_game(records: list[Record[InBetweenEvent]]) -> None:
    """Re-play one whole game; raises `_Problem` at the first record the engine does not write again."""
    started = records[0].event
    assert isinstance(started, InBetweenGameStarted)
    ruleset = _ruleset(started)
    events = [r.event for r in records]
    packs = _packs(events)
    if 1 not in packs:
        raise _Problem("the game's first pack is never revealed")
    if sorted(_cards(packs[1].order)) != sorted(DECK):
        raise _Problem("pack 1 is not one whole 52-card pack")
    source = RevealedPacks(packs)
    rounds = inbetween_rules.UNTIL_EMPTY if started.rounds is None else started.rounds
    with _refusals():
        step = start_game(
            game_id=started.game_id,
            ruleset=ruleset,
            ante=started.ante,
            rounds=rounds,
            seats=list(started.seats),
            shoe=packs[1],
            source=source,
            now=started.at,
            dealer=started.dealer,
            test=started.test,
            forced=_forced(events),
        )
    at = _compare(events, 0, step)
    while at < len(events):
        game, shoe, now = step.game, step.shoe, records[at].recorded_at
        move: InBetweenAction | None
        stand_in: StandIn | None = None
        if type(stood := events[at]) is InBetweenStoodIn:
            following = events[at + 1] if at + 1 < len(events) else None
            move, stand_in = _stand_ins_move(game, shoe, ruleset, stood, following)
        else:
            move = _move(game, events[at])
        with _refusals():
            if move is None:
                step = advance(game, shoe, ruleset=ruleset, source=source, now=now)
            else:
                step = act(game, shoe, move, ruleset=ruleset, source=source, now=now, stand_in=stand_in)
        at = _compare(events, at, step)


@contextlib.contextmanager
def _refusals() -> Iterator[None]:
    """An engine refusal of a recorded move (or events that do not follow) as the game's problem."""
    try:
        yield
    except (InBetweenError, ReplayError, ValueError) as exc:
        raise _Problem(f"the engine refuses it: {exc}") from None


def _move(game: Game, event: InBetweenEvent) -> InBetweenAction | None:
    """The move a record names (None: no move, the engine carries on by itself, as `advance` does)."""
    if type(event) is InBetweenStopAgreed:
        return AgreeToStop(player_id=game.seats[event.seat].player_id)
    if type(event) is InBetweenChipsBought:  # any player, whoever's turn it is, as an agreement
        return BuyChips(player_id=event.player_id, amount=event.amount)
    if game.status in (GameStatus.TURN_OVER, GameStatus.ROUND_OVER):
        return None
    if game.turn is None or game.to_act is None:
        raise _Problem(f"{_kind(event)} where the game awaits no one ({game.status})")
    player = game.to_act
    match event:
        case InBetweenAceCalled(by=CalledBy.PLAYER):
            return CallAce(player_id=player, call=event.call)
        case InBetweenPairCalled():
            return CallPair(player_id=player, call=event.call)
        case InBetweenBetPlaced():
            return PlaceBet(player_id=player, amount=event.amount)
        case InBetweenPassed():
            return PassTurn(player_id=player)  # at face-down posts: folded unseen
        case InBetweenCardsShown():
            return ShowCards(player_id=player)
        case InBetweenChipsMoved(reason=ChipReason.SPLIT) if game.status is GameStatus.AWAITING_SPLIT:
            return SplitPair(player_id=player)
    if game.status is GameStatus.AWAITING_SPLIT:
        return KeepPair(player_id=player)  # a kept pair has no record of its own: what follows is the pair played
    raise _Problem(f"{_kind(event)} where the game awaits a move ({game.status})")


def _stand_ins_move(
    game: Game, shoe: Shoe, ruleset: inbetween_rules.RuleSet, stood: InBetweenStoodIn, following: InBetweenEvent | None
) -> tuple[InBetweenAction, StandIn]:
    """The move the computer or the timer a record names makes for its seat, derived again from its strategy (the
    computer from what the seat sees, as it played): the engine's records of it must then be the ones that follow."""
    stand_in = StandIn(by=stood.by, personality=stood.personality, endgame_tip=stood.endgame_tip)
    if type(following) is InBetweenStopAgreed:  # a computer agrees once every person has
        if not 0 <= stood.seat < len(game.seats) or stood.by is not StandInBy.COMPUTER:
            raise _Problem(f"an agreement to stop made for seat {stood.seat} by the {stood.by}")
        return AgreeToStop(player_id=game.seats[stood.seat].player_id), stand_in
    if game.turn is None or game.to_act is None or game.turn.seat != stood.seat:
        raise _Problem(f"a move made for seat {stood.seat} where the game awaits no move of that seat ({game.status})")
    if stood.by is StandInBy.TIMER:
        if (stood.personality, stood.endgame_tip) != (None, None):
            raise _Problem("the timer's move names a computer's personality")
        return default_move(game, ruleset), stand_in
    if stood.personality not in set(Personality) or stood.endgame_tip is None:
        raise _Problem(f"the computer's move names no personality the engine has, or no end-game tip: {_text(stood)}")
    computer = Computer(personality=Personality(stood.personality), endgame_tip=stood.endgame_tip)
    return computer_move(seat_view(game, shoe, stood.seat), ruleset, computer), stand_in


def _compare(events: list[InBetweenEvent], at: int, step: InBetweenStep) -> int:
    """The index after the step's events, each of which must equal the record at its place."""
    for offset, made in enumerate(step.events):
        index = at + offset
        if index >= len(events):
            raise _Problem(f"the engine writes {_kind(made)} after the game's last record (seq {len(events)})")
        if events[index] != made:
            raise _Problem(f"seq {index + 1}: recorded {_text(events[index])}, the engine writes {_text(made)}")
    if not step.events:
        raise _Problem(f"seq {at + 1}: the engine writes nothing for {_kind(events[at])}")
    return at + len(step.events)


def _ruleset(started: InBetweenGameStarted) -> inbetween_rules.RuleSet:
    try:
        ruleset = inbetween_rules.get(started.ruleset)
    except inbetween_rules.RuleSetError as exc:
        raise _Problem(str(exc)) from None
    if ruleset.sha256 != started.ruleset_sha256:
        raise _Problem(f"{started.ruleset} has sha256 {ruleset.sha256}, the game records {started.ruleset_sha256}")
    return ruleset


def _packs(events: list[InBetweenEvent]) -> dict[int, Shoe]:
    """Every revealed pack by number, each checked against the commitment its shuffle published."""
    committed = {e.shoe_number: e.commitment for e in events if type(e) is InBetweenShoeShuffled}
    packs: dict[int, Shoe] = {}
    for event in events:
        if type(event) is not InBetweenShoeRevealed:
            continue
        if committed.get(event.shoe_number) != event.commitment:
            raise _Problem(f"pack {event.shoe_number} is revealed with a commitment its shuffle did not publish")
        if not verify_reveal(event.commitment, Reveal(salt=event.salt, order=event.order)):
            raise _Problem(f"pack {event.shoe_number}'s salt and order do not hash to its commitment")
        packs[event.shoe_number] = Shoe(decks=1, order=event.order, salt=event.salt, commitment=event.commitment)
    return packs


def _cards(order: str) -> list[str]:
    return [order[i : i + 2] for i in range(0, len(order), 2)]


def _kind(event: InBetweenEvent) -> str:
    return type(event).__struct_config__.tag  # type: ignore[return-value]  # every event is tagged with its kind


def _text(event: InBetweenEvent) -> str:
    return msgspec.json.encode(event).decode()
