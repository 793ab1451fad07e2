"""What a player at an In Between table reads: the game's audit events told as lines, and the table as it stands.

It works on the API's JSON (the records' events and the game state), as any client would; nothing here decides play.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from shoe.shoe import Reveal, verify_reveal

POST_MULTIPLE = {"bet": 1, "double": 2, "triple": 3}
GATHERED = ("ante", "reante", "stake")  # chip moves told together, as one line


class Narrator:
    """Turns a game's events into lines, one turn to a line; it remembers only the turn being told."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.turn: list[str] = []
        self.moved: dict[str, Any] | None = None  # the turn's last chip move
        self.gathered: list[dict[str, Any]] = []
        self.commitments: dict[int, str] = {}
        self.firsts: dict[int, str] = {}  # the dealer's game bank: each player's first card, dealt before the turns

    def tell(self, event: dict[str, Any]) -> list[str]:
        """The lines this event completes (often none: a turn is told when it ends)."""
        lines = []
        if self.gathered and not (event["kind"] == "ib_chips_moved" and event["reason"] == self.gathered[0]["reason"]):
            lines.append(self._gathered())
        handler = getattr(self, f"_{event['kind'].removeprefix('ib_')}", None)
        told = handler(event) if handler is not None else None
        return lines + ([told] if told else [])

    def _game_started(self, e: dict[str, Any]) -> str:
        rounds = "until a bet takes the pot" if e["rounds"] is None else f"{e['rounds']} round"
        rounds += "s" if e["rounds"] not in (None, 1) else ""
        players = len(e["seats"])
        return f"{e['ruleset']}: {players} players, ante {e['ante']}, {rounds}, {e['starting_chips']} chips each"

    def _shoe_shuffled(self, e: dict[str, Any]) -> str:
        self.commitments[e["shoe_number"]] = e["commitment"]
        if e["shoe_number"] == 1:
            return f"pack 1 shuffled and committed: {e['commitment'][:16]}..."
        kept = len(e["excluded"])
        return f"  the pack ran out: {e['size']} cards shuffled into pack {e['shoe_number']} ({kept} stay on the table)"

    def _shoe_revealed(self, e: dict[str, Any]) -> str:
        good = verify_reveal(self.commitments.get(e["shoe_number"], ""), Reveal(salt=e["salt"], order=e["order"]))
        verdict = "match its commitment" if good else "DO NOT MATCH its commitment"
        return f"  pack {e['shoe_number']} revealed: its salt and order {verdict}"

    def _dealer_card(self, e: dict[str, Any]) -> str:
        to = "turned to choose the dealer" if e["seat"] is None else f"to {self.names[e['seat']]}"
        return f"  draw for the deal: {e['card']} {to}"

    def _dealer_chosen(self, e: dict[str, Any]) -> str:
        how = "the highest card" if e["by"] == "highest_card" else "the card's place in the pack"
        return f"  {self.names[e['dealer']]} deals first ({how})"

    def _round_started(self, e: dict[str, Any]) -> str:
        return f"Round {e['round']}: {self.names[e['dealer']]} deals"

    def _chips_moved(self, e: dict[str, Any]) -> str | None:
        if e["reason"] in GATHERED:
            self.gathered.append(e)
            return None
        if e["reason"] == "shared":
            return f"  {e['player_id']} takes {e['delta']} of the pot"
        if e["reason"] == "bank_returned":
            return f"  {e['player_id']} takes back {e['delta']} left in the bank"
        if e["reason"] == "split":
            self.turn.append(f"splits the pair for {-e['delta']}; first hand")
            return None
        self.moved = e
        return None

    def _gathered(self) -> str:
        moves, self.gathered = self.gathered, []
        what = {"ante": "antes", "reante": "the pot was emptied: antes again", "stake": "the bank's stake"}
        each = ", ".join(f"{m['player_id']} {-m['delta']}" for m in moves)
        return f"  {what[moves[0]['reason']]}: {each} (pot {moves[-1]['pot']})"

    def _turn_started(self, e: dict[str, Any]) -> None:
        first = self.firsts.pop(e["seat"], None)
        self.turn, self.moved = [f"  {e['player_id']}:", *([first] if first else [])], None

    def _card_dealt(self, e: dict[str, Any]) -> None:
        self.turn.append(f"third card {e['card']}" if e["role"] == "third_card" else e["card"])

    def _card_dealt_down(self, e: dict[str, Any]) -> None:
        if e["role"] == "first_post":
            self.turn.append("two cards face down:")

    def _cards_shown(self, e: dict[str, Any]) -> None:
        self.turn.append(f"shows {' '.join(e['cards'])},")

    def _first_card(self, e: dict[str, Any]) -> str:
        self.firsts[e["seat"]] = e["card"]
        return f"  first card to {self.names[e['seat']]}: {e['card']}"

    def _chips_bought(self, e: dict[str, Any]) -> str:
        return f"  {e['player_id']} buys {e['amount']} chips  [{e['player_id']} {e['chips']}]"

    def _ace_called(self, e: dict[str, Any]) -> None:
        self.turn.append(f"(ace {e['call']})")

    def _pair_called(self, e: dict[str, Any]) -> None:
        self.turn.append(f"calls {e['call']},")

    def _bet_placed(self, e: dict[str, Any]) -> None:
        self.turn.append(f"bets {e['amount']},")

    def _passed(self, _: dict[str, Any]) -> None:
        face_down = self.turn[-1:] == ["two cards face down:"]
        self.turn.append("folds unseen" if face_down else "passes")

    def _hand_ended(self, e: dict[str, Any]) -> str:
        told = self._turn_ended(e)
        self.turn, self.moved = [f"{self.turn[0]} second hand"], None
        return told

    def _turn_ended(self, e: dict[str, Any]) -> str:
        amount = abs(self.moved["delta"]) if self.moved else 0
        result = {
            "win": f": wins {amount}",
            "lose": f": loses {amount}",
            "post": f": hits the post, pays {amount}",
            "adjacent_passed": " side by side: no card fits",
            "adjacent_lost": f" side by side: pays {amount}",
            "adjacent_pushed": f" side by side: a push, takes back {amount} of the ante",
            "pair_paid": f" a pair: takes {amount}",
            "pair_pushed": f" a pair: a push, takes back {amount} of the ante" if self.moved else " a pair: push",
        }.get(e["outcome"], "")
        chips = f"  [{self.moved['player_id']} {self.moved['chips']}, pot {self.moved['pot']}]" if self.moved else ""
        return " ".join(self.turn).removesuffix(",") + result + chips

    def _game_ended(self, e: dict[str, Any]) -> str:
        standings = ", ".join(f"{self.names[i]} {c}" for i, c in enumerate(e["chips"]))
        winners = " and ".join(self.names[i] for i in e["winners"])
        reason = {"rounds_played": "every round played", "pot_emptied": "a bet took the pot"}.get(
            e["reason"], "one player holds every chip"
        )
        return f"Game over ({reason}): {standings}. {winners} {'wins' if len(e['winners']) == 1 else 'win'}."


