"""docs/compliance.md cites only tests that exist and links only files that exist, and the README links it."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAP = ROOT / "docs" / "compliance.md"


def cited_tests(text: str) -> list[tuple[str, str]]:
    """Every `tests/....py::name` the map cites, in order."""
    return re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", text)


def test_every_test_the_map_cites_is_a_test_function_of_that_file() -> None:
    cited = cited_tests(MAP.read_text(encoding="utf-8"))
    assert len(cited) > 40
    missing = []
    for path, name in cited:
        file = ROOT / path
        source = file.read_text(encoding="utf-8") if file.exists() else ""
        if not re.search(rf"^(async )?def {name}\(", source, re.MULTILINE):
            missing.append(f"{path}::{name}")
    assert missing == []


def test_the_map_s_own_check_would_catch_a_renamed_test() -> None:
    assert cited_tests("`tests/unit/test_rtp.py::test_gone` and `tests/x.py`") == [
        ("tests/unit/test_rtp.py", "test_gone")
    ]


def test_every_file_the_map_links_exists_and_the_readme_links_the_map() -> None:
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", MAP.read_text(encoding="utf-8"))
    assert [link for link in links if not (MAP.parent / link).exists()] == []
    assert "(docs/compliance.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
