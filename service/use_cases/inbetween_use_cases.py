"""In Between game use cases: lock -> engine step -> computer seats -> persist + audit append, in one unit of work.

Play chips only: nothing here touches a Red Dog table, round, wallet movement or money metric. Each use case returns
a GameView (domain values); `service/api/` decides how it is shown.
"""

from __future__ import annotations

import uuid
from uuid import UUID

import msgspec
import structlog

from audit.chain import Link
from paytables.inbetween import inbetween_game, inbetween_rules
from paytables.inbetween.inbetween_actions import InBetweenAction, InBetweenError
from paytables.inbetween.inbetween_bot import play_computers
from paytables.inbetween.inbetween_events import InBetweenEvent, PairCall, SeatSpec
from paytables.inbetween.inbetween_odds import TurnOdds, third_card_odds, turn_odds
from paytables.inbetween.inbetween_posts import possible_pair_calls
from paytables.inbetween.inbetween_rules import RuleSet
from paytables.inbetween.inbetween_state import Game, GameStatus
from paytables.inbetween.inbetween_views import own_cards, seat_view
from service.chains import checkpoints
from service.db import inbetween_sql
from service.db.audit_sql import GENESIS_HEAD, AuditHead
from service.db.row_reads import Missing, Replay
from service.db.unit_of_work import UnitOfWork
from service.errors import ApiError, not_found, refusal_status, validation
from service.shuffler import csprng, one_deck_shoe
from shoe.shoe import Reveal, Shoe, ShoeError

log = structlog.get_logger("reddog.inbetween")


class NewGame(msgspec.Struct, frozen=True, kw_only=True):
    ruleset: str
    ante: int
    seats: tuple[SeatSpec, ...]
    rounds: int | str | None = None  # None: the rule set's default (`RuleSet.default_rounds`)
    test: bool = False
    forced_cards: tuple[str, ...] = ()  # test games only: the first pack's first cards, in order


class GameView(msgspec.Struct, frozen=True, kw_only=True):
    """A game as the use cases return it, with what the player to act may know: the exact odds of the next card."""

    game: Game
    odds: TurnOdds | None  # awaiting a bet: how many unseen cards win, hit a post or lose
    call_odds: tuple[tuple[PairCall, TurnOdds], ...] = ()  # awaiting a pair call: the odds after each call
    reveal: Reveal | None = None  # the pack in play, once the game is over (earlier packs are revealed in the chain)
    version: int = 0  # the seq of the game's last audit record: the version the next move must name
    own_cards: tuple[str, ...] = ()  # the viewing seat's face-down posts while it holds them unshown


def released_ruleset(ruleset_id: str) -> RuleSet:
    try:
        return inbetween_rules.get(ruleset_id)
    except inbetween_rules.RuleSetError:
        raise validation(f"no released rule set {ruleset_id!r}; GET /v1/inbetween/rulesets lists them") from None


def refused(error: InBetweenError) -> ApiError:
    """An engine refusal as the API reports it; nothing was written, so a retry is judged afresh."""
    return ApiError(refusal_status(error.code), error.code, str(error))


async def create_game(unit: UnitOfWork, new: NewGame) -> GameView:
    """Seat the players, take the antes, deal, and play the computer seats until a human must act."""
    ruleset = released_ruleset(new.ruleset)
    if new.test and not unit.settings.allow_test_tables:
        raise ApiError(403, "FORCED_CARDS_NOT_ALLOWED", "test games need a server run with RD_ALLOW_TEST_TABLES=true")
    if new.forced_cards and not new.test:
        raise ApiError(403, "FORCED_CARDS_NOT_ALLOWED", "forced cards are accepted only in a test game")
    try:
        shoe = one_deck_shoe(new.forced_cards)
    except ShoeError as exc:
        raise validation(str(exc)) from None
    game_id = uuid.uuid4()
    structlog.contextvars.bind_contextvars(game_id=str(game_id))
    source = csprng()
    try:
        first = inbetween_game.start_game(
            game_id=str(game_id),
            ruleset=ruleset,
            ante=new.ante,
            rounds=ruleset.default_rounds if new.rounds is None else new.rounds,
            seats=new.seats,
            shoe=shoe,
            source=source,
            now=unit.now,
            test=new.test,
            forced=len(new.forced_cards),
        )
        step = play_computers(first.game, first.shoe, ruleset=ruleset, source=source, now=unit.now)
    except InBetweenError as exc:
        raise refused(exc) from None
    events = [*first.events, *step.events]
    over = step.game.status is GameStatus.GAME_OVER
    appended = checkpoints.append(unit, game_id, GENESIS_HEAD, events, test=new.test, now=unit.now, last=over)
    head = appended.head
    unit.defer([inbetween_sql.insert_game(game_id, unit.operator_id, step.game, step.shoe, head), *appended.writes])
    log_if_ended(unit, step.game)
    return view(step.game, step.shoe, head.seq)


