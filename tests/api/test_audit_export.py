"""GET /v1/audit/records and `reddog audit export`: a full run of every outcome exports, verifies and replays clean."""

from __future__ import annotations

import io
import random
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from audit.export_format import Line, RecordLine, TableHead, decode_line, read_lines, read_raw_lines
from audit.replay import Replayer
from audit.verify_export import verify_lines
from tests.api.helpers import decide, open_round, problem
from tests.support.client import Signed
from tests.support.clock import ManualClock
from tests.support.reddog_command import reddog
from tests.support.scratch import Database, verified_scratch_database

PAYTABLES = ["standard/v1", "generous/v1", "post-double/v1"]
# (forced cards, what each bet does): every outcome of the posts and the third card, and every way a window ends
FORCED: list[tuple[list[str], str]] = [
    (["5S", "6H"], "none"),  # consecutive: push at once
    (["8S", "8H", "3D"], "none"),  # pair, no trips: push
    (["8S", "8H", "8D"], "none"),  # trips
    *[
        (cards, plan)
        for cards, plan in [
            (["5S", "7H", "6D"], "raise"),  # spread 1, wins
            (["8S", "5H", "2D"], "call"),  # spread 2, loses outside
            (["5S", "9H", "5D"], "raise"),  # spread 3, hits a post
            (["4S", "9H", "6D"], "raise1"),  # spread 4, wins, raised by one
            (["TS", "4H", "4D"], "call"),  # spread 5, hits a post
            (["3S", "TH", "9D"], "dealer"),  # spread 6, the dealer closes the window
            (["3S", "JH", "2D"], "timeout"),  # spread 7, the deadline passes
            (["2S", "JH", "TD"], "void"),  # spread 8, voided
            (["2S", "QH", "AD"], "raise"),  # spread 9, loses outside
            (["3S", "AH", "KD"], "call"),  # spread 10, wins
            (["AS", "2H", "8D"], "raise"),  # spread 11, wins
        ]
    ],
]


LIVE = [("standard/v1", 6, "per_round"), ("generous/v1", 1, "cut_card"), ("post-double/v1", 8, "per_round")]


@pytest.fixture(scope="module")
async def database(database_server: str) -> AsyncIterator[Database]:
    """This module's own database, so an auditor's export of every operator's chains holds only these tables."""
    async with verified_scratch_database(database_server) as database:
        yield database


async def pages(api: Signed, query: str = "", limit: int = 400) -> tuple[list[Line], list[bytes]]:
    """Every page of GET /v1/audit/records, following the Link headers: the lines and the raw bodies."""
    path: str | None = f"/v1/audit/records?limit={limit}{query}"
    lines: list[Line] = []
    bodies: list[bytes] = []
    while path is not None:
        response = await api.get(path)
        assert response.status_code == 200, response.text
        assert response.headers["content-type"].startswith("application/x-ndjson")
        bodies.append(response.content)
        lines.extend(decode_line(raw) for raw in response.content.splitlines())
        link = response.headers.get("link")
        path = None if link is None else link.split(">")[0].lstrip("<")
    return lines, bodies


async def play_forced(api: Signed, clock: ManualClock, paytable: str, policy: str) -> str:
    """Every forced outcome on one test table, then close it (its last cut-card shoe is revealed); its id."""
    table = await api.table(mode="test", paytable=paytable, decks=2, shoe_policy=policy, raise_window_seconds=20)
    for cards, plan in FORCED:
        rnd = await open_round(api, table["table_id"], [("p1", 10), ("p2", 7)], cards)
        if rnd["status"] == "raise_window":
            await _finish(api, clock, rnd, plan)
    await api.ok("POST", f"/v1/tables/{table['table_id']}/close")
    return str(table["table_id"])


async def _finish(api: Signed, clock: ManualClock, rnd: dict[str, Any], plan: str) -> None:
    round_id = rnd["round_id"]
    bets = [b["bet_id"] for b in rnd["bets"]]
    if plan in ("raise", "call", "raise1"):
        for bet_id in bets:
            action, amount = ("call", None) if plan == "call" else ("raise", 1 if plan == "raise1" else None)
            assert (await decide(api, round_id, bet_id, action, amount)).status_code == 200
    elif plan == "dealer":  # the first bet raises; the dealer closes on the others
        if len(bets) > 1:
            assert (await decide(api, round_id, bets[0], "raise")).status_code == 200
        await api.ok("POST", f"/v1/rounds/{round_id}/close")
    elif plan == "void":
        await api.ok("POST", f"/v1/rounds/{round_id}/void", {"reason": "misdeal"})
    else:
        clock.advance(21)
        settled = await api.ok("GET", f"/v1/rounds/{round_id}")
        assert settled["status"] == "settled"


async def play_live(api: Signed, clock: ManualClock, paytable: str, decks: int, policy: str, rounds: int) -> str:
    """Rounds dealt from real shoes, decided at random: what the replay's figures are made of."""
    rng = random.Random(f"{paytable}{decks}{policy}")
    table = await api.table(paytable=paytable, decks=decks, shoe_policy=policy, raise_window_seconds=20)
    for _ in range(rounds):
        antes = [(f"p{i}", rng.randrange(1, 100)) for i in range(rng.choice((1, 1, 2, 3)))]
        rnd = await open_round(api, table["table_id"], antes)
        if rnd["status"] == "raise_window":
            await _finish(
                api, clock, rnd, rng.choice(["raise", "call", "raise1", "raise", "call", "dealer", "timeout", "void"])
            )
    await api.ok("POST", f"/v1/tables/{table['table_id']}/close")
    return str(table["table_id"])


