"""docs/audit.md against the code: the worked example is regenerated, and every event kind and field is described."""

from __future__ import annotations

import hashlib
import json
import re
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec

from audit.game_replay import GameReplayer
from audit.records import decode_inbetween_record
from audit.system_events import SettingsInForce, SystemEvent
from paytables.inbetween.inbetween_events import (
    AceCall,
    CalledBy,
    CardRole,
    ChipReason,
    DealerDrawn,
    Decision,
    EndReason,
    InBetweenEvent,
    PairCall,
    SeatSpec,
    TurnOutcome,
)
from paytables.red_dog import loader
from paytables.red_dog.events import Event
from paytables.red_dog.table import TableSettings
from paytables.releases import canonical_bytes
from tests.support import inbetween_audit_example as games
from tests.support.audit_example import END, START, markdown

DOC = Path(__file__).resolve().parents[2] / "docs" / "audit.md"


def page() -> str:
    return DOC.read_text(encoding="utf-8")


def test_the_worked_example_is_what_the_code_writes_today() -> None:
    text = page()
    shown = text[text.index(START) : text.index(END) + len(END) + 1]
    assert shown == markdown(), "regenerate it: python -m tests.support.audit_example, between the example markers"


def test_the_example_hashes_are_the_sha256_chain_of_the_bytes_shown() -> None:
    """Recomputed from the page alone, the way a reader with sha256sum would: no project code involved."""
    example = page()[page().index(START) : page().index(END)]
    shown = re.findall(r"\*\*seq (\d+)\*\* `(\w+)`, hash `([0-9a-f]{64})`\n\n```json\n(.*)\n```", example)
    assert [int(seq) for seq, *_ in shown] == list(range(1, 12))
    prev = bytes(32)
    for _, kind, digest, body in shown:
        data = body.encode("utf-8")
        assert json.loads(data)["event"]["kind"] == kind
        assert hashlib.sha256(prev + data).hexdigest() == digest
        prev = bytes.fromhex(digest)


def test_the_paytable_sha256_shown_is_the_hash_of_the_canonical_terms_shown() -> None:
    standard = loader.get("standard/v1")
    terms = canonical_bytes(standard.terms).decode()
    assert f"printf '%s' '{terms}' | sha256sum\n# {standard.sha256}" in page()
    assert hashlib.sha256(terms.encode()).hexdigest() == standard.sha256


def described(text: str, union: Any) -> Iterator[tuple[str, str, str]]:
    """(kind, field, the kind's part of `text`) for every field of every event of the tagged union: a kind's part
    runs from its bold heading to the next one."""
    for event in typing.get_args(union):
        kind = event.__struct_config__.tag
        start = text.index(f"**`{kind}`**")
        section = text[start : text.find("\n**`", start + 1)]
        for field in msgspec.structs.fields(event):
            yield kind, field.name, section


def test_every_event_kind_and_every_one_of_its_fields_is_described() -> None:
    text = page()
    for kind, name, section in described(text, Event):
        assert re.search(rf"`{name}[`.]", section), (kind, name)
    settings = text[text.index("**`table_created`**") : text.index("**`table_closed`**")]
    for field in msgspec.structs.fields(TableSettings):
        assert f"settings.{field.name}`" in settings, field.name


def test_every_system_chain_kind_and_every_one_of_its_fields_is_described() -> None:
    text = page()
    chain = text[text.index("## The system chain (schema 3)") : text.index("## In Between games (schema 2)")]
    for kind, name, section in described(chain, SystemEvent):
        assert re.search(rf"`{name}[`.]", section), (kind, name)
    started = chain[chain.index("**`service_started`**") : chain.index("**`service_stopped`**")]
    for field in msgspec.structs.fields(SettingsInForce):
        assert f"settings.{field.name}`" in started, field.name


# In Between games: the section, its worked example (regenerated) and the hand walk-through (worked from the rules).

GAMES = "## In Between games (schema 2)"
MINUS = "\u2212"  # the page writes a negative delta with the minus sign


def games_section() -> str:
    text = page()
    return text[text.index(GAMES) : text.index("## Schema 1")]


def game_records_shown() -> list[tuple[int, str, str, bytes]]:
    """(seq, kind, hash, body) of every game record the page shows, read from the page alone."""
    example = page()[page().index(games.START) : page().index(games.END)]
    shown = re.findall(r"\*\*seq (\d+)\*\* `(\w+)`, hash `([0-9a-f]{64})`\n\n```json\n(.*)\n```", example)
    return [(int(seq), kind, digest, body.encode("utf-8")) for seq, kind, digest, body in shown]


def test_the_game_example_is_what_the_engine_writes_today() -> None:
    text = page()
    shown = text[text.index(games.START) : text.index(games.END) + len(games.END) + 1]
    assert shown == games.markdown(), (
        "regenerate it: python -m tests.support.inbetween_audit_example, between the inbetween example markers"
    )


