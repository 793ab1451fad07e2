"""`reddog audit verify|replay FILE`: what an auditor runs, its exit status and its report, without any server."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from audit.audit_cli import main
from audit.checkpoint import Checkpoint, sign_checkpoint
from audit.export_format import CheckpointLine, Line, RecordLine, TableHead, encode_lines
from audit.merkle import root
from audit.signed_note import generate_key, parse_signer
from shoe.shoe import ShoePolicy
from tests.support.audit_play import TablePlay, export, mixed_play, settings

KEY = generate_key("reddog.example/audit", bytes(range(32)))
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def table() -> TablePlay:
    rng = random.Random(99)
    played = TablePlay(settings("generous/v1", decks=2, policy=ShoePolicy.CUT_CARD), rng)
    mixed_play(rng, 40, played)
    played.close()
    return played


def with_checkpoint(table: TablePlay, size: int) -> list[Line]:
    origin = f"reddog.example/audit/table/{table.table_id}"
    checkpoint = Checkpoint(origin=origin, size=size, root=root([link.hash for link in table.links[:size]]))
    note = sign_checkpoint(checkpoint, parse_signer(KEY.signer_key))
    lines = export([table])
    at = next(i for i, x in enumerate(lines) if type(x) is TableHead) + 1
    return [*lines[:at], CheckpointLine(table_id=table.table_id, size=size, note=note), *lines[at:]]


def write(path: Path, lines: list[Line]) -> str:
    path.write_bytes(encode_lines(lines))
    return str(path)


def test_a_clean_export_verifies_with_exit_zero_and_says_whether_signatures_were_checked(
    table: TablePlay, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "export.jsonl", with_checkpoint(table, 50))
    assert main(["verify", path]) == 0
    out = capsys.readouterr().out
    assert "signatures NOT checked (no --public-key)" in out
    assert out.rstrip().endswith("OK")
    key_file = tmp_path / "key.txt"
    key_file.write_text(KEY.verifier_key + "\n")
    for key in (KEY.verifier_key, str(key_file)):
        assert main(["verify", path, "--public-key", key]) == 0
        assert "1 checkpoints (1 matched), signatures checked: OK" in capsys.readouterr().out


def test_a_changed_record_exits_one_and_is_named(
    table: TablePlay, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = with_checkpoint(table, 50)
    index = next(i for i, x in enumerate(lines) if type(x) is RecordLine and x.seq == 30)
    line = lines[index]
    assert type(line) is RecordLine
    lines[index] = msgspec.structs.replace(line, body=msgspec.Raw(bytes(line.body).replace(b'"seq":30', b'"seq":31')))
    assert main(["verify", write(tmp_path / "bad.jsonl", lines), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is False
    assert (report["faults"][0]["kind"], report["faults"][0]["seq"]) == ("changed", 30)


def test_a_kept_export_anchors_the_chain_a_later_export_must_still_match(
    table: TablePlay, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = write(tmp_path / "old.jsonl", with_checkpoint(table, 20))
    current = write(tmp_path / "new.jsonl", export([table]))
    assert main(["verify", current, "--kept", kept, "--public-key", KEY.verifier_key]) == 0
    assert "1 checkpoints (1 matched)" in capsys.readouterr().out
    shorter = [x for x in export([table]) if not (type(x) is RecordLine and x.seq > 10)]
    cut = write(tmp_path / "cut.jsonl", shorter)
    assert main(["verify", cut, "--kept", kept]) == 1
    assert "truncated" in capsys.readouterr().out


def test_replay_prints_its_figures_and_json_says_the_same(
    table: TablePlay, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path / "export.jsonl", export([table]))
    assert main(["replay", path]) == 0
    text = capsys.readouterr().out
    assert "rounds re-run through the game core: 40, matching their records: 40" in text
    assert "generous/v1 with 2 deck(s)" in text
    assert "chi-square" in text
    assert main(["replay", path, "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["ok"], report["rounds"], report["summary"][0]["paytable"]) == (True, 40, "generous/v1")


def test_the_tools_run_from_the_package_without_the_server_or_its_libraries(table: TablePlay, tmp_path: Path) -> None:
    path = write(tmp_path / "export.jsonl", export([table]))
    blocked = ["service", "litestar", "asyncpg", "structlog", "prometheus_client", "uvicorn"]
    script = (
        "import sys\n"
        f"for name in {blocked!r}: sys.modules[name] = None\n"
        "from audit.audit_cli import main\n"
        f"sys.exit(main(['verify', {path!r}]) or main(['replay', {path!r}]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=False)  # noqa: S603 - our own interpreter
    assert done.returncode == 0, done.stderr
    assert "OK" in done.stdout