async def test_a_full_run_of_every_outcome_exports_verifies_and_replays_clean(
    api: Signed, auditor_api: Signed, clock: ManualClock
) -> None:
    tables = [await play_forced(api, clock, p, policy) for p in PAYTABLES for policy in ("per_round", "cut_card")]
    forced = len(tables) * len(FORCED)
    for paytable, decks, policy in LIVE:
        tables.append(await play_live(api, clock, paytable, decks, policy, 60))
    everything, _ = await pages(auditor_api)
    lines = [x for x in everything if getattr(x, "table_id", None) in tables]
    assert len({x.table_id for x in lines if type(x) is TableHead}) == len(tables)
    verified = verify_lines(lines)
    assert verified.ok, verified.faults[:5]
    assert verified.records == sum(1 for x in lines if type(x) is RecordLine)
    replayer = Replayer()
    replayer.feed(lines)
    report = replayer.report()
    assert report.ok, report.mismatches[:5]
    assert report.rounds == report.matched == forced + 180
    assert (report.test_rounds, report.open_rounds, report.unrevealed_rounds) == (forced, 0, 0)
    assert [(g.paytable, g.decks, g.rounds + g.voided) for g in report.summary] == [
        ("generous/v1", 1, 60),
        ("post-double/v1", 8, 60),
        ("standard/v1", 6, 60),
    ]


async def test_auditor_credentials_export_every_operators_chains_but_create_nothing(
    api: Signed, other_api: Signed, auditor_api: Signed
) -> None:
    mine, theirs = await api.table(), await other_api.table()
    lines, _ = await pages(auditor_api)
    tables = {x.table_id for x in lines if type(x) is TableHead}
    assert {mine["table_id"], theirs["table_id"]} <= tables
    problem(
        await auditor_api.post(
            "/v1/tables", {"name": "t", "paytable": "standard/v1", "currency": "EUR", "min_ante": 1, "max_ante": 10}
        ),
        403,
        "AUDITOR_READ_ONLY",
    )


async def test_an_operator_exports_its_own_chains_and_not_anothers(api: Signed, other_api: Signed) -> None:
    mine, theirs = await api.table(), await other_api.table()
    lines, _ = await pages(api)
    assert {x.table_id for x in lines if type(x) is TableHead} == {x.table_id for x in lines if type(x) is RecordLine}
    assert theirs["table_id"] not in {x.table_id for x in lines if type(x) is TableHead}
    assert mine["table_id"] in {x.table_id for x in lines if type(x) is TableHead}
    problem(await api.get(f"/v1/audit/records?table_id={theirs['table_id']}"), 404, "NOT_FOUND")
    problem(await other_api.get(f"/v1/audit/records?table_id={mine['table_id']}"), 404, "NOT_FOUND")


async def test_pages_resume_after_a_seq_and_add_up_to_the_whole_chain(api: Signed) -> None:
    table = await api.table(mode="test")
    for _ in range(6):
        await open_round(api, table["table_id"], [("p1", 5)], ["5S", "6H"])
    whole, _ = await pages(api, f"&table_id={table['table_id']}", limit=10_000)
    paged, bodies = await pages(api, f"&table_id={table['table_id']}", limit=7)
    seqs = [x.seq for x in paged if type(x) is RecordLine]
    assert seqs == list(range(1, len(seqs) + 1))
    assert [x for x in paged if type(x) is RecordLine] == [x for x in whole if type(x) is RecordLine]
    assert len(bodies) == -(-len(seqs) // 7)
    assert verify_lines(paged).ok
    resumed, _ = await pages(api, f"&table_id={table['table_id']}&after_seq=5", limit=10_000)
    assert [x.seq for x in resumed if type(x) is RecordLine] == seqs[5:]


async def test_the_export_command_writes_the_same_lines_as_the_api_and_they_verify(
    api: Signed, database_url: str, tmp_path: Path
) -> None:
    table = await api.table(mode="test", shoe_policy="cut_card", decks=1)
    for cards in (["5S", "6H"], ["8S", "8H", "8D"]):
        await open_round(api, table["table_id"], [("p1", 5)], cards)
    await api.ok("POST", f"/v1/tables/{table['table_id']}/close")
    out = tmp_path / "export.jsonl"
    code, _, err = await reddog(database_url, "audit", "export", "--out", str(out), "--table", table["table_id"])
    assert code == 0, err
    exported = list(read_lines(io.BytesIO(out.read_bytes())))
    api_lines, _ = await pages(api, f"&table_id={table['table_id']}")
    assert [x for x in exported if type(x) is RecordLine] == [x for x in api_lines if type(x) is RecordLine]
    code, text, err = await reddog(database_url, "audit", "verify", str(out))
    assert code == 0, (text, err)
    code, text, err = await reddog(database_url, "audit", "replay", str(out), "--json")
    assert code == 0, (text, err)
    replayer = Replayer()
    replayer.feed_bytes(read_raw_lines(io.BytesIO(out.read_bytes())))
    assert replayer.report().rounds == 2