def table_lines(game: dict[str, Any]) -> list[str]:
    """The table for the player to act: round, pot, everyone's chips, the count."""
    rounds = "" if game["rounds"] is None else f" of {game['rounds']}"
    seats = " | ".join(f"{s['player_id']}{' (computer)' if s['computer'] else ''} {s['chips']}" for s in game["seats"])
    return [
        f"Round {game['round']}{rounds}  pot {game['pot']}  cards seen since the shuffle: {game['count']}",
        f"  chips: {seats}",
    ]


def odds_line(odds: dict[str, Any], post: str) -> str:
    """How the unseen cards fall, and what each chip bet gains on average when a post costs `post`."""
    unseen, multiple = odds["unseen"], POST_MULTIPLE[post]
    edge = Decimal(odds["win"] - odds["lose"] - multiple * odds["post"]) / Decimal(unseen)
    return (
        f"of {unseen} unseen cards {odds['win']} win ({_percent(odds['win'], unseen)}), {odds['post']} hit a post "
        f"({_percent(odds['post'], unseen)}), {odds['lose']} lose ({_percent(odds['lose'], unseen)}); "
        f"each chip bet gains {edge:+.3f} on average"
    )


def _percent(part: int, whole: int) -> str:
    return f"{Decimal(100 * part) / Decimal(whole):.1f}%"
