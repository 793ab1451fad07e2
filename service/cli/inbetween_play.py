"""`reddog inbetween play`: an In Between game against a running server; the humans' turns are asked on the terminal.

The server plays the computer seats; this client only shows what happened (the game's audit events), the table and
the exact odds the server gives, and sends each human's call, bet or pass.
"""

from __future__ import annotations

import json
from typing import Any, Protocol, TextIO

import msgspec

from service.cli.client import ClientError
from service.cli.inbetween_narration import Narrator, odds_line, table_lines

GAMES = "/v1/inbetween/games"


class Api(Protocol):
    def request(self, method: str, path: str, body: Any = None, *, key: str | None = None) -> Any: ...


class PlayOptions(msgspec.Struct, frozen=True, kw_only=True):
    ruleset: str = "inbetween/nepal/v1"
    ante: int | None = None  # None: the rule set's first choice
    rounds: int | str | None = None
    players: tuple[str, ...] = ("you",)
    computers: int = 1
    game_id: str | None = None  # go on with a game already started
    cards: tuple[str, ...] = ()  # a test game's first cards (the server must allow test games)


class Terminal:
    """The prompts and the lines shown; a scripted input is echoed, so a transcript reads as it was played."""

    def __init__(self, stdin: TextIO, stdout: TextIO) -> None:
        self.stdin, self.stdout = stdin, stdout

    def say(self, line: str) -> None:
        print(line, file=self.stdout, flush=True)

    def ask(self, prompt: str) -> str:
        self.stdout.write(prompt)
        self.stdout.flush()
        line = self.stdin.readline()
        if not line:
            raise EOFError
        if not self.stdin.isatty():
            self.stdout.write(line if line.endswith("\n") else line + "\n")
        return line.strip().lower()


def play(client: Api, options: PlayOptions, terminal: Terminal) -> int:
    """Play until the game is over; 0 then, 1 if the server cannot be reached or the input runs out."""
    try:
        terms = ruleset_terms(client, options.ruleset)
        game = start(client, options, terms) if options.game_id is None else client.request("GET", game_path(options))
        if options.game_id is not None:
            terms = ruleset_terms(client, game["ruleset"])
        terminal.say(f"game {game['game_id']}")
        narrator, seen, shown = Narrator([seat["player_id"] for seat in game["seats"]]), 0, None
        while True:
            seen = tell(client, game["game_id"], narrator, seen, terminal)
            if game["status"] == "game_over":
                return 0
            turn = (game["round"], game["turn"]["seat"], game["turn"]["first_post"])
            game, shown = human_turn(client, game, terms, terminal, new_turn=turn != shown), turn
    except EOFError:
        terminal.say("\nno more input: the game waits where it is (go on with --game ID)")
        return 1
    except (ClientError, OSError) as exc:
        terminal.say(f"reddog inbetween play: {exc}")
        return 1


def game_path(options: PlayOptions) -> str:
    return f"{GAMES}/{options.game_id}"


def ruleset_terms(client: Api, ruleset: str) -> Any:
    name_version = ruleset.removeprefix("inbetween/")
    return client.request("GET", f"/v1/inbetween/rulesets/{name_version}")["terms"]


def start(client: Api, options: PlayOptions, terms: Any) -> Any:
    seats: list[dict[str, Any]] = [{"player_id": p} for p in options.players]
    seats += [{"computer": True}] * options.computers
    body: dict[str, Any] = {
        "ruleset": terms["id"],
        "ante": terms["antes"][0] if options.ante is None else options.ante,
        "seats": seats,
    }
    if options.rounds is not None:  # else the server plays the rule set's default
        body["rounds"] = options.rounds
    if options.cards:
        body.update(mode="test", forced_cards=list(options.cards))
    return client.request("POST", GAMES, body)


def tell(client: Api, game_id: str, narrator: Narrator, seen: int, terminal: Terminal) -> int:
    """Show every event after seq `seen`; the last seq shown."""
    after: int | None = seen
    while after is not None:
        page = client.request("GET", f"{GAMES}/{game_id}/records?after={after}")
        for item in page["items"]:
            for line in narrator.tell(json.loads(item["body"])["event"]):
                terminal.say(line)
            seen = item["seq"]
        after = page["next_after"]
    return seen


