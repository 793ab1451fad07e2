"""Replay: every round rebuilt from its records and re-run through the game core; any difference is named."""

from __future__ import annotations

import hashlib
import io
import random
from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from typing import Any, TypeVar

import msgspec
import pytest

from audit import replay as audit_replay
from audit.chain import Record
from audit.export_format import Line, encode_lines, read_raw_lines
from audit.replay import Replayer, ReplayReport
from paytables.red_dog import loader
from paytables.red_dog.events import (
    BetSettled,
    CardDealt,
    Decided,
    DecidedBy,
    Event,
    RoundOpened,
    RoundSettled,
    RoundVoided,
    ShoeRevealed,
    ShoeShuffled,
    SpreadAnnounced,
)
from paytables.red_dog.red_dog import Decision
from paytables.red_dog.table import TableMode
from shoe.cards import DECK
from shoe.shoe import ShoePolicy
from tests.support.audit_play import TablePlay, export, mixed_play, rechained, settings
from tests.unit.oracle import expected

RANKS = "23456789TJQKA"


def make_tables() -> list[TablePlay]:
    rng = random.Random(777)
    tables = []
    for paytable, policy, decks in (
        ("standard/v1", ShoePolicy.PER_ROUND, 6),
        ("post-double/v1", ShoePolicy.CUT_CARD, 1),
        ("generous/v1", ShoePolicy.CUT_CARD, 2),
    ):
        table = TablePlay(settings(paytable, decks=decks, policy=policy, penetration=60), rng)
        mixed_play(rng, 60, table)
        table.close()
        tables.append(table)
    return tables


TABLES = make_tables()


def replay(lines: list[Line]) -> ReplayReport:
    """Through the file format, as `reddog audit replay FILE` reads it."""
    replayer = Replayer()
    replayer.feed_bytes(read_raw_lines(io.BytesIO(encode_lines(lines))))
    return replayer.report()


def rank(card: str) -> int:
    return RANKS.index(card[0]) + 2


def test_a_clean_export_replays_every_round_to_exactly_its_records() -> None:
    report = replay(export(TABLES))
    assert report.ok, report.mismatches[:3]
    ended = sum(isinstance(r.event, RoundSettled | RoundVoided) for t in TABLES for r in t.records)
    assert ended == 180
    assert (report.rounds, report.matched, report.open_rounds, report.unrevealed_rounds) == (180, 180, 0, 0)


def test_the_summary_adds_up_the_money_and_the_outcomes_of_each_paytable() -> None:
    report = replay(export(TABLES))
    by_paytable = sorted(TABLES, key=lambda t: t.settings.paytable)
    for table, group in zip(by_paytable, report.summary, strict=True):
        assert (group.paytable, group.decks) == (table.settings.paytable, table.settings.decks)
        wagered = paid = bets = voided = 0
        outcomes: Counter[str] = Counter()
        cards: dict[str, list[str]] = {}
        for r in table.records:
            match r.event:
                case CardDealt(round_id=round_id, card=card):
                    cards.setdefault(round_id, []).append(card)
                case BetSettled(transactions=moves, result=result) if result != "void":
                    bets += 1
                    wagered += sum(m.amount for m in moves if m.type == "debit")
                    paid += sum(m.amount for m in moves if m.type == "credit")
                case RoundVoided():
                    voided += 1
                case RoundSettled(round_id=round_id):
                    outcomes[_outcome(cards[round_id])] += 1
        assert (group.bets, group.wagered, group.paid, group.voided) == (bets, wagered, paid, voided)
        assert group.rounds == sum(outcomes.values()) == 60 - voided
        assert {name: c.observed for name, c in group.outcomes.items() if c.observed} == dict(outcomes)
        assert group.rtp is not None
        assert abs(float(group.rtp) - paid / wagered) < 1e-8
        assert group.p_value is not None
        assert 0 <= group.p_value <= 1


def _outcome(cards: list[str]) -> str:
    """The outcome from the cards alone, by the rules in words: not by the code under test."""
    first, second = rank(cards[0]), rank(cards[1])
    if abs(first - second) == 1:
        return "consecutive"
    if first == second:
        return "trips" if rank(cards[2]) == first else "pair_push"
    return f"spread_{abs(first - second) - 1}"


