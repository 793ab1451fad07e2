"""`reddog inbetween play` against the real app on a real socket, driven by scripted input as a player would type."""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Iterator

import pytest

from service.cli.cli import main
from service.cli.client import Client
from service.settings import Settings
from tests.support.threaded import served

# alice (seat 0) deals round 1 against one computer, nepal/v1, ante 10. Round 1: the computer passes 5-7; alice's
# ace is called low against a 6 and her 10 chips win on the 3. Round 2: alice calls her pair of 9s higher, then
# passes; the computer's 3-4 pass by themselves. Round 3: the computer bets the pot of 50 on 2-K and wins on the 8,
# so both ante again; alice passes 10-Q. Round 4: alice calls her 7s lower and wins 5 on the 4; the computer's 8-9
# pass. Round 5: the computer's 10-J pass; alice bets the whole pot of 55 on 2-A and wins on the 5.
CARDS = [
    "5S", "7H", "AS", "6D", "3C", "9D", "9S", "3S", "4H", "2C", "KC", "8C",
    "TH", "QS", "7C", "7D", "4C", "8D", "9H", "TD", "JD", "2H", "AH", "5H",
]  # fmt: skip
FIRST = ["x", "l", "50", "abc"]  # a wrong answer, the ace low, a bet over the pot, not a number: then input ends
REST = ["10", "h", "p", "p", "l", "5", "55"]


@pytest.fixture
def url(settings: Settings) -> Iterator[str]:
    with served(settings) as base:
        yield base


def run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], args: list[str], answers: list[str]
) -> tuple[int, list[str]]:
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(f"{a}\n" for a in answers)))
    code = main(["inbetween", "play", *args])
    return code, capsys.readouterr().out.splitlines()


def test_a_game_is_played_from_the_terminal_against_the_computer_to_its_end(
    url: str, settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    operator, secret = next((op, s) for op, s in settings.operators.items() if op != "other")
    common = ["--url", url, "--operator", operator, "--secret", secret]
    code, lines = run(monkeypatch, capsys, [*common, "--player", "alice", "--ante", "10", "--cards", *CARDS], FIRST)
    assert code == 1
    assert lines[-1] == "no more input: the game waits where it is (go on with --game ID)"
    match = re.fullmatch(r"game ([0-9a-f-]{36})", lines[0])
    assert match is not None
    game_id = match.group(1)
    assert lines[1:6] == [
        "inbetween/nepal/v1: 2 players, ante 10, 5 rounds, 1000 chips each",
        lines[2],
        "Round 1: alice deals",
        "  antes: computer-1 10, alice 10 (pot 20)",
        "  computer-1: 5S 7H passes",
    ]
    assert lines[2].startswith("pack 1 shuffled and committed: ")
    assert "call the ace (h)igh or (l)ow: x" in lines
    # 48 unseen: the 2s, 3s, 4s and 5s but the 5S win, three aces and three 6s hit a post; a chip gains
    # (15 - 27 - 2 x 6) / 48 = -1/2 with a post costing double.
    odds = "  of 48 unseen cards 15 win (31.2%), 6 hit a post (12.5%), 27 lose (56.2%); each chip bet gains -0.500"
    assert f"{odds} on average" in lines
    assert "  refused: BET_OVER_POT: a bet of 50 is more than the pot of 20" in lines
    assert "  a number of chips, or p to pass" in lines

    code, lines = run(monkeypatch, capsys, [*common, "--game", game_id], REST)
    assert code == 0, lines
    assert "  alice: AS (ace low) 6D bets 10, third card 3C: wins 10  [alice 1000, pot 10]" in lines
    assert "  alice: 9D 9S calls higher, passes" in lines
    assert "  computer-1: 3S 4H side by side: no card fits" in lines
    assert "  computer-1: 2C KC bets 50, third card 8C: wins 50  [computer-1 1020, pot 0]" in lines
    assert "  the pot was emptied: antes again: computer-1 10, alice 10 (pot 20)" in lines
    assert "  alice: 7C 7D calls lower, bets 5, third card 4C: wins 5  [alice 965, pot 35]" in lines
    assert "  alice: 2H AH bets 55, third card 5H: wins 55  [alice 1010, pot 0]" in lines
    assert lines[-2:] == [
        "  pack 1 revealed: its salt and order match its commitment",
        "Game over (every round played): alice 1010, computer-1 990. alice wins.",
    ]
    game = Client(url, operator, secret).request("GET", f"/v1/inbetween/games/{game_id}")
    assert (game["status"], [s["chips"] for s in game["seats"]]) == ("game_over", [1010, 990])


def test_an_unreachable_server_is_one_line_and_exit_code_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    code, lines = run(monkeypatch, capsys, ["--url", "http://127.0.0.1:9"], [])
    assert code == 1
    assert len(lines) == 1
    assert lines[0].startswith("reddog inbetween play: ")


def test_the_draw_for_the_deal_is_told_and_no_pass_is_offered_where_every_player_must_bet(
    url: str, settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # home/v2: "the player with the highest card deals first": 2C to alice, KC to the computer, which deals; alice
    # plays first and "they have to usually bet a minimal of a single chip", so a p is not a move.
    operator, secret = next((op, s) for op, s in settings.operators.items() if op != "other")
    common = ["--url", url, "--operator", operator, "--secret", secret, "--ruleset", "home/v2"]
    code, lines = run(monkeypatch, capsys, [*common, "--player", "alice", "--cards", "2C", "KC", "5S", "9H"], ["p"])
    assert code == 1
    assert lines[3:7] == [
        "  draw for the deal: 2C to alice",
        "  draw for the deal: KC to computer-1",
        "  computer-1 deals first (the highest card)",
        "Round 1: computer-1 deals",
    ]
    assert "bet 1..10 chips: p" in lines
    assert "  a number of chips (every player must bet)" in lines


def test_face_down_posts_are_shown_only_to_the_player_who_holds_them_and_shown_or_folded_from_the_terminal(
    url: str, settings: Settings, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    operator, secret = next((op, s) for op, s in settings.operators.items() if op != "other")
    common = ["--url", url, "--operator", operator, "--secret", secret, "--ruleset", "inbetween/pagat-down/v1"]
    # "2S": place 0, 0 mod 2, alice (seat 0) deals; the computer's 4C JD (5..10 win 24 of 49, a loss with a post
    # costing double) are folded unseen; alice's 3C KD are hers to see, she shows them and bets 10 on the 8H.
    cards = ["2S", "4C", "JD", "3C", "KD", "8H"]
    code, lines = run(
        monkeypatch, capsys, [*common, "--player", "alice", "--ante", "10", "--cards", *cards], ["s", "10"]
    )
    assert code == 1  # the input ran out at alice's next turn
    assert "  computer-1: two cards face down: folds unseen" in lines
    assert "alice, your face-down posts are 3C KD." in lines
    assert "  alice: two cards face down: shows 3C KD, bets 10, third card 8H: wins 10  [alice 1000, pot 10]" in lines
    assert not any("4C" in line or "JD" in line for line in lines)  # the computer's folded cards are never told
