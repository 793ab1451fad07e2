"""docs/api.md's error table names every code the service can answer, with its status: clients branch on them."""

from __future__ import annotations

import re
from pathlib import Path

from paytables import refusals
from paytables.refusals import GameError
from service.errors import refusal_status

ROOT = Path(__file__).resolve().parents[2]
RAISED = re.compile(r'(?:ApiError|problem)\(\s*(\d{3}),\s*"([A-Z_]+)"')
MAPPED = re.compile(r'(\d{3}): "([A-Z_]+)"')  # on_http_exception's status -> code map
ROW = re.compile(r"^\| (`[A-Z_]+`(?:, `[A-Z_]+`)*) \| (\d{3}) \|", re.MULTILINE)


def codes_in_the_source() -> set[tuple[str, int]]:
    found: set[tuple[str, int]] = set()
    for path in (ROOT / "service").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        found |= {(code, int(status)) for status, code in RAISED.findall(text)}
        if path.name == "errors.py":
            found |= {(code, int(status)) for status, code in MAPPED.findall(text)}
    game = [
        c for c in vars(refusals).values() if isinstance(c, type) and issubclass(c, GameError) and c is not GameError
    ]
    found |= {(c.code, refusal_status(c.code)) for c in game}
    return found


def test_every_code_the_service_answers_is_in_the_error_table_with_its_status() -> None:
    rows = ROW.findall((ROOT / "docs" / "api.md").read_text())
    documented = {(code.strip("`"), int(status)) for codes, status in rows for code in codes.split(", ")}
    source = codes_in_the_source()
    assert {("BODY_TOO_LARGE", 413), ("DUPLICATE_JSON_KEY", 400), ("INTERNAL_ERROR", 500)} <= source  # the scan works
    assert source - documented == set()