def test_every_settled_bet_matches_the_rules_written_out_by_hand() -> None:
    """The replay agrees with the game core; this pins the core's settlements to the rules in words too."""
    table = TABLES[1]
    cards: dict[str, list[str]] = {}
    for r in table.records:
        if isinstance(r.event, CardDealt):
            cards.setdefault(r.event.round_id, []).append(r.event.card)
        if isinstance(r.event, BetSettled) and r.event.result != "void":
            e = r.event
            dealt = [rank(c) for c in cards[e.round_id]]
            third = dealt[2] if len(dealt) == 3 else None
            want = expected("post-double/v1", dealt[0], dealt[1], third, e.ante, e.raise_amount)
            assert (e.result, e.payout, e.net) == (want.result, want.paid, want.net)


E = TypeVar("E", bound=msgspec.Struct)


def tampered(
    table: TablePlay, kind: type[E], change: Callable[[E], E], pick: Callable[[E], bool] = lambda e: True
) -> tuple[list[Line], str]:
    """The table re-chained by an owner after changing the first `kind` event `pick` chooses; and its round."""
    records: list[Record[Event]] = list(table.records)
    index = next(i for i, r in enumerate(records) if isinstance(r.event, kind) and pick(r.event))
    event = records[index].event
    assert isinstance(event, kind)
    new = change(event)
    assert new != event
    records[index] = msgspec.structs.replace(records[index], event=new)
    return rechained(table, records), str(getattr(event, "round_id", ""))


def mismatches_of(lines: list[Line]) -> list[str]:
    report = replay(lines)
    assert not report.ok
    return [f"{m.round_id} {m.detail}" for m in report.mismatches]


def test_a_changed_payout_is_a_mismatch_naming_the_round_and_the_bet() -> None:
    lines, round_id = tampered(
        TABLES[0],
        BetSettled,
        lambda e: msgspec.structs.replace(e, payout=e.payout + 5, net=e.net + 5),
        lambda e: e.payout > 0,
    )
    (found,) = mismatches_of(lines)
    assert found.startswith(round_id)
    assert "bet" in found
    assert "payout recorded" in found


def test_a_changed_card_is_a_mismatch() -> None:
    def other(e: CardDealt) -> CardDealt:
        return msgspec.structs.replace(e, card=next(c for c in DECK if c[0] != e.card[0]))

    lines, round_id = tampered(TABLES[0], CardDealt, other, lambda e: e.position == 2)
    found = mismatches_of(lines)
    assert found[0].startswith(round_id)
    assert "card recorded" in found[0]


def test_a_changed_decision_is_a_mismatch() -> None:
    def flipped(e: Decided) -> Decided:
        if e.action is Decision.RAISE:
            return msgspec.structs.replace(e, action=Decision.CALL, raise_amount=0)
        return msgspec.structs.replace(e, action=Decision.RAISE, raise_amount=1)

    lines, round_id = tampered(TABLES[0], Decided, flipped, lambda e: e.by is DecidedBy.PLAYER)
    found = mismatches_of(lines)
    assert found[0].startswith(round_id)


def test_a_decision_said_to_be_the_players_but_made_by_the_deadline_is_a_mismatch() -> None:
    lines, round_id = tampered(
        TABLES[0],
        Decided,
        lambda e: msgspec.structs.replace(e, by=DecidedBy.PLAYER),
        lambda e: e.by is DecidedBy.TIMEOUT,
    )
    assert mismatches_of(lines)[0].startswith(round_id)


def test_a_round_settled_as_a_timeout_before_its_deadline_is_a_mismatch() -> None:
    table = TABLES[0]
    timed_out = {
        r.event.round_id for r in table.records if isinstance(r.event, Decided) and r.event.by is DecidedBy.TIMEOUT
    }
    lines, round_id = tampered(
        table,
        RoundSettled,
        lambda e: msgspec.structs.replace(e, settled_at=e.settled_at - timedelta(seconds=31)),
        lambda e: e.round_id in timed_out,
    )
    found = mismatches_of(lines)
    assert found[0].startswith(round_id)
    assert "before its raise window closed" in found[0]


@pytest.mark.parametrize("paytable_id", ["generous/v1", "standard/v2"])
def test_a_round_naming_another_paytable_or_a_changed_sha256_is_a_mismatch(paytable_id: str) -> None:
    lines, round_id = tampered(TABLES[0], RoundOpened, lambda e: msgspec.structs.replace(e, paytable=paytable_id))
    found = mismatches_of(lines)
    assert found[0].startswith(round_id)
    assert f"paytable {paytable_id}" in found[0]
    edited = hashlib.sha256(b"edited").hexdigest()
    sha_lines, _ = tampered(TABLES[0], RoundOpened, lambda e: msgspec.structs.replace(e, paytable_sha256=edited))
    assert "recorded sha256" in mismatches_of(sha_lines)[0]


