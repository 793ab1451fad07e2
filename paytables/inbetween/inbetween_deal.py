"""Who deals and from which pack: the first dealer drawn from the committed pack, and a bank twice through the deck.

The first dealer (`first_dealer`): with `highest_card` a card goes face up to every player in turn from the seat the
game was started with, the way play goes, and the highest (aces high) deals; players tied for the highest each take
another card until one is highest (if the pack cannot give every tied player one, the first of them in that order
deals). With `random` one card is turned: its place in the canonical deck order (`shoe.cards.DECK`, 0..51) names seat
`place mod players`, and a place in the last `52 mod players` is turned again, so every seat is equally likely and
anyone can check the choice against the pack's revealed order. Either way the cards turned are out of the pack (they
are in the public count) and play goes on from the same pack.

Twice through the deck (a bank with `orbits = "twice_through"`, pagat's variant): the bank deals orbit after orbit
from the remainder of the pack. At the start of an orbit, when the pack in play cannot give every player in it a first
card, every card is shuffled into a new pack and the deal goes on (the deck's first run-out); on the bank's second pack
that is its second run-out and the bank ends there. A pack that runs out inside a turn is reshuffled as always (the
cards on the table stay out); when that happens on the bank's second pack, the orbit in play is completed and the bank
ends. Each new bank (round) begins with a freshly shuffled pack.
"""

from __future__ import annotations

from paytables.inbetween.inbetween_events import DealerDrawn, InBetweenDealerChosen
from paytables.inbetween.inbetween_rules import TWICE_THROUGH, FirstDealer, RuleSet
from paytables.inbetween.inbetween_state import Game
from paytables.inbetween.inbetween_tape import Tape
from shoe.cards import DECK, rank


def draw_dealer(tape: Tape, start: int) -> int:
    """The first round's dealer: `start` itself, or the seat the rule set's draw from the pack chooses."""
    how = tape.rules.terms.first_dealer
    if how is FirstDealer.SEAT:
        return start
    dealer = _random_seat(tape) if how is FirstDealer.RANDOM else _highest_card(tape, start)
    tape.emit(InBetweenDealerChosen(dealer=dealer, by=DealerDrawn(how.value)))
    return dealer


def _highest_card(tape: Tape, start: int) -> int:
    n, step = len(tape.game.seats), tape.rules.terms.direction.step
    drawing = [(start + step * i) % n for i in range(n)]
    while True:
        cards = [(seat, rank(tape.draw(seat))) for seat in drawing]
        best = max(value for _, value in cards)
        drawing = [seat for seat, value in cards if value == best]
        if len(drawing) == 1 or tape.left_in_pack < len(drawing):
            return drawing[0]


def _random_seat(tape: Tape) -> int:
    n = len(tape.game.seats)
    usable = len(DECK) - len(DECK) % n
    while True:
        place = DECK.index(tape.draw(None))
        if place < usable or tape.left_in_pack == 0:
            return place % n


def twice_through(rules: RuleSet) -> bool:
    banker = rules.banker
    return banker is not None and banker.orbits == TWICE_THROUGH


def orbits_for(players: int) -> int:
    """Enough orbits to reach the deck's second run-out: every turn deals at least two cards, so 52 turns suffice."""
    return len(DECK) // players + 2


def bank_done_at_orbit(tape: Tape, index: int, start: int) -> bool:
    """At the first turn of an orbit of a twice-through bank: reshuffle for the first cards, or end the bank."""
    game = tape.game
    per = len(set(game.order))
    if index // per <= (start - 1) // per:
        return False  # not the first turn of an orbit
    if game.shoe_number - game.round_shoe >= 2:
        return True  # the deck ran out a second time in the orbit just completed
    orbit = game.order[index : (index // per + 1) * per]
    needed = sum(1 for seat in orbit if game.seats[seat].chips > 0)
    if tape.left_in_pack >= needed:
        return False
    if game.shoe_number > game.round_shoe:
        return True  # the bank's second pack cannot give everyone a first card: the deck is through twice
    tape.reshuffle(table=())
    return False


def fresh_pack(tape: Tape, game: Game) -> None:
    """A new bank of a twice-through game begins with every card shuffled into a new pack."""
    if game.round > 0:
        tape.reshuffle(table=())