def human_turn(client: Api, game: Any, terms: Any, terminal: Terminal, *, new_turn: bool) -> Any:
    """Ask the player to act until the server accepts a move; the game after it (and the computers' turns)."""
    if new_turn:
        for line in table_lines(game):
            terminal.say(line)
    if game["awaiting"] == "show":  # face-down posts: the player's own view holds them, and its odds
        game = client.request("GET", f"{GAMES}/{game['game_id']}?seat={game['turn']['seat']}")
    describe(game, terms, terminal)
    path = f"{GAMES}/{game['game_id']}/actions"
    while True:
        move = ask_move(game, terminal, may_pass=terms.get("pass", "allowed") == "allowed")
        try:
            return client.request("POST", path, {"player_id": game["to_act"], "version": game["version"], **move})
        except ClientError as exc:
            terminal.say(f"  refused: {exc.body.get('code')}: {exc.body.get('detail')}")
            if exc.status == 409:  # the game moved on without us (another terminal): look again
                return client.request("GET", f"{GAMES}/{game['game_id']}")
            if exc.status >= 500 or exc.status in (401, 403, 404):
                raise


def describe(game: Any, terms: Any, terminal: Terminal) -> None:
    """The posts in front of the player to act, and the exact odds of the next card for each choice they have."""
    player, turn, awaiting = game["to_act"], game["turn"], game["awaiting"]
    if awaiting == "ace_call":
        terminal.say(f"{player}, your first post is {turn['first_post']}.")
        return
    if awaiting == "show":
        terminal.say(f"{player}, your face-down posts are {' '.join(game['own_cards'])}.")
        if game["odds"] is not None:
            terminal.say(f"  if you show and bet: {odds_line(game['odds'], terms['post'])}")
        return
    posts = f"{turn['first_post']} {turn['second_post']}"
    if awaiting == "split":
        terminal.say(f"{player}, your posts are {posts}: a pair you may split into two hands ({terms['split']}).")
        return
    if awaiting == "pair_call":
        terminal.say(f"{player}, your posts are {posts}: a pair.")
        for option in game["pair_call_odds"]:
            terminal.say(f"  call {option['call']}: {odds_line(option['odds'], terms['post'])}")
        return
    called = f" (ace {turn['ace_call']})" if turn["ace_call"] else ""
    called += f" (called {turn['pair_call']})" if turn["pair_call"] else ""
    terminal.say(f"{player}, your posts are {posts}{called}.")
    terminal.say(f"  {odds_line(game['odds'], terms['post'])}")


def ask_move(game: Any, terminal: Terminal, *, may_pass: bool = True) -> dict[str, Any]:
    """The move the player types for what the game waits for; asked again until it reads as one. Where the rule
    set's `pass` is `never`, passing is not offered."""
    if game["awaiting"] == "ace_call":
        return _choose(terminal, "call the ace (h)igh or (l)ow: ", {"h": "high", "l": "low"}, "call_ace")
    if game["awaiting"] == "split":
        split = _choose(terminal, "(s)plit the pair or (k)eep it: ", {"s": "split", "k": "keep_pair"}, "")
        return {"action": split["call"]}
    if game["awaiting"] == "show":
        shown = _choose(terminal, "(s)how them and bet, or (f)old unseen: ", {"s": "show", "f": "pass"}, "")
        return {"action": shown.get("call", "pass")}
    or_pass = ", or (p)ass" if may_pass else ""
    if game["awaiting"] == "pair_call":
        answers = {c["call"][0]: c["call"] for c in game["pair_call_odds"]}
        prompt = f"call (h)igher, (l)ower{or_pass}: " if may_pass else "call (h)igher or (l)ower: "
        return _choose(terminal, prompt, {**answers, **({"p": "pass"} if may_pass else {})}, "call_pair")
    turn = game["turn"]
    while True:
        answer = terminal.ask(f"bet {turn['min_bet']}..{turn['max_bet']} chips{or_pass}: ")
        if may_pass and answer in ("p", "pass"):
            return {"action": "pass"}
        if answer.isdigit():
            return {"action": "bet", "amount": int(answer)}
        terminal.say("  a number of chips, or p to pass" if may_pass else "  a number of chips (every player must bet)")


def _choose(terminal: Terminal, prompt: str, answers: dict[str, str], action: str) -> dict[str, Any]:
    while True:
        answer = terminal.ask(prompt)
        choice = answers.get(answer[:1]) if answer else None
        if choice == "pass":
            return {"action": "pass"}
        if choice is not None:
            return {"action": action, "call": choice}
        terminal.say(f"  answer one of: {', '.join(answers)}")