def test_a_payout_by_another_paytables_odds_is_a_mismatch() -> None:
    """generous/v1 pays 3 to 1 on a spread of 3 where standard/v1 pays 2: a round settled on the wrong terms."""
    table = TABLES[0]
    standard, generous = loader.get("standard/v1"), loader.get("generous/v1")
    assert standard.spread_odds(3) == 2
    assert generous.spread_odds(3) == 3
    wins = {r.event.round_id for r in table.records if isinstance(r.event, BetSettled) and r.event.result == "win"}
    spread3 = {
        r.event.round_id
        for r in table.records
        if isinstance(r.event, SpreadAnnounced) and r.event.spread == 3 and r.event.round_id in wins
    }
    if not spread3:
        pytest.skip("no winning spread of 3 in this seeded play")
    lines, round_id = tampered(
        table,
        BetSettled,
        lambda e: msgspec.structs.replace(e, payout=e.payout // 3 * 4),
        lambda e: e.round_id in spread3,
    )
    assert mismatches_of(lines)[0].startswith(round_id)


def test_a_reveal_that_does_not_hash_to_its_commitment_is_a_mismatch() -> None:
    def swapped(e: ShoeRevealed) -> ShoeRevealed:
        order = e.order
        return msgspec.structs.replace(e, order=order[:100] + order[102:104] + order[100:102] + order[104:])

    lines, _ = tampered(TABLES[0], ShoeRevealed, swapped, lambda e: e.order[100:102] != e.order[102:104])
    assert any("do not hash to its commitment" in m for m in mismatches_of(lines))


def test_a_stacked_shoe_is_caught_even_when_its_commitment_was_made_for_it() -> None:
    """An owner who stacks a shoe (its last card a second copy of its first) and commits to it: still caught."""
    table = TABLES[1]
    records = list(table.records)
    index = next(i for i, r in enumerate(records) if isinstance(r.event, ShoeRevealed))
    revealed = records[index].event
    assert isinstance(revealed, ShoeRevealed)
    assert revealed.dealt < 52  # the last card was never dealt: no dealt card changes
    order = revealed.order[:-2] + revealed.order[:2]
    commitment = hashlib.sha256(bytes.fromhex(revealed.salt) + order.encode()).hexdigest()
    rewritten = []
    for r in records:
        e = r.event
        if isinstance(e, ShoeShuffled | RoundOpened | CardDealt) and e.commitment == revealed.commitment:
            e = msgspec.structs.replace(e, commitment=commitment)
        elif isinstance(e, ShoeRevealed) and e.commitment == revealed.commitment:
            e = msgspec.structs.replace(e, commitment=commitment, order=order)
        rewritten.append(msgspec.structs.replace(r, event=e))
    found = mismatches_of(rechained(table, rewritten))
    assert found == [f"None shoe {commitment[:16]}: its order is not 1 full deck(s) of cards"]


def test_a_cut_card_shoe_dealt_past_its_cut_or_retired_early_is_a_mismatch() -> None:
    table = TABLES[1]  # 1 deck at 60%: cut at 31
    records = list(table.records)
    first = next(i for i, r in enumerate(records) if isinstance(r.event, ShoeShuffled))
    shuffled = records[first].event
    assert isinstance(shuffled, ShoeShuffled)
    assert shuffled.cut_position == 31
    early = msgspec.structs.replace(shuffled, cut_position=5)
    records[first] = msgspec.structs.replace(records[first], event=early)
    found = mismatches_of(rechained(table, records))
    assert any("cut at 5, 60% penetration cuts at 31" in m for m in found)
    assert any("after its cut card" in m for m in found)
    late = msgspec.structs.replace(shuffled, cut_position=50)
    records[first] = msgspec.structs.replace(records[first], event=late)
    found = mismatches_of(rechained(table, records))
    assert any("retired before its cut card" in m for m in found)


def test_rounds_on_a_shoe_still_in_play_wait_for_its_reveal() -> None:
    rng = random.Random(3)
    table = TablePlay(settings(decks=8, policy=ShoePolicy.CUT_CARD), rng)
    mixed_play(rng, 10, table)
    report = replay(list(table.lines()))
    assert report.ok
    assert (report.rounds, report.unrevealed_rounds) == (0, 10)
    table.close()
    assert replay(list(table.lines())).rounds == 10


def test_test_table_rounds_replay_with_their_forced_cards_but_stay_out_of_the_figures() -> None:
    table = TablePlay(settings(mode=TableMode.TEST, policy=ShoePolicy.CUT_CARD, decks=1), random.Random(4))
    table.play([10], forced=("4S", "TH", "7D"))
    table.play([10])
    table.close()
    report = replay(list(table.lines()))
    assert report.ok
    assert (report.rounds, report.test_rounds, report.summary) == (2, 2, [])


def test_schema_one_records_are_counted_and_left_to_verify() -> None:
    old = (
        b'{"bet_id":"r1.1","kind":"bet_settled","payload":{"net":-20},"recorded_at":"2024-05-01T12:00:00Z",'
        b'"round_id":"r1","seq":1,"table_id":"table-a","test":false}'
    )
    line = (
        b'{"type":"record","table_id":"table-a","seq":1,"prev_hash":"00","hash":"00",'
        b'"recorded_at":"2024-05-01T12:00:00Z","kind":"bet_settled","round_id":"r1","bet_id":"r1.1","test":false,'
        b'"encoding":"json","body":' + old + b"}\n"
    )
    replayer = Replayer()
    replayer.feed_bytes([line])
    report = replayer.report()
    assert (report.ok, report.schema1_records, report.rounds) == (True, 1, 0)


def test_the_system_chain_is_left_to_verify() -> None:
    """Its records (service start and stop, migrations, failed sign-ins) hold no round: counted, not replayed."""
    nil = "00000000-0000-0000-0000-000000000000"
    body = (
        b'{"event":{"kind":"service_started"},"recorded_at":"2026-05-01T12:00:00Z","schema":2,"seq":1,'
        b'"table_id":"' + nil.encode() + b'","test":false}'
    )
    line = (
        b'{"type":"record","table_id":"' + nil.encode() + b'","seq":1,"prev_hash":"00","hash":"00",'
        b'"recorded_at":"2026-05-01T12:00:00Z","kind":"service_started","round_id":null,"bet_id":null,'
        b'"test":false,"encoding":"json","body":' + body + b"}\n"
    )
    replayer = Replayer()
    replayer.feed_bytes([line])
    report = replayer.report()
    assert (report.ok, report.system_records, report.rounds) == (True, 1, 0)


def test_a_round_dealt_from_a_shoe_already_revealed_is_a_mismatch() -> None:
    """Its order was public before its cards came out: the worst thing a shoe can do, however the cards fall."""
    table = TABLES[0]  # per-round shoes: each revealed right after its round
    records = list(table.records)
    first = next(r.event for r in records if isinstance(r.event, ShoeRevealed))
    second = next(
        i for i, r in enumerate(records) if isinstance(r.event, RoundOpened) and r.event.commitment != first.commitment
    )
    event = records[second].event
    assert isinstance(event, RoundOpened)
    records[second] = msgspec.structs.replace(
        records[second], event=msgspec.structs.replace(event, commitment=first.commitment)
    )
    found = mismatches_of(rechained(table, records))
    assert f"{event.round_id} dealt from shoe {first.commitment[:16]} after it was revealed" in found


def test_rounds_kept_for_a_late_rollback_are_pruned_at_doubling_sizes_not_at_every_round(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # All of TABLES' rounds lie within the rollback window, so pruning keeps them all; past PRUNE_AT it must not
    # rebuild the kept rounds again with every round that follows (that made a long replay quadratic).
    monkeypatch.setattr(audit_replay, "PRUNE_AT", 8)
    rebuilds: list[int] = []
    replayer = Replayer()
    keep = replayer._keep_for_a_rollback

    def counting(*args: Any, **kwargs: Any) -> None:
        before = replayer.prune_at
        keep(*args, **kwargs)
        if replayer.prune_at != before:
            rebuilds.append(len(replayer.finished))

    monkeypatch.setattr(replayer, "_keep_for_a_rollback", counting)
    replayer.feed_bytes(read_raw_lines(io.BytesIO(encode_lines(export(TABLES)))))
    report = replayer.report()
    assert report.ok
    finished = len(replayer.finished)
    assert finished > 159  # nothing within the window was let go
    assert rebuilds == [9, 19, 39, 79, 159]  # each at twice the size kept before: log2 of the rounds, not one each
