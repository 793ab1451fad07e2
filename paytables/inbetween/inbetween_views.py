"""What one seat may see of a game: the public game, and its own face-down posts while it holds them.

The `Game` never holds a face-down card: the record of a card dealt down names its place in the committed pack, and
the card is read from the secret `Shoe` only for the seat that holds it. Everything public (another seat's view,
a spectator's, the records, the pushes) is the `Game` itself, so it cannot carry a hidden card; the odds a seat is
shown and the computer's choice for a seat are worked out from `seat_view`, which adds that seat's own cards alone.
"""

from __future__ import annotations

import msgspec

from paytables.inbetween.inbetween_state import Game
from shoe.shoe import Shoe


def own_cards(game: Game, shoe: Shoe, seat: int | None) -> tuple[str, ...]:
    """The face-down posts `seat` holds now and has not shown (none for any other seat, or a spectator)."""
    turn = game.turn
    if seat is None or turn is None or turn.seat != seat or not turn.hidden:
        return ()
    return tuple(shoe.card_at(place) for place in turn.down)


def folded_cards(game: Game, shoe: Shoe, seat: int | None) -> tuple[str, ...]:
    """The posts `seat` folded unseen from the pack in play: the seat saw them, nobody else has."""
    return tuple(shoe.card_at(place) for folder, place in game.folded if folder == seat)


def seat_view(game: Game, shoe: Shoe, seat: int | None) -> Game:
    """The game as `seat` knows it: its own face-down posts on the table, and they and the posts it folded from this
    pack out of its count of unseen cards."""
    cards, folded = own_cards(game, shoe, seat), folded_cards(game, shoe, seat)
    if not cards and not folded:
        return game
    turn = game.turn
    if cards and turn is not None:
        turn = msgspec.structs.replace(turn, first_post=cards[0], second_post=cards[1])
    known = (*cards, *folded)
    return msgspec.structs.replace(game, turn=turn, seen=(*game.seen, *known), down_out=game.down_out - len(known))
