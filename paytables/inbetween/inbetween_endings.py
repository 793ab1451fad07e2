"""How an In Between game ends: the pot shared by those with chips (odd chips in turn order from the dealer's
neighbour, the way play goes), the pack in play revealed, and the final chips; and the players' agreement to stop."""

from __future__ import annotations

from paytables.inbetween.inbetween_events import ChipReason, EndReason, InBetweenGameEnded, InBetweenStopAgreed
from paytables.inbetween.inbetween_tape import InBetweenStep, Tape


def agree(tape: Tape, seat: int) -> InBetweenStep:
    """One player's agreement to stop; the last of those with chips ends the game, the pot shared as at any end."""
    tape.emit(InBetweenStopAgreed(seat=seat))
    if tape.game.all_agreed():
        end_game(tape, EndReason.AGREED)
    return tape.step()


def end_game(tape: Tape, reason: EndReason) -> None:
    """Share what is left in the pot, reveal the pack in play, and record the final chips and the winners."""
    _share_pot(tape)
    game = tape.game
    tape.emit(tape.revealed())
    chips = tuple(seat.chips for seat in game.seats)
    winners = tuple(i for i, c in enumerate(chips) if c == max(chips))
    tape.emit(InBetweenGameEnded(reason=reason, chips=chips, winners=winners, at=tape.now))


def _share_pot(tape: Tape) -> None:
    game = tape.game
    if game.pot == 0:
        return
    cycle = game.turn_cycle(tape.rules.terms.direction.step)
    sharers = [s for s in cycle if game.seats[s].chips > 0]
    if not sharers:
        sharers = [s for s in cycle if s in game.order]
    share, odd = divmod(game.pot, len(sharers))
    for place, seat in enumerate(sharers):
        amount = share + (1 if place < odd else 0)
        if amount:
            tape.move(seat, amount, ChipReason.SHARED)