def test_the_game_example_hashes_are_the_sha256_chain_of_the_bytes_shown() -> None:
    """As for the table: recomputed from the page with sha256 alone, and the pack's commitment from its reveal."""
    shown = game_records_shown()
    assert [seq for seq, *_ in shown] == list(range(1, len(shown) + 1))
    prev = bytes(32)
    for seq, kind, digest, body in shown:
        record = json.loads(body)
        assert (record["event"]["kind"], record["seq"], record["table_id"]) == (kind, seq, games.GAME_ID)
        assert hashlib.sha256(prev + body).hexdigest() == digest
        prev = bytes.fromhex(digest)
    events = [json.loads(body)["event"] for *_, body in shown]
    shuffled = next(e for e in events if e["kind"] == "ib_shoe_shuffled")
    revealed = next(e for e in events if e["kind"] == "ib_shoe_revealed")
    pack = bytes.fromhex(revealed["salt"]) + revealed["order"].encode("ascii")
    assert hashlib.sha256(pack).hexdigest() == shuffled["commitment"] == revealed["commitment"]
    assert revealed["order"].startswith("".join(games.FORCED))


def test_the_game_example_replays_through_the_engine_from_the_page_alone() -> None:
    replayer = GameReplayer()
    for *_, body in game_records_shown():
        record = decode_inbetween_record(body)
        replayer.record(record.table_id, record)
    report = replayer.report()
    assert (report.games, report.matched, report.open_games, report.mismatches) == (1, 1, 0, [])


def test_every_game_event_kind_and_every_one_of_its_fields_is_described() -> None:
    section = games_section()
    for kind, name, part in described(section, InBetweenEvent):
        # a kind with a field table has a row for every field (a row may name several); the others, prose
        pattern = rf"^\| (`\w+`, )*`{name}`" if "| field |" in part else rf"`{name}[`.]"
        assert re.search(pattern, part, re.MULTILINE), (kind, name)
    started = section[section.index("**`ib_game_started`**") : section.index("**`ib_shoe_shuffled`**")]
    for field in msgspec.structs.fields(SeatSpec):
        assert f"`seats.{field.name}`" in started, field.name


def test_every_chip_reason_outcome_end_reason_and_decision_is_named() -> None:
    section = games_section()
    reasons = section[section.index("### Chip reasons") : section.index("### The order of a game's records")]
    for reason in ChipReason:
        assert re.search(rf"^\| `{reason.value}` \|", reasons, re.MULTILINE), reason
    for value in (*TurnOutcome, *EndReason, *Decision, *DealerDrawn, *CalledBy, *CardRole, *AceCall, *PairCall):
        assert f"`{value.value}`" in section, value


def hand_worked_moves() -> list[tuple[int, str, int, int, int]]:
    """The example's chip movements worked from the rule set's words and the forced cards, not from the engine:
    (seat, reason, delta, chips after, pot after). pagat-ante/v2: everyone antes, a post costs double the bet."""
    ante, post_multiple, seats = 10, 2, 3
    chips, pot, moves = [1000] * seats, 0, []

    def move(seat: int, delta: int, reason: str) -> None:
        nonlocal pot
        chips[seat] += delta
        pot -= delta
        moves.append((seat, reason, delta, chips[seat], pot))

    place = "23456789TJQKA".index("6") * 4 + "SHDC".index("H")  # the dealer's card 6H in the canonical order
    dealer = place % seats
    order = [(dealer + 1 + i) % seats for i in range(seats)]  # play goes left, the dealer last
    for seat in order:
        move(seat, -ante, "ante")
    move(order[0], pot, "win")  # 3 and K, a bet of the whole pot, and the 9 is between them
    for seat in order:  # the pot is empty and turns follow: everyone antes again
        move(seat, -ante, "reante")
    move(order[1], -post_multiple * 5, "post")  # 5 and J, a bet of 5, and the third card is a J
    move(order[2], 9, "win")  # 2 and Q, a bet of 9, and the 7 is between them
    dealer = (dealer + 1) % seats  # round 2: the deal moves one seat the way play goes
    order = [(dealer + 1 + i) % seats for i in range(seats)]
    for seat in order:
        move(seat, -ante, "ante")
    share, odd = divmod(pot, seats)  # everyone agrees: the pot shared, the odd chips first from the dealer's left
    for place_in_turn, seat in enumerate(order):
        move(seat, share + (1 if place_in_turn < odd else 0), "shared")
    assert sum(chips) + pot == seats * 1000
    return moves


def test_the_hand_walk_through_is_the_rules_arithmetic_and_what_the_records_say() -> None:
    text = page()
    walk = text[text.index("#### Re-deriving the example by hand") : text.index("## Schema 1")]
    rows = re.findall(r"^\| (\d+) \| (\d) \| (\w+) \| (\u2212?\d+) \| (\d+) \| (\d+) \|", walk, re.MULTILINE)
    table = [
        (int(seq), int(seat), reason, int(d.replace(MINUS, "-")), int(c), int(p)) for seq, seat, reason, d, c, p in rows
    ]
    assert [row[1:] for row in table] == hand_worked_moves()
    records = {seq: json.loads(body)["event"] for seq, _, _, body in game_records_shown()}
    moved = [(seq, e["seat"], e["reason"], e["delta"], e["chips"], e["pot"]) for seq, e in records.items()
             if e["kind"] == "ib_chips_moved"]  # fmt: skip
    assert moved == table
    final = {seat: chips for seat, _, _, chips, _ in hand_worked_moves()}  # each seat's chips after its last move
    ended = records[max(records)]
    assert ended["kind"] == "ib_game_ended"
    assert ended["chips"] == [final[seat] for seat in range(3)] == [1020, 981, 999]
    assert "1020 + 981 + 999 = 3000" in walk