async def act(unit: UnitOfWork, game_id: UUID, action: InBetweenAction, version: int) -> GameView | Replay:
    """A human's call, bet or pass on the game at `version`, then the computer seats until a human must act again;
    a refusal (a stale version included) writes nothing."""
    structlog.contextvars.bind_contextvars(game_id=str(game_id))
    read = await inbetween_sql.read_game(unit.conn, unit.operator_id, game_id, unit.mode)
    if isinstance(read, Replay):
        return read
    if isinstance(read, Missing):
        raise not_found("game")
    stored = read.value
    if stored.head.seq != version:  # another move landed since this one's player saw the game
        raise ApiError(
            409, "STALE_VERSION", f"the game is at version {stored.head.seq}; this move answers version {version}"
        )
    now = unit.read_clock()  # after the lock: the records' times follow the order the lock gave the moves
    ruleset = released_ruleset(stored.game.ruleset)
    source = csprng()
    try:
        moved = inbetween_game.act(stored.game, stored.shoe, action, ruleset=ruleset, source=source, now=now)
        step = play_computers(moved.game, moved.shoe, ruleset=ruleset, source=source, now=now)
    except InBetweenError as exc:
        raise refused(exc) from None
    head = persist(unit, game_id, stored.head, step.game, step.shoe, [*moved.events, *step.events])
    return view(step.game, step.shoe, head.seq)


async def get_game(unit: UnitOfWork, game_id: UUID, seat: int | None = None) -> GameView:
    """The game as everyone may see it, or as one seat does (its own face-down posts and the odds they give)."""
    structlog.contextvars.bind_contextvars(game_id=str(game_id))
    stored = await inbetween_sql.select_game(unit.conn, unit.operator_id, game_id)
    if stored is None:
        raise not_found("game")
    if seat is not None and not 0 <= seat < len(stored.game.seats):
        raise validation(f"seat: the game has seats 0..{len(stored.game.seats) - 1}")
    return view(stored.game, stored.shoe, stored.head.seq, seat)


async def game_records(unit: UnitOfWork, game_id: UUID, after: int, limit: int) -> list[Link]:
    """The game's audit records after seq `after`: every card, call, bet and chip movement, hash-chained."""
    structlog.contextvars.bind_contextvars(game_id=str(game_id))
    if await inbetween_sql.select_game(unit.conn, unit.operator_id, game_id) is None:
        raise not_found("game")
    return await inbetween_sql.select_records(unit.conn, game_id, after=after, limit=limit)


def view(game: Game, shoe: Shoe, version: int, viewer: int | None = None) -> GameView:
    """The game as `viewer` (a seat; None: anyone) may see it: the public game, the seat's own face-down posts, the
    odds from what that seat may see (the public count and its own cards) and, at the end, the pack."""
    known = seat_view(game, shoe, viewer)
    call_odds: tuple[tuple[PairCall, TurnOdds], ...] = ()
    posts = known.turn.posts if known.turn is not None else None
    if game.status is GameStatus.AWAITING_PAIR_CALL and posts is not None:
        unseen = known.unseen()
        call_odds = tuple((call, third_card_odds(posts, unseen, call)) for call in possible_pair_calls(posts.first))
    odds = turn_odds(known) if game.status in (GameStatus.AWAITING_BET, GameStatus.AWAITING_SHOW) else None
    reveal = shoe.reveal if game.status is GameStatus.GAME_OVER else None
    cards = own_cards(game, shoe, viewer)
    return GameView(game=game, odds=odds, call_odds=call_odds, reveal=reveal, version=version, own_cards=cards)


def persist(
    unit: UnitOfWork, game_id: UUID, head: AuditHead, game: Game, shoe: Shoe, events: list[InBetweenEvent]
) -> AuditHead:
    """The game row and its audit records, written together before COMMIT; the chain's head after them."""
    # checkpoints.append: the fork guard's refusal and the checkpoint of each N records, as a table's appends have
    over = game.status is GameStatus.GAME_OVER
    appended = checkpoints.append(unit, game_id, head, events, test=game.test, now=unit.now, last=over)
    new_head = appended.head
    unit.defer([*appended.writes, inbetween_sql.update_game(game_id, game, shoe, new_head, replaces=head.seq)])
    log_if_ended(unit, game)
    return new_head


def log_if_ended(unit: UnitOfWork, game: Game) -> None:
    """One line when a game ends, once it is committed (chips only: no pack, salt or card is ever logged)."""
    if game.status is GameStatus.GAME_OVER:
        unit.after_commit.append(
            lambda: log.info(
                "inbetween_game_ended",
                game_id=game.game_id,
                ruleset=game.ruleset,
                reason=game.ended_reason,
                rounds=game.round,
                chips=[seat.chips for seat in game.seats],
                winners=[game.seats[i].player_id for i in game.winners],
                test=game.test,
            )
        )
